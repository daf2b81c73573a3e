"""`check_property(system, prop, options)`: the engines composed, cheapest first.

Invariants: 1-induction on the cone (for `termination`, then a bound on the length of
every resolution, `checker.engines.termination`) → Spacer on the cone for at most
`SPACER_QUICK_RLIMIT` resource units (certificate re-checked) → BMC on the full system up to
`SHALLOW_DEPTH` steps → Houdini on the cone, at most `HOUDINI_QUICK_ROUNDS`
counterexamples to induction (a deterministic cap) → BMC from there to `max_depth` →
Spacer on the cone (certificate re-checked) → Houdini resumed without the cap → if
Spacer saw the target deeper than the BMC bound, BMC again up to that depth.
Reachability properties: the shallow BMC (a witness) comes before 1-induction, and there
is no short Spacer run (most are the conflict engines' decision points, which Houdini
closes and Spacer mostly cannot); the rest is the same. Unrolling the full bound is the
costly part on a large system, and most decision-point candidates are unreachable, so it
comes after the cheap proofs. Traces stay shortest: the deep BMC starts where the shallow
one found nothing.
PROVED comes only from an induction, Houdini or Spacer certificate (or, in `check_all`,
from a finished explicit search); VIOLATED only with a replayed trace, or from such a
proof for a reachability property; everything else is UNKNOWN with every engine's reason.

Everything a worker needs is in the (picklable) arguments: z3 terms never cross a call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from checker.engines import bmc, explicit, induction, spacer, termination
from checker.engines.base import Kind, Outcome, ProofStore, to_result, unknown
from checker.engines.lemmas import Samples
from checker.engines.session import Session
from checker.ir import Property, System
from checker.options import Options
from checker.results import Method, PropertyResult, Status

Progress = Callable[[str, int, int], None]     # (property id, done, total)
SPACER_DEPTH_FACTOR = 4                        # how far past max_depth to chase a Spacer path
SHALLOW_DEPTH = 8      # BMC this deep before the proofs; the rest of max_depth after them
HOUDINI_QUICK_ROUNDS = 30   # first Houdini attempt; the unbounded one comes after Spacer
SPACER_QUICK_RLIMIT = 2_000_000   # invariants: a first Spacer attempt of this many Z3
#   resource units (a count, not a time), right after 1-induction


def decide(system: System, prop: Property, options: Options,
           samples: Samples | None = None) -> Outcome:
    """The first decided outcome of the engines in order, else UNKNOWN with all reasons.
    All engines share one `Session` (one z3 context) for this property."""
    session = Session(system, prop)

    def one_induction(s: System, p: Property, o: Options) -> Outcome:
        return induction.one_induction(s, p, o, session)

    lemmas = induction.Houdini(system, prop, options, samples, session)

    def houdini_quick(s: System, p: Property, o: Options) -> Outcome:
        return lemmas.run(max_rounds=HOUDINI_QUICK_ROUNDS)

    def houdini(s: System, p: Property, o: Options) -> Outcome:
        return lemmas.run()          # resumes where the quick attempt stopped

    def bounded(s: System, p: Property, o: Options) -> Outcome:
        return termination.resolution_bound(s, p, o, session)

    def spacer_prove(s: System, p: Property, o: Options) -> Outcome:
        return spacer.prove(s, p, o, session)

    def spacer_quick(s: System, p: Property, o: Options) -> Outcome:
        quick = min(o.rlimit, SPACER_QUICK_RLIMIT) if o.rlimit else SPACER_QUICK_RLIMIT
        return spacer.prove(s, p, replace(o, rlimit=quick), session)

    Engine = Callable[[System, Property, Options], Outcome]
    found, proved = Kind.FOUND, Kind.UNREACHABLE
    shallow = min(SHALLOW_DEPTH, options.max_depth)

    def bmc_shallow(s: System, p: Property, o: Options) -> Outcome:
        return bmc.search(s, p, o, session, max_depth=shallow)

    def bmc_deep(s: System, p: Property, o: Options) -> Outcome:
        return bmc.search(s, p, o, session, min_depth=shallow + 1)

    # cheap proofs and shallow searches first; the deep unrolling (the costly part on a
    # large system) only when they leave the property open. Shortest traces either way:
    # `bmc_deep` starts where `bmc_shallow` found nothing.
    plan: list[tuple[Engine, Kind]] = [(bmc_shallow, found), (one_induction, proved)]
    if prop.mode == "invariant":
        plan.reverse()                # an invariant is usually 1-inductive: try that first
        # then a short Spacer run: it proves most invariants that need a strengthening in
        # well under a second (synthetic rings of 200 States: 0.8 s), long before the
        # 8-step unrolling and Houdini are done
        plan.insert(1, (spacer_quick, proved))
        if prop.kind == "termination":
            plan.insert(1, (bounded, proved))
    plan.append((houdini_quick, proved))
    if options.max_depth > shallow:
        plan.append((bmc_deep, found))
    plan += [(spacer_prove, proved), (houdini, proved)]
    tried: list[Outcome] = []
    for engine, wanted in plan:
        out = engine(system, prop, options)
        if out.kind is wanted:
            return out
        tried.append(out)
    hint = max(t.depth_hint for t in tried if t.method is Method.SPACER)
    if hint > options.max_depth:
        deeper = bmc.search(system, prop, options, session, min_depth=options.max_depth + 1,
                            max_depth=min(hint, SPACER_DEPTH_FACTOR * options.max_depth))
        if deeper.kind is Kind.FOUND:
            return deeper
        tried.append(deeper)
    return _undecided(tried)


def _undecided(tried: list[Outcome]) -> Outcome:
    """UNKNOWN with the general fallback's (Spacer's) stop reason, and every engine's."""
    last = next(t for t in reversed(tried) if t.method is Method.SPACER)
    assert last.stop is not None
    others = "; ".join(t.detail for t in tried if t is not last)
    return unknown(last.method, last.stop, f"{last.detail} (also: {others})")


def check_property(system: System, prop: Property, options: Options, *,
                   samples: Samples | None = None,
                   store: ProofStore | None = None) -> PropertyResult:
    """Decide `prop` on `system` with the symbolic engines (module docstring). A result
    kept earlier in `store` (the pipeline's: `checker.plan.store.ConeStore`) is reused,
    and the new one offered to it."""
    start = time.perf_counter()
    if store is not None:
        hit = store.lookup(system, prop)
        if hit is not None:
            return hit
    outcome = decide(system, prop, options, samples)
    seconds = time.perf_counter() - start if options.timings else 0.0
    result = to_result(prop, outcome, seconds)
    if store is not None:
        store.store(system, prop, result)
    return result


def check_all(system: System, options: Options, *,
              progress: Progress | None = None) -> list[PropertyResult]:
    """Every property of `system`, in order. The simulated states Houdini mines are
    computed once, on first need. A property the symbolic engines leave UNKNOWN gets an
    explicit search as a last resort (`explicit.Explorer`: complete when the system has
    at most `options.explicit_limit` reachable states); otherwise the UNKNOWN stands."""
    samples = induction.sample_cache(system, options)
    explorer = explicit.Explorer(system, options)
    out: list[PropertyResult] = []
    total = len(system.properties)
    for i, prop in enumerate(system.properties):
        if progress is not None:
            progress(prop.id, i, total)
        start = time.perf_counter()
        result = check_property(system, prop, options, samples=samples)
        if result.status is Status.UNKNOWN:
            fallback = explorer.decide(prop)
            if fallback.kind is not Kind.UNKNOWN:
                seconds = time.perf_counter() - start if options.timings else 0.0
                result = to_result(prop, fallback, seconds)
        out.append(result)
    if progress is not None:
        progress("", total, total)
    return out
