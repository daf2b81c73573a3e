"""The scope re-check: every property proved at the spec's ranges decided again with the
ranges widened (`checker.spec.widen`); a verdict that changes is a `scope-sensitive`
finding naming the range(s) it depends on, with the trace on the widened system.

The re-check decides on the widened system as the main check does
(`checker.plan.tasks.check_properties`: the BDD reachability core within its node budget,
else the explicit search and the Z3 engines, every trace replayed by the interpreter), with
the same counted budgets, except that an invariant still proved on the widened system by
exhaustion is not certified by Z3 nor tried by induction, and a reachability property the
decision diagrams still find reachable gets no witness trace (`recheck=True`): each only
shows that the verdict did not change and is never reported. A changed verdict, which is
reported, is obtained exactly as in the main check (a replayed trace, or a certified
"never reachable"). First every proved property is decided once with every
widenable range widened; only for those whose verdict changed, each range in the
property's cone of influence is then widened alone, to say which one the proof depends on.
A property the engines cannot decide on the widened system is an UNKNOWN result
(`scope:<id>`), never a clean one.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from checker.ir import Property, Ruleset, System
from checker.options import Options
from checker.results import Finding, PropertyResult, Status

if TYPE_CHECKING:
    from checker.engines.base import ProofStore
    from checker.spec.widen import Range

ITEM = "scope:widen"     # the work item's name (`checker.plan.executors`)


def scope_recheck(ruleset: Ruleset, results: list[PropertyResult], options: Options,
                  proofs: ProofStore | None = None
                  ) -> tuple[list[Finding], list[PropertyResult]]:
    """The `scope-sensitive` findings of `ruleset` given its property `results`, and an
    UNKNOWN result for each proved property the widened check could not decide."""
    from checker.errors import SpecError
    from checker.spec.widen import ranges, widened

    proved = {r.id for r in results if r.status is Status.PROVED}
    if not options.widen or not proved or ruleset.doc is None:
        return [], []
    every = ranges(ruleset.doc)
    by_id = {r.id: r for r in results}
    try:
        wide = widened(ruleset, every)
    except SpecError as exc:   # widening only grows domains; if it ever fails, say so
        why = f"the widened spec does not load: {exc.diagnostics[0].message}"
        return [], [_unknown(by_id[i], why, every) for i in sorted(proved)]
    if wide is None:
        return [], []
    again = decide(wide.system, proved, options, proofs)
    changed = [r for r in again.values() if r.status is Status.VIOLATED]
    unknown = [_unknown(by_id[r.id], r.reason, every) for r in again.values()
               if r.status is Status.UNKNOWN]
    found: list[Finding] = []
    blame = _blame(ruleset, wide.system, changed, every, options, proofs)
    for r in changed:
        culprits, result = blame.get(r.id, (every, r))
        prop = next(p for p in wide.system.properties if p.id == r.id)
        el = ruleset.elements.get(prop.source)
        claim = el.quotes[0] if el is not None and el.quotes and prop.id == prop.source \
            else by_id[r.id].text or prop.text or prop.id
        found.append(_finding(prop, claim, result, culprits))
    return found, unknown


def decide(system: System, ids: Collection[str], options: Options,
           proofs: ProofStore | None) -> dict[str, PropertyResult]:
    """The properties `ids` of `system` decided as the main check decides them."""
    from checker.engines.reach import release_cores
    from checker.plan.tasks import check_properties
    sub = replace(system, properties=tuple(p for p in system.properties if p.id in ids))
    out = {r.id: r for r in check_properties(sub, options, proofs, recheck=True)}
    release_cores(sub)                  # (a widened system is decided once)
    return out


def _in_cone(system: System, prop: Property, every: list[Range]) -> list[Range]:
    """The ranges among `every` whose variables are in `prop`'s cone of influence (only they
    can change its verdict)."""
    from checker.graph.analyze import cone_vars
    names = cone_vars(system, prop)
    touched = set()
    for v in system.vars:
        if v.name in names:
            touched.add(("markers", v.state) if v.kind == "marker" else ("var", v.decl))
    return [r for r in every if (r.kind, r.name) in touched]


def _blame(ruleset: Ruleset, wide: System, changed: list[PropertyResult],
           every: list[Range], options: Options, proofs: ProofStore | None
           ) -> dict[str, tuple[list[Range], PropertyResult]]:
    """For each changed property: the ranges that change it when widened alone (all of its
    cone's ranges together when none does alone), and the result to report (on the system
    with only that range widened, when there is one)."""
    from checker.spec.widen import widened

    candidates = {r.id: _in_cone(wide, next(p for p in wide.properties if p.id == r.id),
                                 every) or every for r in changed}
    alone: dict[str, list[tuple[Range, PropertyResult]]] = {r.id: [] for r in changed}
    for rng in every:
        ids = [i for i, c in candidates.items() if rng in c and len(c) > 1]
        if not ids:
            continue
        one = widened(ruleset, [rng])
        if one is None:
            continue
        for i, res in decide(one.system, ids, options, proofs).items():
            if res.status is Status.VIOLATED:
                alone[i].append((rng, res))
    out: dict[str, tuple[list[Range], PropertyResult]] = {}
    for r in changed:
        cands = candidates[r.id]
        hits = alone[r.id]
        if len(cands) == 1:
            out[r.id] = (cands, r)
        elif len(hits) == 1:
            out[r.id] = ([hits[0][0]], hits[0][1])
        elif hits:
            out[r.id] = ([h[0] for h in hits], r)
        else:
            out[r.id] = (cands, r)
    return out


def _finding(prop: Property, claim: str, after: PropertyResult,
             culprits: list[Range]) -> Finding:
    bounds = " and ".join(r.bound() for r in culprits)
    wider = " and ".join(r.wider() for r in culprits)
    if prop.mode == "reachable":
        fails = "it can never happen"
    elif after.trace is not None:
        fails = "it breaks (the trace replays it on the widened spec)"
    else:
        fails = "it no longer holds"
    message = f"{prop.id}: {claim!r} is proved only because {bounds}; with {wider} {fails}"
    detail = (("property", prop.id),
              *((f"range of {r.noun}", f"{r.lo}..{r.hi} widened to {r.lo}..{r.wide}")
                for r in culprits),
              ("with the range widened", after.reason or (
                  f"broken in {len(after.trace.steps) - 1} steps (the trace)"
                  if after.trace is not None else "no longer holds")))
    # the property first (the finding is located there), then the ranges' declarations
    elements = (prop.source, *sorted({f"vars:{r.name}" if r.kind == "var"
                                      else f"states:{r.name}" for r in culprits}
                                     - {prop.source}))
    return Finding("scope-sensitive", elements, tuple(sorted(prop.states)), message,
                   trace=after.trace, detail=detail)


def _unknown(before: PropertyResult, reason: str, every: list[Range]) -> PropertyResult:
    wider = ", ".join(r.wider() for r in every)
    return PropertyResult(
        f"scope:{before.id}", "scope-sensitive", Status.UNKNOWN, None,
        f"not decided with every range widened ({wider}): {reason}", None,
        before.states, before.source,
        f"{before.text or before.id} (with every range widened)")
