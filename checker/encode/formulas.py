"""The formulas the engines ask Z3 about, one pure function per formula (pySMT style).

I is `Encoding.init`, T(i, i+1) is `Encoding.trans_at(i)`, D(i) the variable domains at
step i, and a state formula F(i) is F moved to step i (`Encoding.at`).

[1] A. Biere, A. Cimatti, E. Clarke, Y. Zhu. Symbolic Model Checking without BDDs.
    TACAS 1999 (bounded model checking).
[2] M. Sheeran, S. Singh, G. Stålmarck. Checking Safety Properties Using Induction and a
    SAT-Solver. FMCAD 2000 (k-induction).
[3] C. Flanagan, K. R. M. Leino. Houdini, an Annotation Assistant for ESC/Java. FME 2001.
[4] K. Hoder, N. Bjørner. Generalized Property Directed Reachability. SAT 2012 (Spacer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3  # noqa: TID251 - encode/ is one of the two packages allowed to import z3

from checker.encode.system import Encoding


@dataclass(frozen=True)
class Horn:
    """Horn clauses (head, body) over `variables`, with the invariant relation `inv` whose
    arguments are `args` (the step-0 state variables, in `System.vars` order)."""

    inv: Any
    err: Any
    variables: list[Any]
    rules: list[tuple[Any, Any]]
    args: list[Any]


def unroll(enc: Encoding, k: int) -> Any:
    """Unrolling of the transition relation from 0 to k:  T(0,1) ∧ T(1,2) ∧ … ∧ T(k-1,k)."""
    return z3.And(*[enc.trans_at(i) for i in range(k)]) if k else z3.BoolVal(True, enc.ctx)


def bmc(enc: Encoding, target: Any, k: int) -> Any:
    """BMC at depth k [1]:  I(0) ∧ T(0,1) ∧ … ∧ T(k-1,k) ∧ target(k).

    Satisfiable iff a target state is reachable in exactly k steps (within k steps, since
    the idle step stutters). The engines build it incrementally: I(0), then one T(i,i+1)
    per depth, with target(k) as an assumption."""
    return z3.And(enc.init, unroll(enc, k), enc.at(target, k))


def base_case(enc: Encoding, safe: Any) -> Any:
    """Initiation:  I(0) ∧ ¬safe(0).  Unsatisfiable iff every initial state is safe."""
    return z3.And(enc.init, z3.Not(safe))


def induction_step(enc: Encoding, safe: Any, lemmas: Any = None) -> Any:
    """Consecution (1-induction [2], relative to `lemmas` L when given):

        D(0) ∧ L(0) ∧ safe(0) ∧ T(0,1) ∧ ¬safe(1)

    Unsatisfiable (with the base case and L inductive) iff safe is an inductive invariant
    of the system. k > 1 adds nothing here: the idle step repeats states, so a k-path of
    safe states can stutter in place (z3-notes: 'k-induction without lemmas never closes
    properties that need auxiliary facts')."""
    strengthening = lemmas if lemmas is not None else z3.BoolVal(True, enc.ctx)
    return z3.And(enc.domain, strengthening, safe, enc.trans, z3.Not(enc.at(safe, 1)))


def houdini_step(enc: Encoding, candidates: list[Any]) -> Any:
    """One Houdini round [3] over candidates c_1 … c_n:

        D(0) ∧ c_1(0) ∧ … ∧ c_n(0) ∧ T(0,1) ∧ ¬(c_1(1) ∧ … ∧ c_n(1))

    A model falsifies some c_i(1): those are dropped and the round repeats; unsatisfiable
    means the remaining conjunction is inductive."""
    now = z3.And(*candidates) if candidates else z3.BoolVal(True, enc.ctx)
    return z3.And(enc.domain, now, enc.trans, z3.Not(enc.at(now, 1)))


def certificate_check(enc: Encoding, inv: Any, safe: Any) -> Any:
    """One query that re-checks an invariant `inv` claimed by an engine (e.g. Spacer [4]):

        (I(0) ∧ ¬inv(0))  ∨  (D(0) ∧ inv(0) ∧ T(0,1) ∧ ¬inv(1))  ∨  (D(0) ∧ inv(0) ∧ ¬safe(0))

    Unsatisfiable iff inv holds initially, is preserved by every step and implies safe:
    an independently checked inductive certificate that safe is invariant."""
    bounds = z3.And(enc.domain, enc.at(enc.domain, 1), enc.sel >= 0, enc.sel <= enc.idle)
    return z3.And(bounds,  # at the top level too, for the finite-domain solver
                  z3.Or(z3.And(enc.init, z3.Not(inv)),
                        z3.And(inv, enc.trans, z3.Not(enc.at(inv, 1))),
                        z3.And(inv, z3.Not(safe))))


def micro_chain(enc: Encoding, j: int) -> Any:
    """j consecutive micro steps from ANY state (reachable or not) that has just had its
    event (_res = 0):

        D(0) ∧ _res(0) = 0 ∧ ⋀_{i<j} (sel(i) picks a rule ∧ T(i,i+1))

    Unsatisfiable ⇒ no resolution runs j micro steps; with j ≤ res_bound no state is ever
    stuck (reaching _res = res_bound needs res_bound micro steps since the last event):
    a k-induction argument [2] over the micro steps of one resolution."""
    res = enc.system.res_var
    parts = [enc.domain, enc.cur[res] == 0]
    for i in range(j):
        parts += [enc.is_micro(enc.sel_at(i)), enc.trans_at(i)]
    return z3.And(*parts)


def chc(enc: Encoding, target: Any) -> Horn:
    """Constrained Horn clauses for Spacer [4], with one relation Inv over the state:

        Inv(x)  ← I(x)
        Inv(x') ← Inv(x) ∧ T(x, x')
        Err     ← Inv(x) ∧ target(x)

    `Fixedpoint.query(Err)` answers unsat iff no target state is reachable (the query
    polarity is the opposite of `SolverFor('HORN')`, z3-notes 'API traps')."""
    ctx = enc.ctx
    names = list(enc.cur)
    inv = z3.Function("Inv", *[z3.IntSort(ctx) for _ in names], z3.BoolSort(ctx))
    err = z3.Function("Err", z3.BoolSort(ctx))
    cur = [enc.cur[n] for n in names]
    nxt = [enc.nxt[n] for n in names]
    rules = [(inv(*cur), enc.init),
             (inv(*nxt), z3.And(inv(*cur), enc.domain, enc.trans)),
             (err(), z3.And(inv(*cur), target))]
    return Horn(inv, err, [*cur, *nxt, enc.sel], rules, cur)
