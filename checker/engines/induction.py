"""Unbounded proofs by induction on the cone-sliced system.

- `one_induction`: plain 1-induction (Sheeran, Singh, Stålmarck, FMCAD 2000), base case
  and consecution (`formulas.base_case`, `formulas.induction_step`).
- `houdini`: candidate lemmas mined from simulated states (`checker.engines.lemmas`),
  reduced to the largest subset that holds initially and is inductive together with the
  property (Flanagan, Leino, FME 2001: drop every candidate a counterexample to induction
  falsifies, repeat), then induction on property ∧ lemmas.

Both prove "no target state is reachable"; the certificate is the inductive invariant.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Answer, Encoding, check, make_solver, stop_reason
from checker.encode import formulas as f
from checker.engines.base import Budget, Outcome, to_result, unknown, unreachable
from checker.engines.lemmas import Samples, candidates
from checker.engines.session import Session, session_for
from checker.interpret import compile_expr
from checker.ir import LExpr, Property, System
from checker.options import Options
from checker.results import Method, PropertyResult, StopReason

SAMPLE_LIMIT = 2000
_SAMPLES: dict[tuple[int, int, int], tuple[weakref.ref[System], Samples]] = {}


def sample_cache(system: System, options: Options) -> Samples:
    """The states Houdini mines lemmas from (BFS up to SAMPLE_LIMIT, then random walks),
    computed once per system object and shared by every property and decision-point query
    of a run (on a large ruleset the sampling costs seconds)."""
    limit = min(options.explicit_limit, SAMPLE_LIMIT)
    key = (id(system), limit, options.seed)
    known = _SAMPLES.get(key)
    if known is not None and known[0]() is system:
        return known[1]
    for k in [k for k, (ref, _) in _SAMPLES.items() if ref() is None]:
        del _SAMPLES[k]                          # systems gone: their samples too
    samples = Samples(system, limit=limit, seed=options.seed)
    _SAMPLES[key] = (weakref.ref(system), samples)
    return samples


def one_induction(system: System, prop: Property, options: Options,
                  session: Session | None = None) -> Outcome:
    budget = Budget(options.timeout_ms)
    enc = session_for(system, prop, session).sliced()
    ctx = enc.ctx
    safe = z3.Not(enc.target(prop))
    solver = make_solver(ctx, options)
    for what, formula in (("base case", f.base_case(enc, safe)),
                          ("induction step", f.induction_step(enc, safe))):
        solver.push()
        solver.add(formula)
        answer, why = check(solver, timeout_ms=budget.remaining_ms())
        solver.pop()
        if answer is Answer.UNKNOWN:
            return unknown(Method.K_INDUCTION, stop_reason(why), f"1-induction {what}: {why}")
        if answer is Answer.SAT:
            return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                           f"1-induction: the {what} fails")
    return unreachable(Method.K_INDUCTION, enc.plain(safe).sexpr())


def houdini(system: System, prop: Property, options: Options,
            samples: Samples | None = None, session: Session | None = None) -> Outcome:
    return Houdini(system, prop, options, samples, session).run()


class Houdini:
    """Houdini that can be stopped after a number of counterexamples to induction (a
    deterministic cap, so a cheap first attempt costs the same on every machine) and
    resumed later where it stopped: `check.decide` tries a few rounds early and the rest
    only when Spacer has not settled the property."""

    def __init__(self, system: System, prop: Property, options: Options,
                 samples: Samples | None = None, session: Session | None = None) -> None:
        self.system, self.prop, self.options = system, prop, options
        self.samples, self.session = samples, session
        self._solver: Any = None
        self._alive: list[int] = []

    def run(self, max_rounds: int | None = None) -> Outcome:
        budget = Budget(self.options.timeout_ms)
        enc = session_for(self.system, self.prop, self.session).sliced()
        if self._solver is None:
            started = self._start(enc, budget)
            if started is not None:
                return started
        alive = _filter(self._solver, enc, self._checked, self._alive, budget, max_rounds,
                        self._literals, self._holds)
        if isinstance(alive, Outcome):
            return alive
        self._alive = alive
        if 0 not in alive:
            return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                           f"Houdini: no inductive strengthening among {self._mined} "
                           f"candidate lemmas from {self._sampled} simulated states")
        kept = [self._pool[i] for i in alive]
        return unreachable(Method.K_INDUCTION, enc.plain(z3.And(*kept, enc.ctx)).sexpr(),
                           f"1-induction strengthened with {len(kept) - 1} Houdini lemmas")

    def _start(self, enc: Encoding, budget: Budget) -> Outcome | None:
        """Mine the candidates, keep those that hold initially, set up consecution."""
        ctx = enc.ctx
        states = (self.samples or sample_cache(self.system, self.options)).get()
        safe = z3.Not(enc.target(self.prop))
        mined = candidates(enc.system, self.system, states)
        self._mined, self._sampled = len(mined), len(states)
        pool = [safe, *enc.lexprs(mined)]
        solver = make_solver(ctx, self.options)
        solver.add(enc.init)
        alive = _filter(solver, enc, pool, list(range(len(pool))), budget, None, {},
                        _holds_at(enc, safe, mined, 0))
        if isinstance(alive, Outcome):
            return alive
        if 0 not in alive:
            return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                           "Houdini: the property fails in an initial state of the slice")
        # consecution: D(0) ∧ T(0,1), each alive candidate assumed at step 0 through an
        # indicator literal, checked at step 1
        self._pool = pool
        self._checked = [enc.at(safe, 1), *enc.lexprs(mined, 1)]
        self._solver = make_solver(ctx, self.options)
        self._solver.add(enc.domain, enc.trans)
        self._literals = {}
        for i in alive:
            self._literals[i] = z3.Bool(f"_cand{i}", ctx)
            self._solver.add(z3.Implies(self._literals[i], pool[i]))
        self._holds = _holds_at(enc, self._checked[0], mined, 1)
        self._alive = alive
        return None


Holds = Callable[[Any, list[int]], list[bool]]


def _filter(solver: Any, enc: Encoding, checked: list[Any], alive: list[int],
            budget: Budget, max_rounds: int | None, literals: dict[int, Any],
            holds: Holds) -> list[int] | Outcome:
    """Drop candidates until none fails: each query asks `solver` (under the `literals`
    of the alive candidates) for a state falsifying some alive `checked[i]`; every
    candidate the model falsifies (`holds`) is dropped. Initiation: `solver` holds I(0)
    and `checked` is the pool itself. Consecution: `solver` holds D(0) ∧ T(0,1) and
    `checked` is the pool at step 1 (formulas.houdini_step). At most `max_rounds`
    queries."""
    negated = {i: z3.Not(checked[i]) for i in alive}
    rounds = 0
    while alive:
        if max_rounds is not None and rounds >= max_rounds:
            return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                           f"Houdini: stopped after {rounds} counterexamples to induction "
                           f"({len(alive)} candidate lemmas left)")
        rounds += 1
        solver.push()
        solver.add(_or([negated[i] for i in alive], enc.ctx))
        answer, why = check(solver, *[literals[i] for i in alive if i in literals],
                            timeout_ms=budget.remaining_ms())
        model = solver.model() if answer is Answer.SAT else None
        solver.pop()
        if answer is Answer.UNSAT:
            break
        if model is None:
            return unknown(Method.K_INDUCTION, stop_reason(why), f"Houdini: {why}")
        alive = [i for i, ok in zip(alive, holds(model, alive), strict=True) if ok]
    return alive


def _or(terms: list[Any], ctx: Any) -> Any:
    """`z3.Or(*terms)` without its per-argument coercion (thousands of candidates, every
    round)."""
    if len(terms) == 1:
        return terms[0]
    array = (z3.Ast * len(terms))(*[t.as_ast() for t in terms])
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(terms), array), ctx)


def _holds_at(enc: Encoding, safe: Any, mined: list[LExpr], k: int) -> Holds:
    """Candidate truth at step `k` of a model: the sliced state is read once (one
    `model.eval` per variable) and each mined lemma is a compiled closure over it; only
    the property itself (pool index 0) goes through z3."""
    names = tuple(v.name for v in enc.system.vars)
    index = {n: i for i, n in enumerate(names)}
    tests = [compile_expr(m, index) for m in mined]

    def holds(model: Any, indices: list[int]) -> list[bool]:
        state = tuple(enc.value(model, n, k) for n in names)
        return [z3.is_true(model.eval(safe, model_completion=True)) if i == 0
                else bool(tests[i - 1](state)) for i in indices]

    return holds


def run_one_induction(system: System, prop: Property, options: Options) -> PropertyResult:
    return to_result(prop, one_induction(system, prop, options))


def run_houdini(system: System, prop: Property, options: Options) -> PropertyResult:
    return to_result(prop, houdini(system, prop, options))
