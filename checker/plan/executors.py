"""`check_parallel`: the checks of a run spread over a pool of worker processes (`--jobs`).

The units of work, per ruleset not answered by the whole-ruleset cache, and for a ruleset
with `readings:` per variant of it (its base and each combination
`checker.plan.readings.variant_choices` names, merged at the end as
`checker.plan.tasks.merged_readings` merges them), so that the readings run side by side:
- the shared explicit search (`checker.plan.tasks.shared_search`), then one task per property
  (`checker.plan.tasks.decide_property`) once the search is done;
- the parts of the conflict, order and ordering-rule scans (`checker.plan.shards.scan_items`),
  one task each, started at once;
- the scope re-check (`checker.plan.widen.scope_recheck`), one task, once every property of
  the ruleset (of this shard) is decided: it re-decides the proved ones on the widened
  system.

One pool per ruleset, in turn: its units' reachability cores are computed, the pool forks,
and the cores are released before the next ruleset's, so that a worker inherits only the
cores of the ruleset it works on (the peak is the largest ruleset's, not the sum).
Workers are forked from this process, so they inherit the loaded rulesets (`_RULESETS`)
and nothing but indexes, options and results (plain dataclasses) cross a process boundary;
z3 terms never do (each worker builds its own contexts). The result is assembled in the
same order as the one-process path (`checker.plan.tasks.assemble`), so a run gives the same reports
whatever `--jobs` is; a test checks this.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from checker.engines.reach import release_cores, shared_core
from checker.options import Options
from checker.plan.shards import in_shard, joined, run_scan, scan_items, shard_system
from checker.plan.tasks import (
    assemble,
    decide_property,
    is_twin_scan,
    merged_readings,
    reading_units,
    ruleset_cache,
    shared_search,
    twin_units,
)
from checker.plan.widen import scope_recheck
from checker.results import Finding, PropertyResult, RulesetResult
from checker.results.run import CheckedRuleset

if TYPE_CHECKING:
    from checker.engines.base import ProofStore
    from checker.engines.decision import Scan
    from checker.interpret import Verdicts
    from checker.ir import Choice, Ruleset, System
    from checker.results.run import Progress

_RULESETS: list[Ruleset] = []        # the run's rulesets, set before the workers fork
_SYSTEMS: list[System] = []          # their systems with this shard's properties


def _search(r: int, options: Options, proofs: ProofStore | None
            ) -> tuple[dict[str, PropertyResult | None], Verdicts]:
    return shared_search(_SYSTEMS[r], options, proofs)


def _property(r: int, i: int, options: Options, cached: PropertyResult | None,
              macro: Verdicts, proofs: ProofStore | None) -> PropertyResult:
    system = _SYSTEMS[r]
    return decide_property(system, system.properties[i], options, cached, macro, proofs)


def _scan(r: int, item: str, options: Options, proofs: ProofStore | None) -> Scan:
    return run_scan(_RULESETS[r], item, options, proofs)


def _widen(r: int, props: list[PropertyResult], options: Options, proofs: ProofStore | None
           ) -> tuple[list[Finding], list[PropertyResult]]:
    return scope_recheck(_RULESETS[r], props, options, proofs)


class _Pending:
    """What one ruleset still waits for."""

    def __init__(self, ruleset: Ruleset, system: System, options: Options,
                 proofs: ProofStore | None, twin: int | None = None) -> None:

        self.ruleset = ruleset
        self.system = system
        self.options = options
        self.proofs = proofs       # the per-property cache: plain data, pickled to workers
        self.props: list[PropertyResult | None] = [None] * len(system.properties)
        self.todo = [s for s in scan_items() if in_shard(ruleset.id, s, options)]
        self.scans: dict[str, Scan] = {}
        self.scope: tuple[list[Finding], list[PropertyResult]] = ([], [])
        self.decided = 0
        # the search, then each task, then the scope re-check
        self.left = 1 + len(self.props) + len(self.todo) + 1
        self.twin = twin   # a twin unit (`twin_units`) runs only the scans of constraints
        if twin is not None:
            self.props = []
            self.todo = [s for s in self.todo if not is_twin_scan(s)]
            self.left = len(self.todo)


def check_parallel(rulesets: list[Ruleset], options: Options,
                   progress: Progress | None = None) -> list[CheckedRuleset]:
    """`checker.plan.tasks.check_ruleset` for every ruleset, the work spread over `options.jobs`
    forked worker processes: one pool per ruleset, in turn, so that only that ruleset's
    reachability cores are held (and inherited by the workers) at a time."""
    import time

    done: dict[int, CheckedRuleset] = {}
    # the units of work: each ruleset, and each variant of a ruleset's readings
    # (`reading_units`), so that readings run side by side
    groups: list[tuple[int, list[Ruleset], dict[int, _Pending], list[tuple[Choice, int]],
                       Callable[[RulesetResult], None]]] = []
    for r, ruleset in enumerate(rulesets):
        cached, proofs, store = ruleset_cache(ruleset, options)
        if cached is not None:
            done[r] = cached
            continue
        units: list[Ruleset] = []
        pending: dict[int, _Pending] = {}
        ids = []
        for choice, unit in reading_units(ruleset):
            pending[len(units)] = _Pending(unit, shard_system(unit, options), options, proofs)
            ids.append((choice, len(units)))
            units.append(unit)
        for u, twin in twin_units(units).items():
            pending[u] = _Pending(units[u], pending[u].system, options, pending[u].proofs, twin)
        groups.append((r, units, pending, ids, store))
    began = time.perf_counter()
    count = _Count(sum(len(p.props) for g in groups for p in g[2].values()))
    for r, units, pending, ids, store in groups:
        checked_units = _run_pool(units, pending, options, progress, count, began)
        done[r] = merged_readings(rulesets[r], [(choice, checked_units[u]) for choice, u in ids],
                                  time.perf_counter() - began)
        store(done[r].result)
    return [done[r] for r in range(len(rulesets))]


class _Count:
    """Properties decided so far, out of how many (for `Progress`)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.finished = 0


def _run_pool(units: list[Ruleset], pending: dict[int, _Pending], options: Options,
              progress: Progress | None, count: _Count, began: float
              ) -> dict[int, CheckedRuleset]:
    """One ruleset's units (its reading variants) checked by a pool of forked workers."""
    import time

    _RULESETS[:] = units
    _SYSTEMS[:] = [pending[u].system for u in range(len(units))]
    for u in pending:      # each system's reachability core, once, inherited by every worker
        shared_core(units[u].system, options.node_budget, pin=True)   # (none evicted before
    #                        the fork: a worker would compute an evicted one again itself)
    ctx = multiprocessing.get_context("fork")
    checked_units: dict[int, CheckedRuleset] = {}
    with ProcessPoolExecutor(max_workers=options.jobs, mp_context=ctx) as pool:
        tasks: dict[Future[Any], tuple[int, str, int]] = {}
        for r, p in pending.items():
            if p.twin is None:
                tasks[pool.submit(_search, r, p.options, p.proofs)] = (r, "search", -1)
        for r, p in pending.items():
            for which in p.todo:
                tasks[pool.submit(_scan, r, which, p.options, p.proofs)] = (r, which, -1)
        try:
            while tasks:
                ready, _ = wait(tasks, return_when=FIRST_COMPLETED)
                for fut in sorted(ready, key=lambda f: tasks[f]):
                    r, what, i = tasks.pop(fut)
                    value = fut.result()           # a worker's exception is raised here
                    p = pending[r]
                    if what == "search":
                        known, macro = value
                        for j, prop in enumerate(p.system.properties):
                            tasks[pool.submit(_property, r, j, p.options, known[prop.id],
                                              macro, p.proofs)] = (r, "property", j)
                    elif what == "property":
                        p.props[i] = value
                        count.finished += 1
                        p.decided += 1
                        if progress is not None:
                            progress(p.ruleset.id, p.system.properties[i].id,
                                     count.finished, count.total)
                    elif what == "widen":
                        p.scope = value
                    else:
                        p.scans[what] = value
                    p.left -= 1
                    if what in ("search", "property") and p.decided == len(p.props):
                        p.decided = -1       # submitted once, when the last one is in
                        props = [x for x in p.props if x is not None]
                        tasks[pool.submit(_widen, r, props, p.options,
                                          p.proofs)] = (r, "widen", -1)
                    if p.left == 0 and p.twin is None:
                        props = [x for x in p.props if x is not None]
                        checked_units[r] = assemble(p.ruleset, props, joined(p.scans),
                                                    time.perf_counter() - began, p.scope)
            for r, p in pending.items():      # a twin: its twin's properties and order scans
                if p.twin is not None:
                    tw = pending[p.twin]
                    scans = {**{i: s for i, s in tw.scans.items() if is_twin_scan(i)},
                             **p.scans}
                    checked_units[r] = assemble(p.ruleset,
                                                [x for x in tw.props if x is not None],
                                                joined(scans), time.perf_counter() - began,
                                                tw.scope)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            _RULESETS.clear()
            _SYSTEMS.clear()
            for u in pending:
                release_cores(units[u].system)
    return checked_units
