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

from typing import Any

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Answer, Encoding, check, make_solver, stop_reason
from checker.encode import formulas as f
from checker.engines.base import Budget, Outcome, to_result, unknown, unreachable
from checker.engines.lemmas import Samples, candidates
from checker.engines.session import Session, session_for
from checker.model import Property, System
from checker.options import Options
from checker.results import Method, PropertyResult, StopReason

SAMPLE_LIMIT = 2000


def sample_cache(system: System, options: Options) -> Samples:
    """The states Houdini mines lemmas from (BFS up to SAMPLE_LIMIT, then random walks)."""
    return Samples(system, limit=min(options.explicit_limit, SAMPLE_LIMIT), seed=options.seed)


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
    budget = Budget(options.timeout_ms)
    enc = session_for(system, prop, session).sliced()
    ctx = enc.ctx
    states = (samples or sample_cache(system, options)).get()
    safe = z3.Not(enc.target(prop))
    mined = candidates(enc.system, system, states)
    lemmas = enc.lexprs(mined)
    pool = [safe, *lemmas]
    pool_next = [enc.at(safe, 1), *enc.lexprs(mined, 1)]     # the same at step 1
    # keep the candidates that hold in every initial state
    solver = make_solver(ctx, options)
    solver.add(enc.init)
    alive = _filter(solver, enc, pool, pool, list(range(len(pool))), budget)
    if isinstance(alive, Outcome):
        return alive
    if 0 not in alive:
        return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                       "Houdini: the property fails in an initial state of the slice")
    solver = make_solver(ctx, options)
    solver.add(enc.domain, enc.trans)
    alive = _filter(solver, enc, pool, pool_next, alive, budget)
    if isinstance(alive, Outcome):
        return alive
    if 0 not in alive:
        return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                       f"Houdini: no inductive strengthening among {len(lemmas)} candidate "
                       f"lemmas from {len(states)} simulated states")
    kept = [pool[i] for i in alive]
    return unreachable(Method.K_INDUCTION, enc.plain(z3.And(*kept, enc.ctx)).sexpr(),
                       f"1-induction strengthened with {len(kept) - 1} Houdini lemmas")


def _filter(solver: Any, enc: Encoding, pool: list[Any], checked: list[Any],
            alive: list[int], budget: Budget) -> list[int] | Outcome:
    """Drop candidates until none fails. Initiation (`checked is pool`): `solver` holds
    I(0) and each query asks for an initial state falsifying an alive candidate.
    Consecution: `solver` holds D(0) ∧ T(0,1), the alive candidates are assumed at step 0
    (through indicator literals) and each query asks for a successor falsifying one of
    them at step 1, `checked` (formulas.houdini_step)."""
    literals: dict[int, Any] = {}
    if checked is not pool:
        for i in alive:
            literals[i] = z3.Bool(f"_cand{i}", enc.ctx)
            solver.add(z3.Implies(literals[i], pool[i]))
    moved = {i: checked[i] for i in alive}
    while alive:
        solver.push()
        solver.add(z3.Or(*[z3.Not(moved[i]) for i in alive], enc.ctx))
        answer, why = check(solver, *[literals[i] for i in alive if i in literals],
                            timeout_ms=budget.remaining_ms())
        model = solver.model() if answer is Answer.SAT else None
        solver.pop()
        if answer is Answer.UNSAT:
            break
        if model is None:
            return unknown(Method.K_INDUCTION, stop_reason(why), f"Houdini: {why}")
        alive = [i for i in alive if z3.is_true(model.eval(moved[i], model_completion=True))]
    return alive


def run_one_induction(system: System, prop: Property, options: Options) -> PropertyResult:
    return to_result(prop, one_induction(system, prop, options))


def run_houdini(system: System, prop: Property, options: Options) -> PropertyResult:
    return to_result(prop, houdini(system, prop, options))
