"""The interpreter machine (docs/semantics.md): initial states, enabled rules, effects,
monitors, single steps (`Interpreter.successors`) and whole events with their resolution
(`Interpreter.macro_step`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from checker.errors import InternalError
from checker.interpret.evaluate import State, compile_expr
from checker.ir import Const, LExpr, Property, System, Transition


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

    def is_stuck(self, state: State) -> bool:
        """A resolution that hit `res_bound` without becoming stable (non-termination)."""
        return not self.is_stable(state) and state[self._res] >= self.system.res_bound

    def event_enabled(self, event: Transition, pre: State) -> bool:
        """Is `event`'s guard true in `pre` (a stable state with its inputs rolled)?"""
        return bool(self._guard[event.id](pre))

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


def fired_between(interp: Interpreter, states: list[State]) -> list[str]:
    fired: list[str] = []
    for a in states[:-1]:
        rule = interp.first_enabled(a)
        if rule is not None:
            fired.append(rule.id)
    return fired


def resolve_from(interp: Interpreter, s0: State) -> tuple[list[State], State, bool]:
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
