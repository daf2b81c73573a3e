"""Traces: an event path replayed by the reference interpreter (`replay`), the judge of
every counterexample and witness before it is reported."""

from __future__ import annotations

from checker.errors import InternalError
from checker.interpret.evaluate import State
from checker.interpret.machine import Interpreter, MacroStep, fired_between, resolve_from
from checker.ir import Property, System
from checker.results import Step, Trace


def describe_step(interp: Interpreter, before: State, m: MacroStep) -> Step:
    system = interp.system
    after = m.micro[-1]
    changed = tuple((v.name, v.show(b)) for v, a, b in zip(system.vars, before, after,
                                                              strict=True)
                    if a != b and not v.bookkeeping and v.kind != "input")
    inputs = tuple((v.name, v.show(val)) for v, val in zip(interp.inputs, m.inputs,
                                                            strict=True))
    return Step(m.event.id, inputs, m.fired, changed, tuple(zip(interp.names, after,
                                                                  strict=True)))


def replay(system: System, start: State, events: list[tuple[str, tuple[int, ...]]],
           prop: Property | None = None, *, expect: str = "violation") -> Trace:
    """Replay `events` (event id, inputs) from `start` and return the people's trace.

    With `prop`, the final stable state (or, for `at == "all"` properties, some state of the
    last resolution) must violate it (`expect="violation"`) or satisfy it
    (`expect="witness"`); otherwise the trace is wrong and `InternalError` is raised — a
    trace that does not replay is a bug, never a finding.
    """
    interp = Interpreter(system)
    if start not in set(interp.initial_states()):
        raise InternalError("trace does not start in an initial state")
    visited, cur, stuck = resolve_from(interp, start)
    fired0 = tuple(fired_between(interp, visited))
    steps = [Step("", (), fired0, (), tuple(zip(interp.names, cur, strict=True)))]
    for event_id, inputs in events if not stuck else []:
        m = interp.macro_step(cur, event_id, inputs)
        steps.append(describe_step(interp, cur, m))
        visited.extend(m.micro)
        cur = m.micro[-1]
        if m.stuck:
            break
    if prop is not None:
        candidates = visited if prop.at == "all" else [s for s in visited
                                                        if interp.is_stable(s)]
        want_true = expect == "witness"
        ok = any(interp.holds(prop, s) == want_true for s in candidates)
        if prop.kind == "termination":
            ok = interp.is_stuck(cur)
        if not ok:
            raise InternalError(f"trace for {prop.id!r} does not replay: the reference "
                                f"interpreter finds no {expect} at its end")
    return Trace(tuple(steps), replayed=True)
