"""Traces: an event path with the rules fired in each step, replayed by the reference
interpreter (`replay`), the judge of every counterexample and witness before it is
reported.

Resolution is unordered (docs/semantics.md "One step"), so a trace is not its events
alone: each step also names the rules it fired, in order — the choice made. `replay`
checks every one of them may fire at that point. An engine that knows only the events
(a solver's path, a search over macro steps) lets `replay` find the choices: a
breadth-first search over the orders of each step along the given events
(`find_choices`), whose answer is then replayed like any other."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from checker.errors import InternalError
from checker.interpret.evaluate import State
from checker.interpret.machine import Interpreter, MacroStep, shared
from checker.ir import Property, System
from checker.results import Step, Trace

Events = Sequence[tuple[str, tuple[int, ...]]]
Choices = Sequence[tuple[str, ...]]     # the rules fired: initial resolution, then per event


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


def choices_of(trace: Trace) -> list[tuple[str, ...]]:
    """The rules a trace fired, per step (its initial resolution first)."""
    return [st.fired for st in trace.steps]


def _matches(interp: Interpreter, prop: Property | None, expect: str, s: State) -> bool:
    if prop is None:
        return False
    if prop.kind == "termination":
        return interp.is_stuck(s)
    if prop.at != "all" and not interp.is_stable(s):
        return False
    return interp.holds(prop, s) == (expect == "witness")


def find_choices(interp: Interpreter, start: State, events: Events,
                 prop: Property | None = None, expect: str = "violation"
                 ) -> list[tuple[str, ...]] | None:
    """Rules to fire in each step so that `events` from `start` replay and (with `prop`)
    meet the expectation at some point, fewest micro steps first; None if no order does.
    A stuck resolution ends the trace (later events are not run)."""
    n = len(events)
    Node = tuple[int, State, bool]      # (events run, state, expectation met on the way)
    first: Node = (0, start, prop is None or _matches(interp, prop, expect, start))
    parent: dict[Node, tuple[Node, str | None] | None] = {first: None}
    queue = deque([first])
    goal: Node | None = None
    while queue:
        node = queue.popleft()
        i, s, met = node
        nexts: list[tuple[Node, str | None]] = []
        if interp.is_stable(s):
            if i == n:
                if met:
                    goal = node
                    break
                continue
            _, s0 = interp.after_event(s, *events[i])
            nexts.append(((i + 1, s0, met or _matches(interp, prop, expect, s0)), None))
        elif interp.is_stuck(s):
            if met:
                goal = node
                break
            continue
        else:
            for rule in interp.firable(s):
                nxt = interp.fire(rule, s)
                nexts.append(((i, nxt, met or _matches(interp, prop, expect, nxt)), rule.id))
        for child, label in nexts:
            if child not in parent:
                parent[child] = (node, label)
                queue.append(child)
    if goal is None:
        return None
    labels: list[str | None] = []
    cur: Node = goal
    while (link := parent[cur]) is not None:
        cur, label = link
        labels.append(label)
    out: list[list[str]] = [[]]
    for label in reversed(labels):
        if label is None:
            out.append([])
        else:
            out[-1].append(label)
    return [tuple(x) for x in out]


def replay(system: System, start: State, events: Events, prop: Property | None = None, *,
           expect: str = "violation", fired: Choices | None = None) -> Trace:
    """Replay `events` (event id, inputs) from `start`, each step firing the rules `fired`
    gives for it (one tuple per step, the initial resolution first; when None, the first
    choices that meet the expectation, `find_choices`), and return the people's trace.

    Every fired rule must be one that may fire at that point and every resolution must end
    where its choices end, but the last: a target met mid-resolution leaves the rest of it
    to the interpreter (its first order, `Interpreter.run_choices(complete=True)`). With
    `prop`, some stable state (any state, for `at == "all"` properties) on the way must
    violate it (`expect="violation"`) or satisfy it
    (`expect="witness"`). Otherwise the trace is wrong and `InternalError` is raised — a
    trace that does not replay is a bug, never a finding.
    """
    interp = shared(system)
    if not interp.is_initial(start):
        raise InternalError("trace does not start in an initial state")
    if fired is None:
        found = find_choices(interp, start, events, prop, expect)
        if found is None:
            what = f" for {prop.id!r}" if prop is not None else ""
            raise InternalError(f"trace{what} does not replay: the reference interpreter "
                                f"finds no order of its steps giving a {expect}")
        fired = found
    if len(fired) > len(events) + 1:
        raise InternalError("trace has more rule choices than steps")
    last = len(events) if len(fired) == len(events) + 1 else -1
    micro, stuck = interp.run_choices(start, fired[0] if fired else (), complete=last == 0)
    visited = list(micro)
    cur = micro[-1]
    steps = [Step("", (), interp.fired_along(micro), (),
                  tuple(zip(interp.names, cur, strict=True)))]
    first = tuple(zip(interp.names, start, strict=True)) if cur != start else ()
    for k, (event_id, inputs) in enumerate(events if not stuck else []):
        if k + 1 >= len(fired):
            raise InternalError(f"trace gives no rule choices for step {k + 1}")
        m = interp.macro_step(cur, event_id, inputs, fired[k + 1], complete=last == k + 1)
        steps.append(describe_step(interp, cur, m))
        visited.extend(m.micro)
        cur = m.micro[-1]
        if m.stuck:
            break
    if prop is not None:
        if prop.kind == "termination":
            ok = interp.is_stuck(cur)
        else:
            ok = any(_matches(interp, prop, expect, s) for s in visited)
        if not ok:
            raise InternalError(f"trace for {prop.id!r} does not replay: the reference "
                                f"interpreter finds no {expect} at its end")
    return Trace(tuple(steps), replayed=True, start=first)


def trace_steps(interp: Interpreter, trace: Trace
                ) -> tuple[State, list[tuple[str, tuple[int, ...]]]]:
    """A trace as reported, as `replay` takes it: its start state and its (event, input
    values) steps, the inputs' shown labels turned back into their indices."""
    raw = dict(trace.start or trace.steps[0].state)
    start: State = tuple(raw[n] for n in interp.names)
    events = []
    for st in trace.steps[1:]:
        values = dict(st.inputs)
        events.append((st.event, tuple(v.labels.index(values[v.name]) if v.labels
                                       else int(values[v.name]) for v in interp.inputs)))
    return start, events


def replay_trace(system: System, trace: Trace, prop: Property | None = None, *,
                 expect: str = "violation") -> Trace:
    """Replay a trace as reported (its start, events, inputs and fired rules, e.g. read
    back from JSON): the same judge as `replay`, on the trace's own choices."""
    start, events = trace_steps(shared(system), trace)
    return replay(system, start, events, prop, expect=expect, fired=choices_of(trace))
