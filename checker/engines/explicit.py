"""Explicit-state search (`checker.interpret.explore`, breadth-first over concrete states)
as an engine: complete when it finishes within `Options.explicit_limit` states, and the
oracle the symbolic engines are tested against. Its traces are shortest (in steps) and
replayed like every other trace.

`Explorer` is the last resort of `check_all`: the reachable states of a system are
enumerated once (if there are at most `explicit_limit` of them) and every property the
symbolic engines left UNKNOWN is decided on that set; only a property with a target
state is searched again, for its shortest trace.
"""

from __future__ import annotations

from checker.engines.base import Outcome, found, to_result, unknown, unreachable
from checker.interpret import Interpreter, State, explore, reachable_states, replay
from checker.ir import Property, System
from checker.options import Options
from checker.results import Method, PropertyResult, StopReason


def search(system: System, prop: Property, options: Options) -> Outcome:
    ex = explore(system, prop, max_states=options.explicit_limit)
    if ex.verdict == "limit":
        return unknown(Method.EXPLICIT, StopReason.STATE_LIMIT,
                       f"more than {options.explicit_limit} reachable states")
    target_found = ex.verdict == ("fails" if prop.mode == "invariant" else "holds")
    if target_found:
        assert ex.start is not None and ex.path is not None
        expect = "violation" if prop.mode == "invariant" else "witness"
        return found(Method.EXPLICIT, replay(system, ex.start, ex.path, prop, expect=expect))
    return unreachable(Method.EXPLICIT, "", f"all {ex.states} reachable states explored")


def run(system: System, prop: Property, options: Options) -> PropertyResult:
    return to_result(prop, search(system, prop, options))


class Explorer:
    """The reachable states of `system`, enumerated once on first use."""

    def __init__(self, system: System, options: Options) -> None:
        self.system = system
        self.options = options
        self._states: set[State] | None = None
        self._complete = False

    def decide(self, prop: Property) -> Outcome:
        if self._states is None:
            self._states, self._complete = reachable_states(
                self.system, max_states=self.options.explicit_limit)
        if not self._complete:
            return unknown(Method.EXPLICIT, StopReason.STATE_LIMIT,
                           f"more than {self.options.explicit_limit} reachable states")
        interp = Interpreter(self.system)
        want = prop.mode == "reachable"
        termination = prop.kind == "termination"
        for s in self._states:
            if (interp.checked_here(prop, s) and interp.holds(prop, s) == want) or (
                    termination and not interp.is_stable(s)
                    and s[interp.index[self.system.res_var]] >= self.system.res_bound):
                return search(self.system, prop, self.options)     # for the shortest trace
        return unreachable(Method.EXPLICIT, "",
                           f"all {len(self._states)} reachable states explored")
