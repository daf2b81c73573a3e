"""Explicit-state search (`checker.interpret.explore`, breadth-first over concrete states)
as an engine: complete when it finishes within `Options.explicit_limit` states, and the
oracle the symbolic engines are tested against. Its traces are shortest (in steps) and
replayed like every other trace.

`Explorer` is the last resort of `check_all`: the reachable states of a system are
enumerated once (`checker.interpret.StateSpace`, if there are at most `explicit_limit` of
them) and every property the symbolic engines left UNKNOWN is decided on that set, a
target state with its shortest trace (the one `explore` finds: the same breadth-first
order).
"""

from __future__ import annotations

from checker.engines.base import Outcome, found, to_result, unknown, unreachable
from checker.interpret import StateSpace, explore, replay
from checker.interpret.search import is_target
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
        self.space = StateSpace(system, options.explicit_limit)

    def decide(self, prop: Property) -> Outcome:
        space = self.space
        if not space.complete:
            return unknown(Method.EXPLICIT, StopReason.STATE_LIMIT,
                           f"more than {self.options.explicit_limit} reachable states")
        target = space.first(lambda s: is_target(space.interp, prop, s))
        if target is not None:      # the first in breadth-first order: a shortest trace
            start, path = space.path(target)
            expect = "violation" if prop.mode == "invariant" else "witness"
            return found(Method.EXPLICIT, replay(self.system, start, path, prop,
                                                 expect=expect))
        return unreachable(Method.EXPLICIT, "", f"all {len(space)} reachable states explored")
