"""The reference interpreter: executes a `System` concretely (docs/semantics.md).

It is written independently of the Z3 encoding and is the judge of every trace: a
counterexample or witness from a symbolic engine is replayed here (`replay`) before it is
reported. It also does explicit-state breadth-first search (`explore`), the oracle the
symbolic engines are tested against on small models.

A concrete state is a tuple of ints in `system.vars` order.
"""

from __future__ import annotations

import itertools
import operator
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from checker.errors import InternalError
from checker.ir import Const, LExpr, Op, Property, System, Transition, V
from checker.results import Step, Trace

State = tuple[int, ...]


def evaluate(e: LExpr, env: dict[str, int]) -> int | bool:
    """The value of `e` in `env` (variable name → value)."""
    match e:
        case Const(value):
            return value
        case V(name):
            return env[name]
        case Op(op, args):
            if op == "and":
                return all(evaluate(a, env) for a in args)
            if op == "or":
                return any(evaluate(a, env) for a in args)
            if op == "implies":
                return (not evaluate(args[0], env)) or bool(evaluate(args[1], env))
            if op == "ite":
                return evaluate(args[1], env) if evaluate(args[0], env) else evaluate(args[2],
                                                                                        env)
            vals = [evaluate(a, env) for a in args]
            return _apply(op, vals)
    raise AssertionError(e)


def _apply(op: str, vals: list[int | bool]) -> int | bool:
    match op:
        case "not":
            return not vals[0]
        case "eq":
            return vals[0] == vals[1]
        case "ne":
            return vals[0] != vals[1]
        case "lt":
            return vals[0] < vals[1]
        case "le":
            return vals[0] <= vals[1]
        case "gt":
            return vals[0] > vals[1]
        case "ge":
            return vals[0] >= vals[1]
        case "add":
            return int(vals[0]) + int(vals[1])
        case "sub":
            return int(vals[0]) - int(vals[1])
        case "mul":
            return int(vals[0]) * int(vals[1])
        case "neg":
            return -int(vals[0])
        case "min":
            return min(int(v) for v in vals)
        case "max":
            return max(int(v) for v in vals)
    raise AssertionError(op)





def compile_expr(e: LExpr, index: dict[str, int]) -> Callable[[Sequence[int]], int | bool]:
    """`e` as a Python closure over a state tuple (variables by position): the same meaning as
    `evaluate`, about ten times faster for explicit search."""
    match e:
        case Const(value):
            return lambda s: value
        case V(name):
            i = index[name]
            return lambda s: s[i]
        case Op(op, args):
            fs = [compile_expr(a, index) for a in args]
            if op == "and":
                if len(fs) == 2:
                    a, b = fs
                    return lambda s: bool(a(s)) and bool(b(s))
                if len(fs) == 3:
                    a, b, c = fs
                    return lambda s: bool(a(s)) and bool(b(s)) and bool(c(s))
                return lambda s: all(f(s) for f in fs)
            if op == "or":
                if len(fs) == 2:
                    a, b = fs
                    return lambda s: bool(a(s)) or bool(b(s))
                return lambda s: any(f(s) for f in fs)
            if op == "implies":
                a, b = fs
                return lambda s: (not a(s)) or bool(b(s))
            if op == "ite":
                c, x, y = fs
                return lambda s: x(s) if c(s) else y(s)
            if op == "not":
                (a,) = fs
                return lambda s: not a(s)
            if len(fs) == 2:
                a, b = fs
                if isinstance(args[1], Const):
                    k = args[1].value
                    if op == "eq":
                        return lambda s: a(s) == k
                    if op == "ge":
                        return lambda s: a(s) >= k
                    if op == "ne":
                        return lambda s: a(s) != k
                if isinstance(args[0], V) and isinstance(args[1], Const) and op == "eq":
                    i, k2 = index[args[0].name], args[1].value
                    return lambda s: s[i] == k2
                fn2 = _BINARY[op]
                return lambda s: fn2(a(s), b(s))
            return lambda s: _apply(op, [f(s) for f in fs])
    raise AssertionError(e)


_BINARY: dict[str, Callable[[Any, Any], int | bool]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge, "add": operator.add, "sub": operator.sub,
    "mul": operator.mul, "min": min, "max": max,
}


@dataclass(frozen=True)
class MacroStep:
    """The outcome of one event: the stable state reached (or the stuck one) and the rules
    that fired on the way."""

    event: Transition
    inputs: tuple[int, ...]
    micro: tuple[State, ...]          # states after the event and after each micro step
    fired: tuple[str, ...]
    stuck: bool                       # the resolution hit res_bound without becoming stable


class Interpreter:
    def __init__(self, system: System) -> None:
        self.system = system
        self.names = tuple(v.name for v in system.vars)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.inputs = tuple(v for v in system.vars if v.kind == "input")
        self._frozen = frozenset(v.name for v in system.vars if v.kind in ("res", "seen"))
        self._watched = [i for i, n in enumerate(self.names) if n not in self._frozen]
        self._res = self.index[system.res_var]
        self._bounds = [(v.lo, v.hi) for v in system.vars]
        self._guard = {t.id: compile_expr(t.guard, self.index)
                       for t in (*system.events, *system.rules)}
        self._effects = {t.id: self._compile_effects(t) for t in (*system.events,
                                                                  *system.rules)}
        self._monitors = [(self.index[n], compile_expr(w, self.index))
                          for n, w in system.monitors]
        self._props: dict[int, tuple[LExpr, Callable[[Sequence[int]], int | bool]]] = {}

    # ------------------------------------------------------------------ basics
    def env(self, state: State) -> dict[str, int]:
        return dict(zip(self.names, state, strict=True))

    def initial_states(self) -> Iterator[State]:
        for combo in itertools.product(*(v.init for v in self.system.vars)):
            yield tuple(combo)

    def _compile_effects(self, t: Transition) -> list[tuple[int, Any, bool]]:
        """(index, closure or constant, is_constant) per assignment; constants are checked
        against the variable's range once, here."""
        out: list[tuple[int, Any, bool]] = []
        for a in t.effects:
            i = self.index[a.var]
            if isinstance(a.value, Const):
                value = int(a.value.value)
                lo, hi = self._bounds[i]
                if not lo <= value <= hi:
                    raise InternalError(f"{t.id} sets {a.var}={value} outside [{lo}, {hi}]")
                out.append((i, value, True))
            else:
                out.append((i, compile_expr(a.value, self.index), False))
        return out

    def run_effects(self, t: Transition, state: State) -> State:
        cur = list(state)
        bounds = self._bounds
        for i, f, constant in self._effects[t.id]:
            if constant:
                cur[i] = f
                continue
            value = int(f(cur))
            lo, hi = bounds[i]
            if not lo <= value <= hi:
                raise InternalError(f"{t.id} set {self.names[i]}={value} outside [{lo}, {hi}]")
            cur[i] = value
        return tuple(cur)

    def is_enabled(self, rule: Transition, state: State) -> bool:
        if not self._guard[rule.id](state):
            return False
        after = self.run_effects(rule, state)
        return any(after[i] != state[i] for i in self._watched)

    def first_enabled(self, state: State) -> Transition | None:
        for r in self.system.rules:
            if self.is_enabled(r, state):
                return r
        return None

    def is_stable(self, state: State) -> bool:
        return self.first_enabled(state) is None

    def _monitor(self, pre: State, post: State) -> State:
        if not self._monitors:
            return post
        out = list(post)
        for i, watched in self._monitors:
            out[i] = int(bool(pre[i]) or bool(watched(pre)))
        return tuple(out)

    # ------------------------------------------------------------------ steps
    def successors(self, state: State) -> Iterator[tuple[str, tuple[int, ...], State]]:
        """Every single-transition successor: (label, inputs, next state). The label is an
        event id for an event step and a rule id for a micro step."""
        rule = self.first_enabled(state)
        if rule is not None:
            if state[self._res] >= self.system.res_bound:
                return  # stuck: the non-termination finding; no successor
            nxt = list(self.run_effects(rule, state))
            nxt[self._res] = state[self._res] + 1
            yield rule.id, (), self._monitor(state, tuple(nxt))
            return
        for combo in itertools.product(*(range(v.lo, v.hi + 1) for v in self.inputs)):
            rolled = list(state)
            for v, val in zip(self.inputs, combo, strict=True):
                rolled[self.index[v.name]] = val
            pre = tuple(rolled)
            for ev in self.system.events:
                if self._guard[ev.id](pre):
                    yield ev.id, combo, self._monitor(state, self.run_effects(ev, pre))

    def macro_step(self, state: State, event_id: str, inputs: tuple[int, ...]) -> MacroStep:
        """Run event `event_id` with `inputs` from stable `state`, then resolve."""
        if not self.is_stable(state):
            raise InternalError(f"event {event_id!r} chosen in an unstable state")
        ev = next((e for e in self.system.events if e.id == event_id), None)
        if ev is None:
            raise InternalError(f"no event {event_id!r}")
        rolled = list(state)
        for v, val in zip(self.inputs, inputs, strict=True):
            rolled[self.index[v.name]] = val
        pre = tuple(rolled)
        if not self._guard[ev.id](pre):
            raise InternalError(f"event {event_id!r} is not enabled here")
        cur = self._monitor(state, self.run_effects(ev, pre))
        micro = [cur]
        fired: list[str] = []
        while True:
            rule = self.first_enabled(cur)
            if rule is None:
                return MacroStep(ev, inputs, tuple(micro), tuple(fired), False)
            if cur[self._res] >= self.system.res_bound:
                return MacroStep(ev, inputs, tuple(micro), tuple(fired), True)
            nxt = list(self.run_effects(rule, cur))
            nxt[self._res] = cur[self._res] + 1
            cur = self._monitor(cur, tuple(nxt))
            micro.append(cur)
            fired.append(rule.id)

    # ------------------------------------------------------------------ properties
    def holds(self, prop: Property, state: State) -> bool:
        hit = self._props.get(id(prop.expr))
        if hit is None or hit[0] is not prop.expr:
            hit = self._props[id(prop.expr)] = (prop.expr, compile_expr(prop.expr, self.index))
        return bool(hit[1](state))

    def checked_here(self, prop: Property, state: State) -> bool:
        """Whether `prop` is evaluated in `state` (stable-only properties skip the rest)."""
        return prop.at == "all" or self.is_stable(state)


# ====================================================================== traces

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
    visited, cur, stuck = _resolve_from(interp, start)
    fired0 = tuple(_fired_between(interp, visited))
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
            ok = (not interp.is_stable(cur)) and cur[interp._res] >= system.res_bound
        if not ok:
            raise InternalError(f"trace for {prop.id!r} does not replay: the reference "
                                f"interpreter finds no {expect} at its end")
    return Trace(tuple(steps), replayed=True)


# ====================================================================== explicit search

@dataclass(frozen=True)
class Explored:
    """The result of explicit search for one property."""

    verdict: str                          # "holds" | "fails" | "limit"
    states: int
    path: list[tuple[str, tuple[int, ...]]] | None = None   # events from an initial state
    start: State | None = None


def explore(system: System, prop: Property, *, max_states: int = 200_000) -> Explored:
    """Breadth-first search over concrete states (networkx-free for speed; the state graph
    is built by `state_graph` when a caller wants it). For an invariant, "fails" comes with
    a shortest event path to a violating state; for a reachability property, "holds" comes
    with a shortest witness path."""
    interp = Interpreter(system)
    parent: dict[State, tuple[State | None, str, tuple[int, ...]]] = {}
    queue: deque[State] = deque()
    for s in interp.initial_states():
        if s not in parent:
            parent[s] = (None, "", ())
            queue.append(s)
    want = prop.mode == "reachable"
    events = frozenset(e.id for e in system.events)
    while queue:
        s = queue.popleft()
        if interp.checked_here(prop, s) and interp.holds(prop, s) == want:
            return Explored("holds" if want else "fails", len(parent), _events(parent, s, events),
                            _root(parent, s))
        if prop.kind == "termination" and not interp.is_stable(s) and \
                s[interp._res] >= system.res_bound:
            return Explored("fails", len(parent), _events(parent, s, events),
                            _root(parent, s))
        for label, inputs, nxt in interp.successors(s):
            if nxt not in parent:
                if len(parent) >= max_states:
                    return Explored("limit", len(parent))
                parent[nxt] = (s, label, inputs)
                queue.append(nxt)
    return Explored("fails" if want else "holds", len(parent))


def _root(parent: dict[State, tuple[State | None, str, tuple[int, ...]]], s: State) -> State:
    while True:
        p = parent[s][0]
        if p is None:
            return s
        s = p


def _events(parent: dict[State, tuple[State | None, str, tuple[int, ...]]], s: State,
            event_ids: frozenset[str]) -> list[tuple[str, tuple[int, ...]]]:
    """The event steps (not the micro steps) on the BFS path to `s`."""
    labels: list[tuple[str, tuple[int, ...]]] = []
    cur: State = s
    while True:
        p, label, inputs = parent[cur]
        if p is None:
            break
        labels.append((label, inputs))
        cur = p
    labels.reverse()
    return [(label, inputs) for label, inputs in labels if label in event_ids]


def reachable_states(system: System, *, max_states: int = 200_000) -> tuple[set[State], bool]:
    """All reachable states (stable or not), and whether the search was complete."""
    interp = Interpreter(system)
    seen: set[State] = set(interp.initial_states())
    queue = deque(seen)
    while queue:
        s = queue.popleft()
        for _, _, nxt in interp.successors(s):
            if nxt not in seen:
                if len(seen) >= max_states:
                    return seen, False
                seen.add(nxt)
                queue.append(nxt)
    return seen, True


# ====================================================================== macro search

@dataclass
class Verdicts:
    """The outcome of one shared explicit search over macro steps, for many properties."""

    complete: bool                      # every reachable stable state was visited
    macro_states: int
    hits: dict[str, tuple[State, list[tuple[str, tuple[int, ...]]]]]   # prop id → witness


def explore_macro(system: System, props: Sequence[Property], *,
                  max_states: int = 200_000, max_seconds: float | None = None) -> Verdicts:
    """Breadth-first search over *macro* steps (an event and its whole resolution), for all
    `props` at once. A property is "hit" when a reachable state violates it (invariants) or
    satisfies it (reachability); the hit comes with the shortest event path to it, counted in
    events. Stable states that differ only in bookkeeping and inputs (which the next event
    resets or re-rolls before anything reads them) are visited once: that is what makes this
    search fast, and it is why it counts events, not micro steps. A property that is not hit
    holds (or is unreachable) exactly when `complete` is true."""
    interp = Interpreter(system)
    forget = [i for i, v in enumerate(system.vars)
              if v.kind in ("happened", "fired", "res", "input")]
    termination = [p for p in props if p.kind == "termination"]
    others = [p for p in props if p.kind != "termination"]
    hits: dict[str, tuple[State, list[tuple[str, tuple[int, ...]]]]] = {}

    def key(s: State) -> State:
        out = list(s)
        for i in forget:
            out[i] = 0
        return tuple(out)

    def look(states: Sequence[State], stable_last: bool, start: State,
             path: list[tuple[str, tuple[int, ...]]]) -> None:
        for p in others:
            if p.id in hits:
                continue
            want = p.mode == "reachable"
            candidates = states if p.at == "all" else (states[-1:] if stable_last else ())
            if any(interp.holds(p, s) == want for s in candidates):
                hits[p.id] = (start, path)

    parent: dict[State, tuple[State, State, list[tuple[str, tuple[int, ...]]]]] = {}
    queue: deque[tuple[State, State, list[tuple[str, tuple[int, ...]]]]] = deque()
    for s0 in interp.initial_states():
        # an initial state may be unstable: resolve it like an event would
        states, final, stuck = _resolve_from(interp, s0)
        look(states, not stuck, s0, [])
        for p in termination:
            if stuck and p.id not in hits:
                hits[p.id] = (s0, [])
        if not stuck and key(final) not in parent:
            parent[key(final)] = (final, s0, [])
            queue.append((final, s0, []))
    combos = list(itertools.product(*(range(v.lo, v.hi + 1) for v in interp.inputs)))
    complete = True
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    while queue:
        if len(hits) == len(props):
            break
        if deadline is not None and time.monotonic() > deadline:
            complete = False
            break
        s, start, path = queue.popleft()
        for combo in combos:
            rolled = list(s)
            for v, val in zip(interp.inputs, combo, strict=True):
                rolled[interp.index[v.name]] = val
            pre = tuple(rolled)
            for ev in system.events:
                if not interp._guard[ev.id](pre):
                    continue
                m = interp.macro_step(s, ev.id, combo)
                new_path = [*path, (ev.id, combo)]
                look(m.micro, not m.stuck, start, new_path)
                if m.stuck:
                    for p in termination:
                        hits.setdefault(p.id, (start, new_path))
                    continue
                k = key(m.micro[-1])
                if k not in parent:
                    if len(parent) >= max_states:
                        complete = False
                        queue.clear()
                        break
                    parent[k] = (m.micro[-1], start, new_path)
                    queue.append((m.micro[-1], start, new_path))
            if not complete:
                break
    return Verdicts(complete and not queue, len(parent), hits)


def _fired_between(interp: Interpreter, states: list[State]) -> list[str]:
    fired: list[str] = []
    for a in states[:-1]:
        rule = interp.first_enabled(a)
        if rule is not None:
            fired.append(rule.id)
    return fired


def _resolve_from(interp: Interpreter, s0: State) -> tuple[list[State], State, bool]:
    states = [s0]
    cur = s0
    while True:
        rule = interp.first_enabled(cur)
        if rule is None:
            return states, cur, False
        if cur[interp._res] >= interp.system.res_bound:
            return states, cur, True
        nxt = list(interp.run_effects(rule, cur))
        nxt[interp._res] = cur[interp._res] + 1
        cur = interp._monitor(cur, tuple(nxt))
        states.append(cur)
