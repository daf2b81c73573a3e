"""Solvers with fixed seeds and limits, and the mapping of Z3 answers to verdict inputs.

Every check owns a fresh `z3.Context()` (determinism and thread safety,
/work/shared/reference/z3-notes.md); this module is the one place that sets the seeds,
the timeout and the resource limit: `make_solver` (the engines' `Solver`), `z3_solver` (a
plain `z3.Solver`, for the decision-point engines' unsat cores and models) and
`make_fixedpoint` (Spacer). An `unknown` answer always keeps Z3's reason, which
`stop_reason` turns into a `StopReason` — it is never read as success.

Every variable of the encoding is a bounded integer with its bounds asserted at the top
level, so the default solver is Z3's finite-domain solver (`QF_FD`: bounded integers
bit-blasted to SAT), which was 20–40× faster than the arithmetic core on deep BMC
unrollings of the example ruleset. When it gives up on a query (a term without
top-level bounds: "sat.giveup"), the query is re-run on the general SMT solver.
"""

from __future__ import annotations

import time
from enum import StrEnum
from typing import Any

import z3  # noqa: TID251 - encode/ is one of the two packages allowed to import z3

from checker.options import Options
from checker.results import StopReason


class Answer(StrEnum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


def z3_solver(ctx: Any, options: Options, *, logic: str | None = None,
              timeout_ms: int | None = None) -> Any:
    """A plain `z3.Solver` in `ctx` (for `logic`, else the general SMT solver) with fixed
    seeds, a timeout (`timeout_ms`, else `options.timeout_ms`) and `options.rlimit`."""
    if timeout_ms is None:
        timeout_ms = options.timeout_ms
    if logic is None:
        solver = z3.Solver(ctx=ctx)
        solver.set("smt.random_seed", options.seed)
    else:
        solver = z3.SolverFor(logic, ctx=ctx)
    # the solver-level seed reaches the SAT core; z3 5.4 rejects "sat.random_seed" on a
    # solver (at the first assert), and QF_FD rejects "smt.random_seed"
    solver.set("random_seed", options.seed)
    solver.set("timeout", max(1, timeout_ms))
    if options.rlimit:
        solver.set("rlimit", options.rlimit)
    return solver


class Solver:
    """A z3 solver (finite-domain first, general SMT as the fallback) that answers with
    `Answer` and a reason."""

    def __init__(self, ctx: Any, options: Options, timeout_ms: int) -> None:
        self.ctx = ctx
        self.options = options
        self.timeout_ms = timeout_ms
        self.z3 = z3_solver(ctx, options, logic="QF_FD", timeout_ms=timeout_ms)
        self._model: Any = None

    def add(self, *formulas: Any) -> None:
        self.z3.add(*formulas)

    def push(self) -> None:
        self.z3.push()

    def pop(self) -> None:
        self.z3.pop()

    def check(self, *assumptions: Any, timeout_ms: int | None = None) -> tuple[Answer, str]:
        """`check-sat` under `assumptions`; the reason is set only for UNKNOWN."""
        limit = max(1, timeout_ms if timeout_ms is not None else self.timeout_ms)
        self.z3.set("timeout", limit)
        start = time.monotonic()
        answer, why, solver = _run(self.z3, assumptions)
        if answer is Answer.UNKNOWN and "giveup" in why:
            general = z3_solver(self.ctx, self.options, timeout_ms=limit)
            general.add(*self.z3.assertions())
            answer, why, solver = _run(general, assumptions)
        self._model = solver.model() if answer is Answer.SAT else None
        if answer is Answer.UNKNOWN:
            elapsed = int((time.monotonic() - start) * 1000)
            why = explain_unknown(why, elapsed, limit, self.options.rlimit)
        return answer, why

    def model(self) -> Any:
        assert self._model is not None, "model() after a check that was not sat"
        return self._model


def _run(solver: Any, assumptions: tuple[Any, ...]) -> tuple[Answer, str, Any]:
    result = solver.check(*assumptions)
    if result == z3.sat:
        return Answer.SAT, "", solver
    if result == z3.unsat:
        return Answer.UNSAT, "", solver
    return Answer.UNKNOWN, str(solver.reason_unknown()), solver


def make_solver(ctx: Any, options: Options, *, timeout_ms: int | None = None) -> Solver:
    """A `Solver` in `ctx` with fixed seeds (`options.seed`), a timeout (`timeout_ms`, else
    `options.timeout_ms`) and `options.rlimit` per query (0 = none)."""
    return Solver(ctx, options, timeout_ms if timeout_ms is not None else options.timeout_ms)


def make_fixedpoint(ctx: Any, options: Options, *, timeout_ms: int) -> Any:
    """A `z3.Fixedpoint` in `ctx` running Spacer, with its seed (`options.seed`), a timeout
    and `options.rlimit`."""
    fp = z3.Fixedpoint(ctx=ctx)
    fp.set("engine", "spacer")
    fp.set("spacer.random_seed", options.seed)
    fp.set("timeout", max(1, timeout_ms))
    if options.rlimit:
        fp.set("rlimit", options.rlimit)
    return fp


def check(solver: Solver, *assumptions: Any, timeout_ms: int | None = None) -> tuple[Answer,
                                                                                     str]:
    """`solver.check(*assumptions)`; the reason string is set only for UNKNOWN."""
    return solver.check(*assumptions, timeout_ms=timeout_ms)


def explain_unknown(why: str, elapsed_ms: int, timeout_ms: int, rlimit: int) -> str:
    """Z3's reason for `unknown`, made explicit: the finite-domain core and Spacer say
    "canceled" (or nothing) both for a timeout and for an exhausted rlimit; the elapsed
    time tells them apart."""
    low = why.lower()
    if "resource" in low or "timeout" in low:
        return why
    if "cancel" in low or "no reason" in low or not low:
        if rlimit and elapsed_ms < 0.9 * timeout_ms:
            return f"resource limit exceeded (rlimit {rlimit}; z3: {why or 'no reason'})"
        if elapsed_ms >= 0.9 * timeout_ms:
            return f"timeout after {timeout_ms} ms (z3: {why or 'no reason'})"
    return why


def stop_reason(reason: str) -> StopReason:
    """Z3's `reason_unknown()` (or a `Z3Exception` message) as a `StopReason`."""
    low = reason.lower()
    if "resource" in low or "rlimit" in low:
        return StopReason.RESOURCE_LIMIT
    if "timeout" in low or "canceled" in low or "cancelled" in low:
        return StopReason.TIMEOUT
    return StopReason.INCOMPLETE
