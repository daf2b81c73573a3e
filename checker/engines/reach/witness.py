"""Witnesses: from the first macro layer meeting a query back to an initial state.

The first layer `k` whose cumulative set `R[k]` (`core.py`, computed on demand;
`bounded.py`) meets the goal is found by extending the layers or by bisection (the sets
only grow). Its states not reached before, `R[k] ∖ R[k-1]`, are exactly the micro states
first reached in layer k, and every micro predecessor within `R[k]` of such a state is one
as well (a micro step taken in an earlier layer would have reached the state there). So
the walk is backward one state at a time, with nothing recomputed: pick a concrete target
state of `R[k] ∖ R[k-1]` that meets the goal; while it is not where the layer starts (an
initial state for layer 0; else a state some event leads to from a canonical situation of
`C[k-1]`), step back one micro step (for every rule, the preimage of the single state under
its relation, taken only where the rule may fire, intersected with `R[k] ∖ R[k-1]` and, for
the former `first` resolution, with "no earlier rule is enabled"). The walk ends because
the micro steps between reachable states form no cycle: `_res` goes down by one each step
in the counted core, and the fast core is only used when no resolution can reach the bound,
which a cycle would. A core whose sets leave the counter out has it filled in afterwards
(0 after the event, one more per micro step). At the start, take the event and the
situation of `C[k-1]` (the inputs are the rolled values, visible in the post-event state);
the situation's actual stable state first reached in layer k-1 is the next goal. Layer 0
ends at an initial state. Because the layer is the first one meeting the query, the event
path is shortest by construction.

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

from .bounded import BoundedCore
from .core import Core
from .encode import Node, State
from .relation import Relation

AnyCore = Core | BoundedCore


@dataclass(frozen=True)
class Segment:
    """One macro step of a path: the event (None for the initial resolution), its inputs,
    the states after the event and after each micro step, and the rules fired."""

    event: str | None
    inputs: tuple[int, ...]
    micro: tuple[State, ...]
    fired: tuple[str, ...]


def first_layer(core: AnyCore, target: Node, at: str) -> int | None:
    """The first macro layer whose cumulative set meets `target` (stable states only unless
    `at` is "all"); None when no reachable state does (or a budget stops the layers)."""
    false = core.enc.bdd.false
    target = core.all_micro & target       # (every R[k] is within it)
    if at != "all":
        target = core.rel.stable_part(target)
    if target == false:
        return None
    return core.first_layer(target)


def walk_back(core: AnyCore, k: int, goal: Node, at: str) -> list[Segment]:
    """A path of k events from an initial state to a state of `goal` (stable if `at` is
    "stable") first reached in layer k."""
    enc, rel = core.enc, core.rel
    false = enc.bdd.false
    names = core.state_names
    input_idx = [i for i, v in enumerate(core.system.vars) if v.kind == "input"]
    initial = core.initial()
    segments: list[Segment] = []
    while True:
        fresh = core.fresh(k)
        wanted = fresh & goal if at == "all" else rel.stable_part(fresh & goal)
        if wanted == false:
            raise InternalError(f"reach: layer {k} does not meet the goal")
        t = enc.pick(wanted)
        chain: list[State] = [t]
        fired: list[str] = []
        frontier = core.frontier(k - 1) if k else false
        start: tuple[str, State] | None = None
        while True:
            if k == 0 and enc.state_cube(t, names) & initial != false:
                break
            if k > 0:
                start = _event_into(core, t, frontier)
                if start is not None:
                    break
            t, rule = _micro_predecessor(core, t, fresh)
            chain.insert(0, t)
            fired.insert(0, rule)
        chain = _counted(core, chain, k == 0)
        if start is None:
            segments.insert(0, Segment(None, (), tuple(chain), tuple(fired)))
            return segments
        event, situation = start
        inputs = tuple(chain[0][i] for i in input_idx)
        segments.insert(0, Segment(event, inputs, tuple(chain), tuple(fired)))
        goal, at, k = enc.state_cube(situation, core.keep), "stable", k - 1


def _counted(core: AnyCore, chain: list[State], initial: bool) -> list[State]:
    """The states of one resolution with the resolution counter filled in, for a core
    whose sets do not hold it (`Core`): 0 after the event (the initial value for the
    initial resolution), one more after each micro step."""
    if core.counted:
        return chain
    res = core.system.res_var
    i = next(n for n, v in enumerate(core.system.vars) if v.name == res)
    base = core.system.vars[i].init[0] if initial else 0
    return [(*s[:i], base + j, *s[i + 1:]) for j, s in enumerate(chain)]


def _event_into(core: AnyCore, t: State, frontier: Node) -> tuple[str, State] | None:
    """An event and a canonical situation of `frontier` it leads to `t` from, if any."""
    enc = core.enc
    cube = enc.state_cube(t, core.state_names)
    for r in core.rel.events:
        if not _may_lead_to(r, t):
            continue
        pre = core.rel.preimage(r, cube) & frontier
        if pre != enc.bdd.false:
            return r.transition.id, enc.pick(pre, core.keep)
    return None


def _may_lead_to(r: Relation, t: State) -> bool:
    """False when `r` sets a variable to a constant `t` does not hold: no step of `r`
    ends in `t`, and its preimage need not be computed. Counted on the walks back of
    every property check from the core (51f5512): Eldfall skips 19,450 of 20,411 event
    preimages and 2,951 of 4,740 rule ones, Bushido 4,054 of 5,362 and 43 of 72."""
    return all(t[i] == c for i, c in r.fixed)


def _micro_predecessor(core: AnyCore, t: State, within: Node) -> tuple[State, str]:
    enc, rel = core.enc, core.rel
    false = enc.bdd.false
    cube = enc.state_cube(t, core.state_names)
    earlier = enc.bdd.true
    for r in rel.rules:
        if _may_lead_to(r, t):
            pre = rel.preimage(r, cube) & within & earlier
            if pre != false:
                return enc.pick(pre), r.transition.id
        if core.resolution == "first":
            earlier &= ~r.enabled
    raise InternalError("reach: a micro state has no predecessor in its layer")


class Stepper:
    """Concrete single steps over the public interpreter API (see the module docstring)."""

    def __init__(self, core: AnyCore) -> None:
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
        if not self.interp.is_initial(start):
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
        first = init.micro[0]
        start = tuple(zip(names, first, strict=True)) if first != init.micro[-1] else ()
        return Trace(tuple(steps), replayed=False, start=start)
