"""Witnesses: from the first macro layer meeting a query back to an initial state.

The first layer `k` whose cumulative set `R[k]` (`core.py`) meets the goal is found by
bisection (the sets only grow). Its states not reached before, `R[k] ∖ R[k-1]`, are exactly
the micro states first reached in layer k, and every micro predecessor within `R[k]` of
such a state is one as well (a micro step taken in an earlier layer would have reached the
state there). So the walk is backward one state at a time, with nothing recomputed: pick a
concrete target state of `R[k] ∖ R[k-1]` that meets the goal; while it is not where the
layer starts (an initial state for layer 0; else a state some event leads to from a
canonical situation of `C[k-1]`), step back one micro step (for every rule, the preimage
of the single state under its relation, taken only where the rule may fire, intersected
with `R[k] ∖ R[k-1]` and, for the former `first` resolution, with "no earlier rule is
enabled"; `_res` goes down by one each step, so the walk ends). At the start, take the
event and the situation of `C[k-1]` (the inputs are the rolled values, visible in the
post-event state); the situation's actual stable state first reached in layer k-1 is the
next goal. Layer 0 ends at an initial state. Because the layer is the first one meeting
the query, the event path is shortest by construction.

Every path is then checked concretely by `step_check`, a small stepper over the public
interpreter API (`Interpreter.run_effects`, `may_fire`) that replays each event with its
inputs and each micro step with its rule, including the monitors; for `any` resolution
(the semantics) the caller also replays the events with their fired rules with
`checker.interpret.replay`, the judge of every trace.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.errors import InternalError
from checker.interpret import Interpreter, compile_expr
from checker.interpret.machine import MacroStep
from checker.interpret.traces import describe_step
from checker.results import Step, Trace

from .core import Core
from .encode import Node, State


@dataclass(frozen=True)
class Segment:
    """One macro step of a path: the event (None for the initial resolution), its inputs,
    the states after the event and after each micro step, and the rules fired."""

    event: str | None
    inputs: tuple[int, ...]
    micro: tuple[State, ...]
    fired: tuple[str, ...]


def first_layer(core: Core, target: Node, at: str) -> int | None:
    """The first macro layer whose cumulative set meets `target` (stable states only unless
    `at` is "all"), by bisection; None when no reachable state does."""
    false = core.enc.bdd.false
    target = core.all_micro & target       # (every R[k] is within it)
    if at != "all":
        target = core.rel.stable_part(target)
    if target == false:
        return None
    lo, hi = 0, len(core.layers) - 1       # R[hi] meets the target
    if core.dropped:                       # one pass over the recomputed sets
        return len(core.reached_upto(hi, stop=target)) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if core.reached(mid) & target != false:
            hi = mid
        else:
            lo = mid + 1
    return lo


def walk_back(core: Core, k: int, goal: Node, at: str) -> list[Segment]:
    """A path of k events from an initial state to a state of `goal` (stable if `at` is
    "stable") first reached in layer k."""
    enc, rel = core.enc, core.rel
    false = enc.bdd.false
    input_idx = [i for i, v in enumerate(core.system.vars) if v.kind == "input"]
    initial = enc.initial()
    segments: list[Segment] = []
    reached = core.reached_upto(k)
    while True:
        fresh = reached[k] & ~reached[k - 1] if k else reached[0]
        wanted = fresh & goal if at == "all" else rel.stable_part(fresh & goal)
        if wanted == false:
            raise InternalError(f"reach: layer {k} does not meet the goal")
        t = enc.pick(wanted)
        chain: list[State] = [t]
        fired: list[str] = []
        frontier = core.layers[k - 1].frontier if k else false
        start: tuple[str, State] | None = None
        while True:
            if k == 0 and enc.state_cube(t) & initial != false:
                break
            if k > 0:
                start = _event_into(core, t, frontier)
                if start is not None:
                    break
            t, rule = _micro_predecessor(core, t, fresh)
            chain.insert(0, t)
            fired.insert(0, rule)
        if start is None:
            segments.insert(0, Segment(None, (), tuple(chain), tuple(fired)))
            return segments
        event, situation = start
        inputs = tuple(chain[0][i] for i in input_idx)
        segments.insert(0, Segment(event, inputs, tuple(chain), tuple(fired)))
        goal, at, k = enc.state_cube(situation, core.keep), "stable", k - 1


def _event_into(core: Core, t: State, frontier: Node) -> tuple[str, State] | None:
    """An event and a canonical situation of `frontier` it leads to `t` from, if any."""
    enc = core.enc
    cube = enc.state_cube(t)
    for r in core.rel.events:
        pre = core.rel.preimage(r, cube) & frontier
        if pre != enc.bdd.false:
            return r.transition.id, enc.pick(pre, core.keep)
    return None


def _micro_predecessor(core: Core, t: State, within: Node) -> tuple[State, str]:
    enc, rel = core.enc, core.rel
    false = enc.bdd.false
    cube = enc.state_cube(t)
    earlier = enc.bdd.true
    for r in rel.rules:
        pre = rel.preimage(r, cube) & within & earlier
        if pre != false:
            return enc.pick(pre), r.transition.id
        if core.resolution == "first":
            earlier &= ~r.enabled
    raise InternalError("reach: a micro state has no predecessor in its layer")


class Stepper:
    """Concrete single steps over the public interpreter API (see the module docstring)."""

    def __init__(self, core: Core) -> None:
        self.system = core.system
        self.interp = Interpreter(core.system)
        self.resolution = core.resolution
        index = self.interp.index
        self.res = index[core.system.res_var]
        self.input_idx = [index[v.name] for v in self.interp.inputs]
        self.guards = {e.id: compile_expr(e.guard, index) for e in core.system.events}
        self.events = {e.id: e for e in core.system.events}
        self.rules = {r.id: r for r in core.system.rules}
        self.monitors = [(index[n], compile_expr(w, index)) for n, w in core.system.monitors]

    def monitor(self, pre: State, post: State) -> State:
        out = list(post)
        for i, watched in self.monitors:
            out[i] = int(bool(pre[i]) or bool(watched(pre)))
        return tuple(out)

    def event(self, prev: State, seg: Segment) -> State:
        assert seg.event is not None
        if not self.interp.is_stable(prev):
            raise InternalError(f"reach: event {seg.event} from an unstable state")
        rolled = list(prev)
        for i, value in zip(self.input_idx, seg.inputs, strict=True):
            rolled[i] = value
        pre = tuple(rolled)
        if not self.guards[seg.event](pre):
            raise InternalError(f"reach: event {seg.event} is not enabled")
        return self.monitor(prev, self.interp.run_effects(self.events[seg.event], pre))

    def micro(self, cur: State, rule_id: str) -> State:
        rule = self.rules[rule_id]
        if not self.interp.may_fire(rule, cur) or cur[self.res] >= self.system.res_bound:
            raise InternalError(f"reach: rule {rule_id} may not fire here")
        first = next((r for r in self.system.rules if self.interp.is_enabled(r, cur)), None)
        if self.resolution == "first" and (first is None or first.id != rule_id):
            raise InternalError(f"reach: rule {rule_id} is not the first enabled rule")
        nxt = list(self.interp.run_effects(rule, cur))
        nxt[self.res] = cur[self.res] + 1
        return self.monitor(cur, tuple(nxt))

    def check(self, segments: list[Segment]) -> None:
        """Raise `InternalError` unless every step of the path is a step of the system."""
        start = segments[0].micro[0]
        if start not in set(self.interp.initial_states()):
            raise InternalError("reach: the path does not start in an initial state")
        prev: State | None = None
        for n, seg in enumerate(segments):
            if seg.event is not None:
                assert prev is not None
                if self.event(prev, seg) != seg.micro[0]:
                    raise InternalError(f"reach: event {seg.event} gives another state")
            for a, b, rule in zip(seg.micro, seg.micro[1:], seg.fired, strict=False):
                if self.micro(a, rule) != b:
                    raise InternalError(f"reach: rule {rule} gives another state")
            prev = seg.micro[-1]
            if n < len(segments) - 1 and not self.interp.is_stable(prev):
                raise InternalError("reach: a macro step of the path does not end stable")

    def trace(self, segments: list[Segment]) -> Trace:
        """The people's trace of a checked path (not replayed by the interpreter)."""
        names = self.interp.names
        init = segments[0]
        steps = [Step("", (), init.fired, (), tuple(zip(names, init.micro[-1], strict=True)))]
        prev = init.micro[-1]
        for seg in segments[1:]:
            assert seg.event is not None
            last = seg.micro[-1]
            stuck = not self.interp.is_stable(last) and last[self.res] >= self.system.res_bound
            m = MacroStep(self.events[seg.event], seg.inputs, seg.micro, seg.fired, stuck)
            steps.append(describe_step(self.interp, prev, m))
            prev = last
        return Trace(tuple(steps), replayed=False)
