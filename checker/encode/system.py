"""`encode(system, ctx)`: a `System` → a symbolic transition system `Encoding(init, trans)`.

Every variable is a bounded Z3 `Int`. The one-step relation `trans` is built ONCE over the
template steps 0 (current) and 1 (next) plus the selector `_sel@0`, exactly as
docs/semantics.md defines a step, and copied to step k by `z3.substitute` (`trans_at`).

With E events, the selector picks the kind of step:

    _sel = i < E   event step: only from a stable state; inputs' are free (their domain);
                   event i's guard holds in the rolled state (inputs := inputs'); every other
                   variable takes event i's sequential effects (model.post_state) evaluated
                   in the rolled state; monitors: seen' = seen ∨ watched(current)
    _sel = E + j   micro step of rule j (0 ≤ j < R): only from an unstable state with
                   _res < res_bound, and only where rule j MAY FIRE (`checker.ir.may_fire`:
                   enabled, and no rule an ordering rule puts before it enabled) — the
                   micro step is the disjunction over rules of may_fire ∧ its effects, no
                   spec order; _res' = _res + 1; inputs' = inputs; monitors as above
    _sel = E + R   idle step: next = current (a stutter)

The idle step is allowed everywhere. It adds no reachable state, so invariants and
reachability are unchanged, and it makes BMC monotone in k (a target reachable within k
steps is reachable in exactly k) and gives deadlocks (stable, no event enabled) and stuck
states (unstable, _res ≥ res_bound) a successor, so unrollings of every length exist. In
a cone-sliced system (`idle_monitors=True`) the idle step also updates the monitors: it
stands for a step of the sliced-away part, during which the monitors still run.

The events and rules encoded are the ones the ruleset's state machine carries
(`checker.graph.machine(system).graph`, read by `checker.graph.clauses`): each with the
assignments of its edges, so the relation is built by walking the graph's edges, and a
graph with an edge removed (`encode(..., graph=g)`) encodes the system without that
assignment. The system's own graph gives back exactly the system's transitions.

The relation is written as SMT-LIB text once per system (`transition_text`, cached) and
parsed into each check's fresh context (see `checker.encode.terms`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import z3  # noqa: TID251 - encode/ is one of the two packages allowed to import z3

from checker.encode.symbols import SELECTOR, at_step
from checker.encode.terms import SmtText, literal, parse
from checker.graph import clauses, machine
from checker.ir import LExpr, Property, System, V, Var, enabled, may_fire, post_state

CUR, NXT, SEL = "s", "n", "sel"     # the neutral symbols of the text (see terms.py)


@dataclass
class Encoding:
    """A symbolic transition system over template steps 0 and 1 (see module docstring)."""

    system: System
    ctx: Any
    cur: dict[str, Any]
    nxt: dict[str, Any]
    sel: Any
    init: Any                      # over cur, includes the domain
    domain: Any                    # over cur
    stable: Any                    # over cur
    trans: Any                     # over cur, nxt, sel
    n_events: int
    n_rules: int = 0
    _plain: dict[str, Any] = field(default_factory=dict, repr=False)
    _steps: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)
    _pairs: dict[int, list[tuple[Any, Any]]] = field(default_factory=dict, repr=False)

    @property
    def micro(self) -> int:
        """The selector value of the first rule's micro step (rule j: `micro + j`)."""
        return self.n_events

    @property
    def idle(self) -> int:
        return self.n_events + self.n_rules

    def is_micro(self, sel: Any) -> Any:
        """The selector `sel` picks a micro step (of some rule)."""
        return z3.And(sel >= self.n_events, sel < self.n_events + self.n_rules)

    def state_at(self, k: int) -> dict[str, Any]:
        if k == 0:
            return self.cur
        if k == 1:
            return self.nxt
        if k not in self._steps:
            self._steps[k] = {n: z3.Int(at_step(n, k), self.ctx) for n in self.cur}
        return self._steps[k]

    def sel_at(self, k: int) -> Any:
        return z3.Int(at_step(SELECTOR, k), self.ctx)

    def at(self, formula: Any, k: int) -> Any:
        """State formula `formula` (over step 0) moved to step `k`."""
        if k == 0:
            return formula
        if k not in self._pairs:
            self._pairs[k] = [(self.cur[n], v) for n, v in self.state_at(k).items()]
        return z3.substitute(formula, *self._pairs[k])

    def trans_at(self, k: int) -> Any:
        """T(k, k+1): the template relation with steps 0, 1 renamed to k, k+1."""
        if k == 0:
            return self.trans
        pairs = [(self.cur[n], v) for n, v in self.state_at(k).items()]
        pairs += [(self.nxt[n], v) for n, v in self.state_at(k + 1).items()]
        pairs.append((self.sel, self.sel_at(k)))
        return z3.substitute(self.trans, *pairs)

    def lexprs(self, exprs: list[LExpr], k: int = 0) -> list[Any]:
        """Boolean `exprs` over the variables of step `k`, parsed in one go."""
        text = SmtText(_symbols(self.system, CUR), "q")
        terms = [text(e) for e in exprs]
        step = self.state_at(k)
        decls = {f"{CUR}{i}": step[v.name] for i, v in enumerate(self.system.vars)}
        return parse(self.ctx, text.defs, terms, decls)

    def lexpr(self, e: LExpr) -> Any:
        return self.lexprs([e])[0]

    def target(self, prop: Property) -> Any:
        """The states `prop` is about, over step 0: for an invariant its violations
        (`stable ∧ ¬expr`, or `¬expr` when `at == "all"`), for a reachability property its
        witnesses (`stable ∧ expr`, or `expr`)."""
        body = self.lexpr(prop.expr)
        if prop.mode == "invariant":
            body = z3.Not(body)
        return body if prop.at == "all" else z3.And(self.stable, body)

    def plain(self, formula: Any) -> Any:
        """`formula` over step 0 with the un-indexed names (for certificates)."""
        if not self._plain:
            self._plain = {n: z3.Int(n, self.ctx) for n in self.cur}
        return z3.substitute(formula, *[(self.cur[n], self._plain[n]) for n in self.cur])

    def value(self, model: Any, name: str, k: int) -> int:
        return int(model.eval(z3.Int(at_step(name, k), self.ctx),
                              model_completion=True).as_long())


def _symbols(system: System, prefix: str) -> dict[str, str]:
    return {v.name: f"{prefix}{i}" for i, v in enumerate(system.vars)}


def _in(x: str, v: Var, values: tuple[int, ...]) -> str:
    if values == tuple(range(v.lo, v.hi + 1)):
        return f"(and (>= {x} {literal(v.lo)}) (<= {x} {literal(v.hi)}))"
    return f"(or {' '.join(f'(= {x} {literal(c)})' for c in values)})"


def _and(parts: list[str]) -> str:
    return "true" if not parts else parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"


def _or(parts: list[str]) -> str:
    return "false" if not parts else parts[0] if len(parts) == 1 else f"(or {' '.join(parts)})"


def _groups(posts: list[dict[str, LExpr]], var: str) -> list[tuple[LExpr, list[int]]]:
    """The transitions that assign `var`, grouped by the value they assign (most events
    reset the same bookkeeping variables to the same constant: one `ite` instead of one
    per event). Deterministic: groups in order of first occurrence."""
    groups: dict[LExpr, list[int]] = {}
    for i, post in enumerate(posts):
        if var in post and post[var] != V(var):
            groups.setdefault(post[var], []).append(i)
    return list(groups.items())


def _selected(events: list[int], n_events: int) -> str:
    """The selector is one of `events` (an interval test when they are consecutive)."""
    lo, hi = events[0], events[-1]
    if hi - lo + 1 == len(events):
        if lo == 0 and hi == n_events - 1:
            return f"(< {SEL} {n_events})"
        return f"(= {SEL} {lo})" if lo == hi else f"(and (>= {SEL} {lo}) (<= {SEL} {hi}))"
    return _or([f"(= {SEL} {i})" for i in events])


@dataclass(frozen=True)
class TransitionText:
    """The transition system as SMT-LIB text (terms over the neutral symbols)."""

    defs: tuple[str, ...]
    init: str
    domain: str
    stable: str
    trans: str


_CACHE: dict[tuple[int, int, int, int, int, int, bool], tuple[System, TransitionText]] = {}
_CACHE_SIZE = 32


def transition_text(system: System, *, idle_monitors: bool = False,
                    graph: nx.MultiDiGraph[str] | None = None) -> TransitionText:
    """The relation of the module docstring as text, memoized per transition system (its
    variables, events, rules and monitors, whatever its properties: the slices of
    properties with one cone share it, `checker.graph.analyze._slice`); over the edges of
    `graph` (a state machine of `system`, e.g. one with edges removed: not memoized) when
    given, else of the system's own `machine(system).graph`."""
    if graph is not None:
        return _build_text(system, idle_monitors, graph)
    key = (id(system.vars), id(system.events), id(system.rules), id(system.monitors),
           id(system.precedence), system.res_bound, idle_monitors)
    hit = _CACHE.get(key)
    if hit is not None and all(a is b for a, b in (
            (hit[0].vars, system.vars), (hit[0].events, system.events),
            (hit[0].rules, system.rules), (hit[0].monitors, system.monitors),
            (hit[0].precedence, system.precedence))):
        return hit[1]
    text = _build_text(system, idle_monitors, machine(system).graph)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (system, text)
    return text


def _build_text(system: System, idle_monitors: bool,
                graph: nx.MultiDiGraph[str]) -> TransitionText:
    events, rules = clauses(graph)        # the transitions, off the graph's edges
    assert len(events) == len(system.events), "the graph is not one of this system"
    cur, nxt = _symbols(system, CUR), _symbols(system, NXT)
    inputs = [v.name for v in system.vars if v.kind == "input"]
    now = SmtText(cur, "a")
    then = SmtText({**cur, **{n: nxt[n] for n in inputs}}, "b")   # inputs rolled afresh
    full = [_in(cur[v.name], v, tuple(range(v.lo, v.hi + 1))) for v in system.vars]
    init = _and([_in(cur[v.name], v, v.init) for v in system.vars])
    n_ev = len(events)
    micro, idle = n_ev, n_ev + len(rules)
    en = [now(enabled(system, r)) for r in rules]
    stable = now.define(f"(not {_or(en)})", True)
    fire = [now(may_fire(system, r)) if system.precedence else en[i]
            for i, r in enumerate(rules)]     # rule i may fire (several may at once)
    ev_post = [post_state(ev.effects) for ev in events]
    rule_post = [post_state(r.effects) for r in rules]
    res = system.res_var if system.res_var in cur else None
    monitors = {name: now(w) for name, w in system.monitors if name in cur}

    parts = [f"(>= {SEL} 0)", f"(<= {SEL} {idle})"]
    parts += [_in(nxt[v.name], v, tuple(range(v.lo, v.hi + 1))) for v in system.vars]
    if n_ev:
        parts.append(f"(=> (< {SEL} {n_ev}) {stable})")
    parts += [f"(=> (= {SEL} {i}) {then(ev.guard)})" for i, ev in enumerate(events)]
    below = "true" if res is None else f"(< {cur[res]} {system.res_bound})"
    parts += [f"(=> (= {SEL} {micro + j}) (and {fire[j]} {below}))" for j in range(len(rules))]
    parts += [f"(=> (>= {SEL} {micro}) (= {nxt[n]} {cur[n]}))" for n in inputs]
    for v in system.vars:
        n = v.name
        if v.kind == "input":
            continue
        if n in monitors:
            seen = f"(ite (or (distinct {cur[n]} 0) {monitors[n]}) 1 0)"
            value = seen if idle_monitors else f"(ite (= {SEL} {idle}) {cur[n]} {seen})"
        else:
            value = _step_value(n, cur[n], res, now, then, len(rules), rule_post, ev_post)
        parts.append(f"(= {nxt[n]} {value})")
    defs = (*now.defs, *then.defs)
    return TransitionText(defs, init, _and(full), stable, _and(parts))


def _step_value(n: str, x: str, res: str | None, now: SmtText, then: SmtText,
                n_rules: int, rule_post: list[dict[str, LExpr]],
                ev_post: list[dict[str, LExpr]]) -> str:
    """The next value of variable `n` (symbol `x`): one ite-chain over the event groups,
    then over the rule groups (the selector names the rule fired), else unchanged."""
    micro = len(ev_post)
    if n == res:
        value = (f"(ite (and (>= {SEL} {micro}) (< {SEL} {micro + n_rules})) (+ {x} 1) {x})"
                 if n_rules else x)
    else:
        value = x
        for expr, rules in _groups(rule_post, n):
            picked = _or([f"(= {SEL} {micro + i})" for i in rules])
            value = f"(ite {picked} {now(expr)} {value})"
    for expr, events in _groups(ev_post, n):
        value = f"(ite {_selected(events, micro)} {then(expr)} {value})"
    return value


def encode(system: System, ctx: Any, *, idle_monitors: bool = False,
           graph: nx.MultiDiGraph[str] | None = None) -> Encoding:
    """Build `Encoding` for `system` in `ctx` (module docstring: the relation), over the
    edges of `graph` when given (see `transition_text`)."""
    text = transition_text(system, idle_monitors=idle_monitors, graph=graph)
    cur = {v.name: z3.Int(at_step(v.name, 0), ctx) for v in system.vars}
    nxt = {v.name: z3.Int(at_step(v.name, 1), ctx) for v in system.vars}
    sel = z3.Int(at_step(SELECTOR, 0), ctx)
    decls: dict[str, Any] = {SEL: sel}
    for i, v in enumerate(system.vars):
        decls[f"{CUR}{i}"] = cur[v.name]
        decls[f"{NXT}{i}"] = nxt[v.name]
    init, domain, stable, trans = parse(ctx, list(text.defs),
                                        [text.init, text.domain, text.stable, text.trans],
                                        decls)
    return Encoding(system, ctx, cur, nxt, sel, z3.And(init, domain), domain, stable, trans,
                    len(system.events), len(system.rules))
