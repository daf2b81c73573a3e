"""The interpreter machine (docs/semantics.md): initial states, enabled rules and the rules
that may fire, effects, monitors, single steps (`Interpreter.successors`) and whole events
with every order of their resolution (`Interpreter.resolutions`, `macro_steps`), or with
the order a trace gives (`macro_step`, `run_choices`)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from checker.errors import InternalError
from checker.interpret.codegen import RuleTable
from checker.interpret.evaluate import State, compile_expr
from checker.interpret.resolve import Independence, Resolution, resolve
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
    """`reduce=True`: searches fire only a persistent subset of the rules that may fire
    (partial-order reduction, `ample`); `visible` names the variables whose every
    intermediate value a search must see (properties checked at every micro state)."""

    def __init__(self, system: System, *, reduce: bool = False,
                 visible: frozenset[str] = frozenset()) -> None:
        self.system = system
        self.reduce = reduce
        self._events = {e.id: e for e in system.events}
        self._rules = {r.id: r for r in system.rules}
        self._before = {r.id: [self._rules[p.first] for p in system.precedence
                               if p.then == r.id and p.first in self._rules]
                        for r in system.rules}
        self._memo: dict[State, Resolution] = {}
        self._por = Independence(system, visible) if reduce else None
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
        # per rule, the watched variables its effects write: only they can change
        watched = set(self._watched)
        self._writes = {r.id: sorted({i for i, _, _ in self._effects[r.id]} & watched)
                        for r in system.rules}
        self._monitors = [(self.index[n], compile_expr(w, self.index))
                          for n, w in system.monitors]
        # the same enabledness, all rules in one generated function (`codegen`); None when
        # an expression nests deeper than Python's compiler takes (about 200 parentheses):
        # then each rule's closures, as `is_enabled`
        self._table: RuleTable | None = None
        with contextlib.suppress(SyntaxError, RecursionError):
            self._table = RuleTable(system, self.index, self._bounds,
                                    frozenset(self._watched))
        position = {r.id: k for k, r in enumerate(system.rules)}
        self._before_at = [[position[b.id] for b in self._before[r.id]]
                           for r in system.rules]
        self._props: dict[int, tuple[LExpr, Callable[[Sequence[int]], int | bool]]] = {}

    # ------------------------------------------------------------------ basics
    def env(self, state: State) -> dict[str, int]:
        return dict(zip(self.names, state, strict=True))

    def initial_states(self) -> Iterator[State]:
        for combo in itertools.product(*(v.init for v in self.system.vars)):
            yield tuple(combo)

    def is_initial(self, state: State) -> bool:
        """`state` is one of `initial_states` (every value among its variable's `init`),
        without enumerating them (Bushido has 262,144)."""
        return len(state) == len(self.system.vars) and \
            all(x in v.init for v, x in zip(self.system.vars, state, strict=True))

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
        return any(after[i] != state[i] for i in self._writes[rule.id])

    def may_fire(self, rule: Transition, state: State) -> bool:
        """`checker.ir.may_fire`: enabled, and no rule the text orders before it enabled."""
        return self.is_enabled(rule, state) and \
            not any(self.is_enabled(b, state) for b in self._before[rule.id])

    def firable(self, state: State) -> list[Transition]:
        """Every rule that may fire in `state` (unordered resolution: any of them may be the
        next one), in spec order only so that searches are deterministic: `may_fire` of
        every rule, from one call of the generated table."""
        if self._table is None:
            on = [k for k, r in enumerate(self.system.rules) if self.is_enabled(r, state)]
        else:
            on = self._table.enabled(state)
        if not on:
            return []
        rules, before = self.system.rules, self._before_at
        lit = set(on)
        return [rules[k] for k in on if not any(b in lit for b in before[k])]

    def is_stable(self, state: State) -> bool:
        """No rule is enabled (`is_enabled` of every rule, from the generated table)."""
        if self._table is None:
            return not any(self.is_enabled(r, state) for r in self.system.rules)
        return not self._table.any_enabled(state)

    def is_stuck(self, state: State) -> bool:
        """A resolution that hit `res_bound` without becoming stable (non-termination)."""
        return not self.is_stable(state) and state[self._res] >= self.system.res_bound

    def is_end(self, state: State) -> bool:
        """A resolution ends here: stable, or stuck."""
        return self.is_stable(state) or state[self._res] >= self.system.res_bound

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
    def fire(self, rule: Transition, state: State) -> State:
        """One micro step: `rule` (which may fire) runs, the resolution counter goes up."""
        nxt = list(self.run_effects(rule, state))
        nxt[self._res] = state[self._res] + 1
        return self._monitor(state, tuple(nxt))

    def ample(self, state: State) -> list[Transition]:
        """The rules a search fires in `state`: every rule that may fire, or with partial-order
        reduction (`reduce`) a persistent subset of them (`checker.interpret.resolve`)."""
        rules = self.firable(state)
        if self.reduce and len(rules) > 1:
            assert self._por is not None
            return self._por.ample(rules)
        return rules

    def successors(self, state: State) -> Iterator[tuple[str, tuple[int, ...], State]]:
        """Every single-transition successor: (label, inputs, next state). The label is an
        event id for an event step and a rule id for a micro step (one per rule that may
        fire: the choice of the next rule is free)."""
        if not self.is_stable(state):
            if state[self._res] >= self.system.res_bound:
                return  # stuck: the non-termination finding; no successor
            for rule in self.ample(state):
                yield rule.id, (), self.fire(rule, state)
            return
        for combo in itertools.product(*(range(v.lo, v.hi + 1) for v in self.inputs)):
            rolled = list(state)
            for v, val in zip(self.inputs, combo, strict=True):
                rolled[self.index[v.name]] = val
            pre = tuple(rolled)
            for ev in self.system.events:
                if self._guard[ev.id](pre):
                    yield ev.id, combo, self._monitor(state, self.run_effects(ev, pre))

    def after_event(self, state: State, event_id: str, inputs: tuple[int, ...]
                    ) -> tuple[Transition, State]:
        """Run event `event_id` with `inputs` from stable `state`: the state before any rule
        of its resolution fires."""
        if not self.is_stable(state):
            raise InternalError(f"event {event_id!r} chosen in an unstable state")
        ev = self._events.get(event_id)
        if ev is None:
            raise InternalError(f"no event {event_id!r}")
        rolled = list(state)
        for v, val in zip(self.inputs, inputs, strict=True):
            rolled[self.index[v.name]] = val
        pre = tuple(rolled)
        if not self._guard[ev.id](pre):
            raise InternalError(f"event {event_id!r} is not enabled here")
        return ev, self._monitor(state, self.run_effects(ev, pre))

    def run_choices(self, s0: State, fired: Sequence[str], *, complete: bool = False
                    ) -> tuple[tuple[State, ...], bool]:
        """Resolve from `s0` firing exactly `fired`, in that order: each must be a rule that
        may fire at that point, and the resolution must end (stable, or stuck at
        `res_bound`) exactly after the last — or, with `complete`, it is finished by its
        first order (fewest micro steps, `resolutions`) when it has not. The states, and
        whether it is stuck; a choice that is not a step of the system raises
        `InternalError`."""
        cur, micro = s0, [s0]
        for rule_id in fired:
            rule = self._rules.get(rule_id)
            if rule is None:
                raise InternalError(f"no rule {rule_id!r}")
            if cur[self._res] >= self.system.res_bound or not self.may_fire(rule, cur):
                raise InternalError(f"rule {rule_id!r} may not fire here")
            cur = self.fire(rule, cur)
            micro.append(cur)
        if not self.is_end(cur):
            if not complete:
                raise InternalError(f"the resolution after {list(fired)} has not ended")
            rest = self.resolutions(cur)
            more, _ = rest.path((*rest.finals, *rest.stuck)[0])
            micro.extend(more[1:])
            cur = micro[-1]
        return tuple(micro), not self.is_stable(cur)

    def macro_step(self, state: State, event_id: str, inputs: tuple[int, ...],
                   fired: Sequence[str], *, complete: bool = False) -> MacroStep:
        """Event `event_id` with `inputs` from stable `state`, then the rules `fired` (the
        choices of one order, checked by `run_choices`)."""
        ev, s0 = self.after_event(state, event_id, inputs)
        micro, stuck = self.run_choices(s0, fired, complete=complete)
        return MacroStep(ev, inputs, micro, self.fired_along(micro), stuck)

    def fired_along(self, micro: Sequence[State]) -> tuple[str, ...]:
        """The rules fired between consecutive micro states (the one rule that may fire and
        gives the next state; the first in spec order if several give it)."""
        out = []
        for a, b in itertools.pairwise(micro):
            rule = next((r for r in self.firable(a) if self.fire(r, a) == b), None)
            if rule is None:
                raise InternalError("no rule gives the next micro state")
            out.append(rule.id)
        return tuple(out)

    def resolutions(self, s0: State) -> Resolution:
        """Every order of the resolution from `s0` (memoised): each micro state reached,
        each distinct end (`checker.interpret.resolve.Resolution`)."""
        hit = self._memo.get(s0)
        if hit is None:
            if len(self._memo) >= MEMO:
                self._memo.clear()
            hit = self._memo[s0] = resolve(self, s0)
        return hit

    def macro_steps(self, state: State, event_id: str, inputs: tuple[int, ...]
                    ) -> list[MacroStep]:
        """Every outcome of event `event_id` with `inputs` from stable `state`: one macro step
        per distinct end of its resolution (stable states first, then stuck ones), each
        with one order that reaches it."""
        ev, s0 = self.after_event(state, event_id, inputs)
        res = self.resolutions(s0)
        out = []
        for end in (*res.finals, *res.stuck):
            micro, fired = res.path(end)
            out.append(MacroStep(ev, inputs, micro, fired, end in res.stuck_set))
        return out

    # ------------------------------------------------------------------ properties
    def holds(self, prop: Property, state: State) -> bool:
        hit = self._props.get(id(prop.expr))
        if hit is None or hit[0] is not prop.expr:
            hit = self._props[id(prop.expr)] = (prop.expr, compile_expr(prop.expr, self.index))
        return bool(hit[1](state))

    def checked_here(self, prop: Property, state: State) -> bool:
        """Whether `prop` is evaluated in `state` (stable-only properties skip the rest)."""
        return prop.at == "all" or self.is_stable(state)


MEMO = 4096          # resolutions an interpreter keeps (memoised by their first state)
SHARED = 8           # plain interpreters `shared` keeps (one per system a run replays on)
_SHARED: dict[int, tuple[System, Interpreter]] = {}


def shared(system: System) -> Interpreter:
    """One plain `Interpreter(system)` per system in this process, for the replays and the
    explicit searches of a run: compiling a system's expressions and rule table costs more
    than replaying a trace (44 ms on Bushido), and one search's memoised resolutions serve
    the next. The system is kept so that its id stays its own."""
    hit = _SHARED.get(id(system))
    if hit is None or hit[0] is not system:
        hit = _SHARED[id(system)] = (system, Interpreter(system))
        while len(_SHARED) > SHARED:
            del _SHARED[next(iter(_SHARED))]
    return hit[1]
