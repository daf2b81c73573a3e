"""Candidate lemmas for Houdini, mined from concrete states the interpreter reaches.

`sample_states` explores the FULL system breadth-first up to a limit and, when that is not
exhaustive, adds seeded random walks (deterministic). `candidates` proposes facts over the
variables of a (sliced) system that every sampled state satisfies — so the list is already
"filtered to the subset true on simulated states":

  - bounds            v >= lo, v <= hi            (tighter than the domain; v == c when lo == hi)
  - conditional bounds x == c → y >= lo, x == c → y <= hi, for variables x, y that one
                      transition mentions together (covers ¬(A ∧ B) for States, A → B,
                      flag → int == c, `_fired → _happened`)
  - stable bounds     stable → v >= lo, stable → v <= hi   (bookkeeping such as `_res`)

The candidates are only hints: Houdini (`checker.engines.induction`) keeps the subset that
holds initially and is inductive, so an unlucky sample costs completeness, never soundness.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from checker.interpret import Interpreter, State, compile_expr, reachable_states
from checker.ir import Const, LExpr, Op, System, V, lvars, stable

MAX_VALUES = 6          # a variable with more observed values is not used as a premise
MAX_CANDIDATES = 4000


def sample_states(system: System, *, limit: int, seed: int, walks: int = 40,
                  walk_length: int = 60) -> tuple[list[State], bool]:
    """Reachable states of `system`: all of them when BFS finishes within `limit` (the
    flag says so), else the BFS prefix plus random walks. Sorted: deterministic."""
    states, complete = reachable_states(system, max_states=limit)
    if not complete:
        interp = Interpreter(system)
        rng = random.Random(seed)
        inits = sorted(interp.initial_states())
        for _ in range(walks):
            s = rng.choice(inits)
            states.add(s)
            for _ in range(walk_length):
                succ = sorted(n for _, _, n in interp.successors(s))
                if not succ:
                    break
                s = rng.choice(succ)
                states.add(s)
    return sorted(states), complete


class Samples:
    """`sample_states` of one system, computed on first use and shared by every property
    of a `check_all` run (most properties never need them: 1-induction or BMC decide)."""

    def __init__(self, system: System, *, limit: int, seed: int) -> None:
        self.system = system
        self.limit = limit
        self.seed = seed
        self._states: list[State] | None = None

    def get(self) -> list[State]:
        if self._states is None:
            self._states, _ = sample_states(self.system, limit=self.limit, seed=self.seed)
        return self._states


def _ge(name: str, c: int) -> LExpr:
    return Op("ge", (V(name), Const(c)))


def _le(name: str, c: int) -> LExpr:
    return Op("le", (V(name), Const(c)))


def _implies(p: LExpr, q: LExpr) -> LExpr:
    return Op("implies", (p, q))


def candidates(sliced: System, full: System, states: Iterable[State]) -> list[LExpr]:
    """Candidate lemmas over `sliced`'s variables, true in every state of `states` (states
    of `full`, in `full.vars` order)."""
    index = {v.name: i for i, v in enumerate(full.vars)}
    names = [v.name for v in sliced.vars if v.name in index]
    rows = sorted({tuple(s[index[n]] for n in names) for s in states})
    if not rows:
        return []
    out: list[LExpr] = []
    cols = list(zip(*rows, strict=True))
    observed = [sorted(set(c)) for c in cols]
    for i, n in enumerate(names):
        var = sliced.var(n)
        lo, hi = observed[i][0], observed[i][-1]
        if lo > var.lo:
            out.append(_ge(n, lo))
        if hi < var.hi:
            out.append(_le(n, hi))
    related = _related(sliced)
    position = {n: i for i, n in enumerate(names)}
    for i, x in enumerate(names):
        if not 2 <= len(observed[i]) <= MAX_VALUES:
            continue
        for y in sorted(related.get(x, set()) - {x}, key=position.__getitem__):
            j = position[y]
            if len(observed[j]) < 2:
                continue
            by_value: dict[int, list[int]] = {}
            for a, b in set(zip(cols[i], cols[j], strict=True)):
                by_value.setdefault(a, []).append(b)
            ylo, yhi = observed[j][0], observed[j][-1]
            for c in observed[i]:
                premise = Op("eq", (V(x), Const(c)))
                lo, hi = min(by_value[c]), max(by_value[c])
                if lo > ylo:
                    out.append(_implies(premise, _ge(y, lo)))
                if hi < yhi:
                    out.append(_implies(premise, _le(y, hi)))
            if len(out) >= MAX_CANDIDATES:
                return out
    out += _stable_bounds(sliced, names, rows, observed)
    return out[:MAX_CANDIDATES]


def _related(system: System) -> dict[str, set[str]]:
    """x ~ y when one transition (or the property) mentions both: the pairs a conditional
    bound is tried for (the graph's edges; unrelated variables rarely need a lemma, and all
    pairs are quadratic in a 150-variable ruleset)."""
    groups = [lvars(p.expr) for p in system.properties]
    for t in (*system.events, *system.rules):
        mentioned = set(lvars(t.guard))
        for a in t.effects:
            mentioned |= {a.var} | lvars(a.value)
        groups.append(frozenset(mentioned))
    groups += [frozenset({seen, *lvars(w)}) for seen, w in system.monitors]
    out: dict[str, set[str]] = {}
    for g in groups:
        for x in g:
            out.setdefault(x, set()).update(g)
    return out


def _stable_bounds(sliced: System, names: list[str], rows: list[tuple[int, ...]],
                   observed: list[list[int]]) -> list[LExpr]:
    is_stable = stable(sliced)
    if not sliced.rules:
        return []
    test = compile_expr(is_stable, {n: i for i, n in enumerate(names)})
    at_rest = [r for r in rows if test(r)]
    out: list[LExpr] = []
    if not at_rest:
        return out
    for i, n in enumerate(names):
        values = [r[i] for r in at_rest]
        lo, hi = min(values), max(values)
        if lo > observed[i][0]:
            out.append(_implies(is_stable, _ge(n, lo)))
        if hi < observed[i][-1]:
            out.append(_implies(is_stable, _le(n, hi)))
    return out
