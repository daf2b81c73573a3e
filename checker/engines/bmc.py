"""Bounded model checking on the FULL system (Biere et al., TACAS 1999) that returns a
shortest counterexample or witness (in steps: events plus micro steps, the metric of
explicit BFS).

One incremental solver holds I(0) and T(0,1) … T(k-1,k) as far as needed; target(k) is
passed as an assumption. Because the idle step stutters, "a target at step k" is
satisfiable iff a target is reachable within k steps: satisfiability is monotone in k. So
instead of asking at every depth (iterative deepening), the search probes depths
0, 1, 2, 4, 8, … up to the bound and then bisects between the last unsatisfiable and the
first satisfiable probe: the least satisfiable depth, hence a shortest path, with
O(log bound) queries.

Every trace is replayed by the reference interpreter (`checker.interpret.replay`) before
it is returned; a trace that does not replay raises `InternalError` (a bug, never a
finding).
"""

from __future__ import annotations

from typing import Any

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Answer, Encoding, at_step, check, make_solver, stop_reason
from checker.engines.base import Budget, Outcome, found, to_result, unknown
from checker.engines.session import Session, session_for
from checker.errors import InternalError
from checker.interpret import replay
from checker.ir import Property, System
from checker.options import Options
from checker.results import Method, PropertyResult, StopReason, Trace


def search(system: System, prop: Property, options: Options, session: Session | None = None,
           *, max_depth: int | None = None, min_depth: int = 0) -> Outcome:
    """Look for a target state of `prop` within `max_depth` steps (default
    `options.max_depth`); below `min_depth` there is known to be none."""
    depth = options.max_depth if max_depth is None else max_depth
    budget = Budget(options.timeout_ms)
    enc = session_for(system, prop, session).full()
    ctx = enc.ctx
    target = enc.target(prop)
    solver = make_solver(ctx, options)
    solver.add(enc.init)
    unrolled = 0

    def query(k: int) -> tuple[Answer, str, Any]:
        nonlocal unrolled
        while unrolled < k:
            solver.add(enc.trans_at(unrolled))
            unrolled += 1
        goal = z3.Bool(at_step("_goal", k), ctx)
        solver.add(z3.Implies(goal, enc.at(target, k)))
        answer, why = check(solver, goal, timeout_ms=budget.remaining_ms())
        return answer, why, solver.model() if answer is Answer.SAT else None

    # Double the depth until a target is hit (or `depth` has none), then bisect between
    # the deepest miss and the hit: the least satisfiable depth.
    below, probe = min_depth - 1, min_depth          # no target within `below` steps
    hit: tuple[int, Any] | None = None
    while (below < depth) if hit is None else (hit[0] - below > 1):
        k = min(probe, depth) if hit is None else (below + hit[0]) // 2
        answer, why, model = query(k)
        if answer is Answer.UNKNOWN:
            return unknown(Method.BMC, stop_reason(why), f"BMC at depth {k}: {why}")
        if answer is Answer.SAT:
            hit = (k, model)
        else:
            below, probe = k, max(1, 2 * k)
    if hit is None:
        what = "violation" if prop.mode == "invariant" else "witness"
        bound = " (max_depth)" if depth == options.max_depth else ""
        return unknown(Method.BMC, StopReason.BOUND_REACHED,
                       f"no {what} within {depth} steps{bound}")
    return found(Method.BMC, trace_of(enc, hit[1], hit[0], prop), hit[0])


def path_of(enc: Encoding, model: Any, k: int
            ) -> tuple[tuple[int, ...], list[tuple[str, tuple[int, ...]]],
                       list[tuple[str, ...]]]:
    """The initial state, the (event id, rolled inputs) of every EVENT step of the k-step
    path in `model`, and the rules its micro steps fired (per step, the initial
    resolution first: the choices the interpreter replays); idle steps are dropped."""
    system = enc.system
    start = tuple(enc.value(model, v.name, 0) for v in system.vars)
    inputs = [v.name for v in system.vars if v.kind == "input"]
    events: list[tuple[str, tuple[int, ...]]] = []
    fired: list[list[str]] = [[]]
    for j in range(k):
        sel = int(model.eval(enc.sel_at(j), model_completion=True).as_long())
        if sel < enc.n_events:
            rolled = tuple(enc.value(model, n, j + 1) for n in inputs)
            events.append((system.events[sel].id, rolled))
            fired.append([])
        elif sel < enc.idle:
            fired[-1].append(system.rules[sel - enc.n_events].id)
    return start, events, [tuple(f) for f in fired]


def trace_of(enc: Encoding, model: Any, k: int, prop: Property) -> Trace:
    start, events, fired = path_of(enc, model, k)
    expect = "violation" if prop.mode == "invariant" else "witness"
    try:      # the solver's own choices, when its path ends its last resolution
        return replay(enc.system, start, events, prop, expect=expect, fired=fired)
    except InternalError:   # it stops mid-resolution: the interpreter completes the orders
        return replay(enc.system, start, events, prop, expect=expect)


def run(system: System, prop: Property, options: Options) -> PropertyResult:
    """BMC alone, as a `PropertyResult` (UNKNOWN when nothing is found within the bound)."""
    return to_result(prop, search(system, prop, options))
