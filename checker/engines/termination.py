"""Termination of every resolution by bounding its length (for the `termination`
property only).

Resolutions start right after an event with `_res = 0` and are stuck when `_res` reaches
`res_bound` in an unstable state. `formulas.micro_chain(j)` asks for j consecutive micro
steps from ANY state with `_res = 0`, reachable or not; the first j with no such chain is
an upper bound on every resolution's length, and if j ≤ res_bound no stuck state is
reachable. The query ignores reachability, so it is an over-approximation (sound for a
proof, as in k-induction, Sheeran/Singh/Stålmarck FMCAD 2000); a chain that exists may
start in an unreachable state, and then the other engines decide. Queries grow with j,
so this is cheap exactly when resolutions are short, the common case; it gets a quarter
of the per-engine timeout.
"""

from __future__ import annotations

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Answer, check, make_solver, stop_reason
from checker.engines.base import Budget, Outcome, unknown, unreachable
from checker.engines.session import Session, session_for
from checker.ir import Property, System
from checker.options import Options
from checker.results import Method, StopReason


def resolution_bound(system: System, prop: Property, options: Options,
                     session: Session | None = None) -> Outcome:
    if prop.kind != "termination" or system.res_var not in {v.name for v in system.vars}:
        return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                       "resolution bound: not a termination property")
    budget = Budget(options.timeout_ms)
    enc = session_for(system, prop, session).full()
    solver = make_solver(enc.ctx, options)
    solver.add(enc.domain, enc.cur[system.res_var] == 0)
    for j in range(1, system.res_bound + 1):
        solver.add(enc.is_micro(enc.sel_at(j - 1)), enc.trans_at(j - 1))
        answer, why = check(solver, timeout_ms=budget.remaining_ms())
        if answer is Answer.UNSAT:
            return unreachable(Method.K_INDUCTION,
                               f"(no-micro-chain {j})",
                               f"every resolution ends within {j - 1} micro steps "
                               f"(res_bound {system.res_bound})")
        if answer is Answer.UNKNOWN:
            return unknown(Method.K_INDUCTION, stop_reason(why), f"resolution bound: {why}")
    solver.add(z3.Not(enc.at(enc.stable, system.res_bound)))
    answer, why = check(solver, timeout_ms=budget.remaining_ms())
    if answer is Answer.UNSAT:
        return unreachable(Method.K_INDUCTION, f"(no-stuck-chain {system.res_bound})",
                           "no chain of res_bound micro steps ends unstable")
    if answer is Answer.UNKNOWN:
        return unknown(Method.K_INDUCTION, stop_reason(why), f"resolution bound: {why}")
    return unknown(Method.K_INDUCTION, StopReason.INCOMPLETE,
                   f"resolution bound: some state (perhaps unreachable) resolves for "
                   f"{system.res_bound} micro steps")
