"""Spacer, Z3's CHC engine (Hoder, Bjørner, SAT 2012: generalized PDR), on the cone-sliced
system, as the general fallback for invariants the induction engines cannot close.

The Horn clauses are `formulas.chc`. `Fixedpoint.query` answers unsat for "no target is
reachable"; Spacer's invariant for `Inv` is then re-checked by one query
(`formulas.certificate_check`) in a fresh solver: PROVED only if it is an independently
checked inductive invariant, else UNKNOWN. A timeout makes `Fixedpoint` raise
`Z3Exception` rather than answer unknown; it is caught and reported as UNKNOWN with the
reason. A sat answer (the target is reachable in the slice) carries the depth of Spacer's
path as a hint: BMC on the full system re-finds the trace there, or the verdict stays
UNKNOWN.
"""

from __future__ import annotations

import time
from typing import Any

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Answer, check, make_solver, stop_reason
from checker.encode import formulas as f
from checker.encode.solver import explain_unknown, make_fixedpoint
from checker.engines.base import Budget, Outcome, to_result, unknown, unreachable
from checker.engines.session import Session, session_for
from checker.ir import Property, System
from checker.options import Options
from checker.results import Method, PropertyResult, StopReason


def prove(system: System, prop: Property, options: Options,
          session: Session | None = None) -> Outcome:
    budget = Budget(options.timeout_ms)
    enc = session_for(system, prop, session).sliced()
    ctx = enc.ctx
    target = enc.target(prop)
    horn = f.chc(enc, target)
    fp = make_fixedpoint(ctx, options, timeout_ms=budget.remaining_ms())
    fp.register_relation(horn.inv, horn.err)
    fp.declare_var(*horn.variables)
    for head, body in horn.rules:
        fp.rule(head, body)
    limit = max(1, budget.remaining_ms())
    start = time.monotonic()
    try:
        answer = fp.query(horn.err)
    except z3.Z3Exception as exc:
        why = exc.value.decode() if isinstance(exc.value, bytes) else str(exc.value)
        why = explain_unknown(why, _since(start), limit, options.rlimit)
        return unknown(Method.SPACER, stop_reason(why), f"Spacer: {why}")
    if answer == z3.sat:
        depth = _depth(fp)
        return unknown(Method.SPACER, StopReason.INCOMPLETE,
                       f"Spacer: the target is reachable in the "
                       f"{'sliced ' if enc.system is not system else ''}system ({depth} steps)"
                       ", no trace from Spacer", depth_hint=depth)
    if answer != z3.unsat:
        why = explain_unknown(str(fp.reason_unknown()), _since(start), limit, options.rlimit)
        return unknown(Method.SPACER, stop_reason(why), f"Spacer: {why}")
    inv = z3.substitute_vars(fp.get_cover_delta(-1, horn.inv), *horn.args)
    solver = make_solver(ctx, options, timeout_ms=max(1, budget.remaining_ms()))
    solver.add(f.certificate_check(enc, inv, z3.Not(target)))
    verdict, why = check(solver)
    if verdict is Answer.UNSAT:
        return unreachable(Method.SPACER, enc.plain(inv).sexpr())
    if verdict is Answer.UNKNOWN:
        return unknown(Method.SPACER, stop_reason(why),
                       f"Spacer's invariant could not be re-checked: {why}")
    return unknown(Method.SPACER, StopReason.INCOMPLETE,
                   "Spacer's invariant failed its certificate check")


def _since(start: float) -> int:
    return int((time.monotonic() - start) * 1000)


def _depth(fp: Any) -> int:
    """The length of Spacer's path to the target (z3-notes: rules along the trace - 2)."""
    try:
        return max(0, len(fp.get_rules_along_trace()) - 2)
    except z3.Z3Exception:
        return 0


def run(system: System, prop: Property, options: Options) -> PropertyResult:
    return to_result(prop, prove(system, prop, options))
