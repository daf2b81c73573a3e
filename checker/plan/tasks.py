"""The units of work of a check: one ruleset checked in one process (`check_ruleset`), and
the pieces the process pool runs (`shared_search`, `decide_property`, `assemble`). Never
prints; progress is reported through an optional callback."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from checker.errors import InternalError
from checker.interpret import Verdicts
from checker.ir import Choice, Property, Ruleset, System
from checker.options import Options
from checker.plan.shards import in_shard, joined, run_scan, scan_items, shard_system
from checker.results import Finding, Method, PropertyResult, RulesetResult, Status, StopReason
from checker.results.run import CheckedRuleset, Progress
from checker.spec.coverage import coverage

if TYPE_CHECKING:
    from checker.engines.base import ProofStore
    from checker.engines.decision import Scan


# Z3 resource units for the optional 1-induction proof of an invariant the exhaustive search
# already proved: a count, so whether the induction proof is found (and so which method a
# report names) is the same on every machine; the wall-clock timeout is only a safety net
INDUCTION_RLIMIT = 20_000_000


@dataclass
class Expired(Verdicts):
    """A shared explicit search stopped by its wall-clock safety net (`why`)."""

    why: str = ""


def check_ruleset(ruleset: Ruleset, options: Options,
                  progress: Progress | None = None) -> CheckedRuleset:
    """Check one ruleset; an unchanged ruleset is answered from the cache without solving.
    A ruleset with `readings:` is checked under each variant (`reading_units`), one after
    the other, and merged (`merged_readings`)."""
    cached, proofs, store = ruleset_cache(ruleset, options)
    if cached is not None:
        return cached
    start = time.perf_counter()
    units = reading_units(ruleset)
    twins = twin_units([unit for _, unit in units])
    last_use = {twins.get(u, u): u for u in range(len(units))}
    parts: list[Parts] = []
    runs = []
    for u, (choice, unit) in enumerate(units):
        t = twins.get(u)
        parts.append(_fresh_parts(unit, options, proofs, progress,
                                  None if t is None else parts[t]))
        if last_use[twins.get(u, u)] == u:
            # every query of this system and of its twins is answered
            from checker.engines.reach import release_cores
            release_cores(unit.system)
        runs.append((choice, assemble(unit, parts[u].props, joined(parts[u].scans),
                                      parts[u].seconds, parts[u].scope)))
    checked = merged_readings(ruleset, runs, time.perf_counter() - start)
    store(checked.result)
    return checked


# the scans that read only the transitions, rules' order and stats: a twin unit (below)
# takes them from its twin; the conflict and restatement scans read the constraints
TRANSITION_SCANS = ("order", "ordering")


def twin_units(units: list[Ruleset]) -> dict[int, int]:
    """For each reading variant whose system is an earlier unit's but for its constraints,
    facts and permissions (its readings change only what is declared, not what can happen
    nor what a property says), that earlier unit: the twin's properties, scope re-check and
    order scans are the same and are taken from it; only the conflict and restatement scans
    are run again. `reading_units` lets twins share one reachability core."""
    out: dict[int, int] = {}
    bare = [_transitions_only(u.system) for u in units]
    for i in range(1, len(units)):
        t = next((j for j in range(i) if j not in out and bare[j] == bare[i]), None)
        if t is not None:
            out[i] = t
    return out


def _transitions_only(system: System) -> System:
    return replace(system, constraints=(), facts=(), permissions=())


def is_twin_scan(item: str) -> bool:
    """`item` (one of `scan_items()`) is taken from a twin unit's results."""
    return item.removeprefix("scan:").partition("#")[0] in TRANSITION_SCANS


@dataclass
class Parts:
    """One unit's results before they are assembled."""

    props: list[PropertyResult]
    scans: dict[str, Scan]
    scope: tuple[list[Finding], list[PropertyResult]]
    seconds: float


def reading_units(ruleset: Ruleset) -> list[tuple[Choice, Ruleset]]:
    """What a ruleset is checked as: itself under its base selection, and for a ruleset
    with `readings:` each variant of them (`checker.plan.readings.variant_choices`), lowered;
    a variant whose transitions are an earlier unit's shares them (the same objects, so one
    reachability core serves both: `checker.engines.reach.shared_core`).
    The one-process path checks them in turn, the worker pool side by side
    (`checker.plan.executors`); `merged_readings` joins them either way."""
    units = [(ruleset.choice, ruleset)]
    if ruleset.readings:
        from checker.plan.readings import variant_choices
        from checker.spec.readings import lower_choice
        for choice in variant_choices(ruleset):
            unit = lower_choice(ruleset, choice)
            same = next((u for _, u in units if _transitions_only(u.system)
                         == _transitions_only(unit.system)), None)
            if same is not None:
                unit = replace(unit, system=replace(unit.system, vars=same.system.vars,
                                                    events=same.system.events,
                                                    rules=same.system.rules))
            units.append((choice, unit))
    return units


def merged_readings(ruleset: Ruleset, runs: list[tuple[Choice, CheckedRuleset]],
                    seconds: float) -> CheckedRuleset:
    """The checks of `reading_units(ruleset)`, in that order, as one result with the
    `ambiguity` findings (`checker.plan.readings.merge_readings`); a ruleset without
    readings is its one check."""
    base = runs[0][1]
    if not ruleset.readings:
        return base
    from checker.plan.readings import merge_readings
    result = merge_readings(ruleset, [(choice, c.result) for choice, c in runs], seconds)
    return CheckedRuleset(ruleset, result, base.coverage)


def ruleset_cache(ruleset: Ruleset, options: Options
                   ) -> tuple[CheckedRuleset | None, ProofStore | None,
                              Callable[[RulesetResult], None]]:
    """The whole-ruleset cache entry (if any), the per-property cache (None when not
    caching) and the function that stores a fresh result."""
    from checker.plan.store import Cache, ConeStore, digest, options_key
    from checker.results.codec import ruleset_result_from, ruleset_result_to

    cache = Cache(enabled=options.use_cache)
    proofs = ConeStore(options) if options.use_cache else None
    key = digest("ruleset", ruleset.id, ruleset.spec_text, ruleset.source.text,
                 options_key(options), f"shard {options.shard}")
    hit = cache.get(key)
    found = None
    if hit is not None:
        with contextlib.suppress(KeyError, TypeError, ValueError):  # damaged: check afresh
            found = CheckedRuleset(ruleset, ruleset_result_from(hit), coverage(ruleset))
    return found, proofs, lambda result: cache.put(key, ruleset_result_to(result))


def _fresh_parts(ruleset: Ruleset, options: Options, proofs: ProofStore | None,
                 progress: Progress | None = None, twin: Parts | None = None) -> Parts:
    """One unit checked; a twin unit (`twin_units`) runs only the scans that read the
    constraints and takes the rest from `twin`."""
    start = time.perf_counter()
    from checker.plan.widen import scope_recheck
    items = [item for item in scan_items() if in_shard(ruleset.id, item, options)]
    if twin is not None:
        scans = {item: (twin.scans[item] if is_twin_scan(item) else
                        run_scan(ruleset, item, options, proofs)) for item in items}
        return Parts(twin.props, scans, twin.scope, time.perf_counter() - start)
    props = check_properties(shard_system(ruleset, options), options, proofs,
                             progress=_bind(progress, ruleset.id))
    scans = {item: run_scan(ruleset, item, options, proofs) for item in items}
    scope = scope_recheck(ruleset, props, options, proofs)
    return Parts(props, scans, scope, time.perf_counter() - start)


def assemble(ruleset: Ruleset, props: list[PropertyResult], scans: list[Scan],
              seconds: float,
              scope: tuple[list[Finding], list[PropertyResult]] = ([], [])
              ) -> CheckedRuleset:
    """The ruleset's result from its property results, its conflict, order and
    ordering-rule scans and its scope re-check (`checker.plan.widen`)."""
    from checker.graph import structural_findings
    from checker.results import findings

    found = structural_findings(ruleset.system, props,
                                findings.from_properties(ruleset, props))
    props = list(props)
    found += scope[0]
    props += scope[1]
    for scan in scans:
        found += scan.findings
        # a candidate the engines could not decide is an UNKNOWN result, never "no finding"
        props += [PropertyResult(f"{u.kind}:{'+'.join(u.rules)}", u.kind, Status.UNKNOWN, None,
                                 u.reason, None, (), u.rules[0] if u.rules else "",
                                 f"possible {u.kind} between {', '.join(u.rules)}")
                  for u in scan.undecided]
    found.sort(key=lambda f: (f.kind, f.rules, f.states))
    return CheckedRuleset(ruleset, RulesetResult(ruleset.id, props, found, seconds),
                          coverage(ruleset))


def check_properties(system: System, options: Options, proofs: ProofStore | None = None,
                     progress: Callable[[str, int, int], None] | None = None,
                     recheck: bool = False) -> list[PropertyResult]:
    """Every property of `system`, cheapest evidence first.

    A proof kept in `proofs` for an unchanged cone of influence is reused
    (`checker.plan.store.ConeStore`).
    One shared search over macro steps runs for the rest: the system's exact reachability
    core (decision diagrams, `shared_core`) when it fits its node budget, else the explicit
    search (`interpret.explore_macro`). It finds every counterexample and witness, shortest
    in events, each replayed by the reference interpreter. What it leaves open goes to the
    symbolic engines (`engines.check_property`: induction, Houdini, Spacer, BMC). An
    invariant the search could not break is still proved by 1-induction when that closes it
    (and by Houdini, after an explicit search); otherwise, when the search was exhaustive,
    the exhaustive search itself is the proof (method "explicit"). UNKNOWN stays UNKNOWN.
    `recheck=True` (the scope re-check, `decide_property`): a proof of an invariant by
    exhaustion is neither tried by induction nor certified by Z3, and a reachability
    property the decision diagrams find reachable gets no witness trace (`core_verdicts`).
    """
    known, macro = shared_search(system, options, proofs, witnesses=not recheck)
    results: list[PropertyResult] = []
    total = len(system.properties)
    for i, prop in enumerate(system.properties):
        if progress is not None:
            progress(prop.id, i, total)
        results.append(decide_property(system, prop, options, known[prop.id], macro, proofs,
                                       recheck))
    if progress is not None:
        progress("", total, total)
    return results


def shared_search(system: System, options: Options, proofs: ProofStore | None = None,
                  witnesses: bool = True
                  ) -> tuple[dict[str, PropertyResult | None], Verdicts]:
    """The proofs of `system`'s properties kept in `proofs` (None: not kept), and the
    shared explicit search for the others (`check_properties`; `witnesses`:
    `core_verdicts`)."""
    from checker.interpret import explore_macro

    known = {p.id: proofs.lookup(system, p) if proofs is not None else None
             for p in system.properties}
    todo = [p for p in system.properties if known[p.id] is None]
    macro = core_verdicts(system, todo, options, witnesses)
    if macro is None:
        began = time.monotonic()
        macro = explore_macro(system, todo,
                              max_states=min(options.explicit_limit, options.search_states),
                              max_seconds=options.explicit_seconds)
        if not macro.complete and len(macro.hits) < len(todo) and \
                time.monotonic() - began >= options.explicit_seconds:
            # the wall-clock safety net stopped the search before its counted budget: what
            # it did not find is UNKNOWN for that reason, never left to depend on the clock
            macro = Expired(macro.complete, macro.macro_states, macro.hits, macro.symbolic,
                            why=f"the explicit search's wall-clock safety net "
                            f"({options.explicit_seconds:g} s) expired after "
                            f"{macro.macro_states} situations")
    return known, macro


def core_verdicts(system: System, props: list[Property], options: Options,
                  witnesses: bool = True) -> Verdicts | None:
    """The shared search's answer from the system's BDD reachability core
    (`checker.engines.reach.shared_core`): every reachable stable situation is known, so a
    property is hit (with a shortest event path) or decided by exhaustion. None when the
    core gave up within its node budget. Without `witnesses` (the scope re-check, which
    reports a reachability property only when it is no longer reachable) a reachability
    property the reachable set meets is `untraced`: no shortest path is looked for (the
    macro layers and the walk back were a tenth of Eldfall's check, spent on witnesses the
    re-check drops); an invariant's violation still gets its trace."""
    from checker.engines.reach import shared_core
    from checker.interpret import Verdicts

    core = shared_core(system, options.node_budget)
    if core is None:
        return None
    hits = {}
    untraced = set()
    for p in props:
        found = core.check(p, trace=witnesses or p.mode != "reachable")
        if found.status in ("violated", "reachable") and found.start is not None:
            hits[p.id] = (found.start, list(found.events))
        elif found.untraced:
            untraced.add(p.id)
    return Verdicts(True, core.stable_count(), hits, symbolic=True,
                    untraced=frozenset(untraced))


def decide_property(system: System, prop: Property, options: Options,
                    cached: PropertyResult | None, macro: Verdicts,
                    proofs: ProofStore | None = None, recheck: bool = False) -> PropertyResult:
    """One property's result, given its cached proof and the shared search
    (`check_properties`). With `recheck=True` an invariant proved by exhaustion is taken
    from the search as it is: no induction proof is tried and the decision diagrams' Z3
    certificate is not checked (method `decision-diagrams-unchecked`), nor is a
    reachability property the diagrams found reachable without a trace. Only the scope
    re-check asks for that (`checker.plan.widen.decide`): a widened invariant that still
    holds only shows that nothing changed and is reported nowhere. What it does report, a
    broken invariant (a replayed trace) or a "never reachable" (certified as in the main
    check), is obtained as in the main check."""
    from checker import engines
    from checker.engines import induction
    from checker.engines.base import Kind, to_result
    from checker.interpret import replay

    if cached is not None:     # a proof on an unchanged cone of influence
        return cached
    if isinstance(macro, Expired) and prop.id not in macro.hits:
        return PropertyResult(prop.id, prop.kind, Status.UNKNOWN, None,
                              StopReason.TIMEOUT.describe(macro.why), None, prop.states,
                              prop.source, prop.text)
    began = time.perf_counter()
    hit = macro.hits.get(prop.id)
    reach = prop.mode == "reachable"
    if hit is not None:
        start, path = hit
        trace = replay(system, start, path, prop,
                       expect="witness" if reach else "violation")
        # the search that found it: the decision-diagram core (`core_verdicts`) or the
        # shared explicit search; the trace is replayed by the interpreter either way
        found_by = Method.DECISION_DIAGRAMS if macro.symbolic else Method.EXPLICIT
        result = PropertyResult(prop.id, prop.kind,
                                Status.PROVED if reach else Status.VIOLATED,
                                found_by, "", trace, prop.states, prop.source, prop.text)
    elif prop.id in macro.untraced:
        # (the scope re-check only: reported nowhere, a witness would be dropped)
        result = PropertyResult(
            prop.id, prop.kind, Status.PROVED, Method.DECISION_DIAGRAMS_UNCHECKED,
            f"reachable: the exact reachable set of all {macro.macro_states} situations "
            f"meets it (no trace: only compared with the spec's own verdict)", None,
            prop.states, prop.source, prop.text)
    elif macro.complete and recheck and not reach:
        # (a "never reachable" is still certified below: the scope re-check reports it)
        result = PropertyResult(
            prop.id, prop.kind, Status.PROVED,
            Method.DECISION_DIAGRAMS_UNCHECKED if macro.symbolic else Method.EXPLICIT,
            f"exhaustive search of all {macro.macro_states} reachable situations "
            f"(not certified: only compared with the spec's own verdict)", None,
            prop.states, prop.source, prop.text)
    elif macro.complete and not reach:
        # every reachable situation is known and none breaks it: that is the proof (the
        # decision diagrams' with its Z3 certificate, `_exhaustion`). An induction proof is
        # still preferred when one is cheap (1-induction; Houdini only after an explicit
        # search), because it is made on the property's cone of influence and so is kept
        # in the per-property cache and reused after an edit outside that cone
        # (`checker.plan.store.cone_proof`), where a proof by exhaustion covers the whole
        # system. Tried with and without a cache, so that the method a report names never
        # depends on whether one is used.
        counted = replace(options, rlimit=min(options.rlimit, INDUCTION_RLIMIT)
                          if options.rlimit else INDUCTION_RLIMIT)
        outcome = induction.one_induction(system, prop, counted)
        if outcome.kind is not Kind.UNREACHABLE and not macro.symbolic:
            outcome = induction.houdini(system, prop, options)
        if outcome.kind is Kind.UNREACHABLE:
            result = to_result(prop, outcome)
        else:
            method, how = _exhaustion(system, prop, options, macro)
            result = PropertyResult(
                prop.id, prop.kind, Status.PROVED, method,
                f"exhaustive search of all {macro.macro_states} reachable situations{how}",
                None, prop.states, prop.source, prop.text)
    elif macro.complete:
        method, how = _exhaustion(system, prop, options, macro)
        result = PropertyResult(
            prop.id, prop.kind, Status.VIOLATED, method,
            f"never reachable: exhaustive search of all {macro.macro_states} reachable "
            f"situations{how}", None, prop.states, prop.source, prop.text)
    else:
        result = engines.check_property(system, prop, options, store=proofs)
    if options.timings:
        result = replace(result, seconds=time.perf_counter() - began)
    if proofs is not None:
        proofs.store(system, prop, result)
    return result


def _exhaustion(system: System, prop: Property, options: Options, macro: Verdicts
                ) -> tuple[Method, str]:
    """The method and the words of a proof by exhaustion: the explicit search's, or the
    decision diagrams' with its Z3 certificate (`checker.engines.reach.certify`: the
    reachable micro-state set is an inductive invariant that excludes the property's
    targets), checked within `options.cert_rlimit`; a refuted certificate raises
    `InternalError` (a bug)."""
    if not macro.symbolic:
        return Method.EXPLICIT, ""
    from checker.engines.reach import shared_core

    core = shared_core(system, options.node_budget)
    if core is None:
        raise InternalError("the decision diagrams answered, but the core is gone")
    cert = core.certify(prop, options.cert_rlimit, options.timeout_ms)
    if cert.status == "certified":
        return Method.DECISION_DIAGRAMS, " (decision diagrams, certified by Z3)"
    return Method.DECISION_DIAGRAMS_UNCHECKED, (
        f" (decision diagrams; certificate not checked: {cert.detail})")


def _bind(progress: Progress | None, ruleset: str) -> Callable[[str, int, int], None] | None:
    if progress is None:
        return None
    return lambda item, done, total: progress(ruleset, item, done, total)
