"""Checking a ruleset under each reading of its ambiguous sentences (`readings:`): which
combinations are checked (`variant_choices`) and how their results become one result with
`ambiguity` findings (`merge_readings`).

The scheme. The *base* selection takes, for every element with readings, its adopted
reading, else its first. Two elements interact directly when one writes what the other
reads or writes (two constraints interact when they constrain the same decision, two facts
when they set the same attribute); directly interacting elements form a group (the
connected components). An element *hits* a property when it writes in the property's cone
of influence (`checker.graph.analyze.cone_vars`, on the base system and on each
single-reading variant) or its readings give the property different formulas. The variants
checked are the base plus every combination of readings of each group's elements, and of
each property's hitting elements, with every other element at its base: the cost grows with
the sum over these sets, not the product of all readings.

Why it is sound for a property P: the verdict of P depends only on the part of the system in
P's cone (the slicing argument of `checker.graph.analyze._cone`), and an element that does
not hit P writes nothing in that cone, so the verdict of P under any full selection equals
its verdict under the same selection on P's hitting elements and the base elsewhere — a
variant that is checked. The cones are taken on the base and on the single-reading
variants; a combination of two readings could in principle widen a cone further (not
checked). The conflict and order scans are run on every variant too; a finding over the
whole decision point can involve elements of two groups that hit no property together,
which are then only checked with each other at their base.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from checker.ir import Choice, Reading, Ruleset, System, Transition, lvars
from checker.results import (
    GATED_KINDS,
    REACHABLE_KINDS,
    Finding,
    PropertyResult,
    RulesetResult,
    Status,
)

ALL_READINGS = "all"       # PropertyResult.readings: the same verdict under every reading


def variant_choices(ruleset: Ruleset) -> list[Choice]:
    """The combinations of readings checked besides the base (the module's scheme)."""
    base = dict(ruleset.choice)
    open_ = [r.element for r in ruleset.readings if not r.adopted]
    if not open_:
        return []
    sources = {r.element: {r.element, *r.read_with} for r in ruleset.readings}
    indexes: dict[str, list[int]] = {e: [base[e]] for e in open_}
    systems: dict[str, list[System]] = {e: [ruleset.system] for e in open_}
    for choice, system in ruleset.variants:
        (e, j), = [(e, j) for e, j in choice if base[e] != j]
        indexes[e].append(j)
        systems[e].append(system)
    reads: dict[str, set[str]] = {e: set() for e in open_}
    writes: dict[str, set[str]] = {e: set() for e in open_}
    for e in open_:
        for system in systems[e]:
            _touch(system, sources[e], reads[e], writes[e])
        _gated(systems[e], reads[e], writes[e])
    parent = {e: e for e in open_}

    def find(e: str) -> str:
        while parent[e] != e:
            e = parent[e]
        return e

    for a, b in itertools.combinations(open_, 2):
        if writes[a] & (reads[b] | writes[b]) or writes[b] & (reads[a] | writes[a]):
            parent[find(a)] = find(b)
    direct: dict[str, list[str]] = {}
    for e in open_:
        direct.setdefault(find(e), []).append(e)
    # the sets of elements whose readings are combined: each group of directly interacting
    # elements (for the scans and for what one reads of the other), and each property's
    # elements (those that write in its cone)
    together = [*direct.values(), *_through_properties(ruleset, open_, systems, writes)]
    out: list[Choice] = []
    for members in together:
        for picked in itertools.product(*(indexes[e] for e in members)):
            chosen = {**base, **dict(zip(members, picked, strict=True))}
            key = tuple(sorted(chosen.items()))
            if any(chosen[e] != base[e] for e in members) and key not in out:
                out.append(key)
    return sorted(out, key=lambda c: [j != base[e] for e, j in c][::-1] + [j for _, j in c])


def _touch(system: System, elements: set[str], reads: set[str], writes: set[str]) -> None:
    """What `elements` (one with readings and those read with it) read and write in
    `system`."""
    for t in (*system.events, *system.rules):
        if t.source in elements:
            reads |= lvars(t.guard)
            for a in t.effects:
                if not a.var.startswith("_"):
                    writes.add(a.var)
                reads |= lvars(a.value)
    for c in system.constraints:
        if c.source in elements:
            reads |= lvars(c.when)
            writes.add(f"decision:{c.decision}")
            writes.update(f"decision:{s}" for s in c.slots)   # `at_least_one`: every slot
    for f in system.facts:
        if f.source in elements:
            reads |= lvars(f.when)
            writes.add(f"fact:{f.attribute}")
    for p in system.properties:
        if p.source in elements:
            reads |= lvars(p.expr)
            writes.add(f"property:{p.id}")


def _gated(systems: list[System], reads: set[str], writes: set[str]) -> None:
    """What an element changes beyond its own transitions: a transition whose guard is not
    the same under each of its readings (an event whose declaration a constraint's reading
    permits or forbids), or that only some readings have, reaches what that transition
    writes, so the element writes that too. A reading that changes no guard (an
    obligation, or an `only` that lists every option) adds nothing here."""
    seen: dict[str, list[Transition]] = {}
    for system in systems:
        for t in (*system.events, *system.rules):
            seen.setdefault(t.id, []).append(t)
    for ts in seen.values():
        if len(ts) == len(systems) and len({t.guard for t in ts}) == 1:
            continue
        for t in ts:
            reads |= lvars(t.guard)
            writes.update(a.var for a in t.effects if not a.var.startswith("_"))


def _through_properties(ruleset: Ruleset, open_: list[str],
                        systems: dict[str, list[System]], writes: dict[str, set[str]]
                        ) -> list[list[str]]:
    """For each property, the elements that write in its cone of influence (taken on the
    base and on every single-reading variant) or whose readings give the property itself
    different formulas (a ruling reads the constraints in force on the decisions it rules
    on), when there are two or more: their readings are combined."""
    from checker.graph.analyze import cone_vars

    every = [ruleset.system, *(s for e in open_ for s in systems[e][1:])]
    out: list[list[str]] = []
    for prop in ruleset.system.properties:
        cone: set[str] = set()
        for system in every:
            same = next((p for p in system.properties if p.id == prop.id), None)
            if same is not None:
                cone |= cone_vars(system, same)
        cone |= {f"property:{prop.id}"}
        hit = [e for e in open_ if writes[e] & cone or _formulas(systems[e], prop.id) > 1]
        if len(hit) > 1 and hit not in out:
            out.append(hit)
    return out


# ============================================================================ merging

def _formulas(systems: list[System], prop: str) -> int:
    """How many different formulas property `prop` has over `systems`."""
    return len({p.expr for x in systems for p in x.properties if p.id == prop})


def _words(kind: str, status: Status) -> str:
    if kind in REACHABLE_KINDS:
        return {"proved": "reachable", "violated": "never reachable"}.get(status.value,
                                                                            "undecided")
    return {"proved": "holds", "violated": "broken"}.get(status.value, "undecided")


def _differs(base: Choice, choice: Choice) -> set[str]:
    b = dict(base)
    return {e for e, j in choice if b.get(e) != j}


def _responsible(base: Choice, flipped: list[Choice]) -> set[str]:
    """The elements whose readings flip a verdict: those every flipping variant changes
    (when there are some), else every element a flipping variant changes."""
    changed = [_differs(base, c) for c in flipped]
    common = set.intersection(*changed) if changed else set()
    return common or set().union(*changed)


def _label(ruleset: Ruleset, choice: Choice, elements: set[str]) -> str:
    labels = {r.element: r.labels for r in ruleset.readings}
    return "; ".join(f"'{labels[e][j]}'" for e, j in choice if e in elements)


def _sentence(ruleset: Ruleset, elements: set[str]) -> str:
    also = {f for r in ruleset.readings if r.element in elements for f in r.read_with}
    quotes = [q for e in [*sorted(elements), *sorted(also)] if e in ruleset.elements
              for q in ruleset.elements[e].quotes]
    shown = [f'"{q}"' for q in dict.fromkeys(quotes)]
    if not shown:
        return ", ".join(sorted(elements))
    text = shown[0] if len(shown) == 1 else \
        "the sentences " + ", ".join(shown[:-1]) + " and " + shown[-1]
    return text if len(text) <= 300 else text[:297] + "..."


def merge_readings(ruleset: Ruleset, runs: list[tuple[Choice, RulesetResult]],
                   seconds: float) -> RulesetResult:
    """One result from the base run (first) and the variant runs: a verdict or finding the
    same under every reading is reported once ("under all readings"); one that differs is
    reported as it is under the reading where it breaks, with an `ambiguity` finding."""
    base_choice, base = runs[0]
    props: list[PropertyResult] = []
    found: list[Finding] = []
    for p in base.properties:
        same = [(c, next((q for q in r.properties if q.id == p.id), None)) for c, r in runs]
        differ = [(c, q) for c, q in same if q is not None and q.status is not p.status]
        if not differ:
            props.append(replace(p, readings=ALL_READINGS) if len(runs) > 1 else p)
            continue
        elements = _responsible(base_choice, [c for c, _ in differ])
        # reported as it is under the reading where it breaks (violated, else undecided),
        # the base's own reading included
        present = [(c, q) for c, q in same if q is not None]
        worst = next((q for _, q in present if q.status is Status.VIOLATED),
                     next((q for _, q in present if q.status is Status.UNKNOWN),
                          differ[0][1]))
        where = next(c for c, q in present if q is worst)
        props.append(replace(worst, readings=_label(ruleset, where, elements)))
        if p.kind not in GATED_KINDS:
            continue       # a sanity check: its finding (dead rule, ...) shows the difference
        listed = [(c, q) for c, q in same if q is not None
                  and _differs(base_choice, c) <= elements]
        detail = tuple((f"reading {_label(ruleset, c, elements)}", _words(q.kind, q.status))
                       for c, q in listed)
        broken = next((q for _, q in listed if q.trace is not None
                       and q.status is (Status.PROVED if q.kind in REACHABLE_KINDS
                                        else Status.VIOLATED)), None)
        found.append(Finding(
            "ambiguity", tuple(sorted(elements | {p.source})), p.states,
            f"{_sentence(ruleset, elements)} can be read {len(listed)} ways, and property "
            f"{p.source!r} depends on which: "
            + "; ".join(f"{label}: {verdict}" for label, verdict in detail),
            trace=broken.trace if broken is not None else None, detail=detail))
    known = {p.id for p in base.properties}
    for choice, result in runs[1:]:       # a property only some readings have (vacuity:)
        for q in result.properties:
            if q.id not in known:
                known.add(q.id)
                props.append(replace(q, readings=_label(ruleset, choice,
                                                        _differs(base_choice, choice))))
    found += _merge_findings(ruleset, runs)
    for r in ruleset.readings:
        found += _reading_notes(ruleset, r)
    found.sort(key=lambda f: (f.kind, f.rules, f.states))
    return RulesetResult(base.ruleset, props, found, seconds)


def _key(f: Finding) -> tuple[str, tuple[str, ...], tuple[str, ...], bool]:
    return (f.kind, f.rules, f.states, f.resolved)


def _merge_findings(ruleset: Ruleset, runs: list[tuple[Choice, RulesetResult]]
                    ) -> list[Finding]:
    """Every finding of every run, once; one that only some readings have is reported as it
    is under such a reading, and each ambiguous sentence (the elements responsible) gets one
    `ambiguity` finding listing the findings that depend on it."""
    base_choice = runs[0][0]
    where: dict[tuple[str, tuple[str, ...], tuple[str, ...], bool],
                list[tuple[Choice, Finding]]] = {}
    for choice, result in runs:
        for f in result.findings:
            where.setdefault(_key(f), []).append((choice, f))
    out: list[Finding] = []
    depends: dict[frozenset[str], list[tuple[set[Choice], Finding]]] = {}
    for present in where.values():
        first = present[0][1]
        if len(present) == len(runs):
            out.append(first)
            continue
        have = {c for c, _ in present}
        flipped = [c for c, _ in runs if (c in have) != (base_choice in have)]
        elements = _responsible(base_choice, flipped)
        choice, shown = next(((c, f) for c, f in present if c != base_choice), present[0])
        label = _label(ruleset, choice, elements)
        out.append(replace(shown, message=f"{shown.message} (under the reading {label})"))
        depends.setdefault(frozenset(elements), []).append((have, shown))
    for group, found in depends.items():
        out.append(_ambiguity(ruleset, runs, set(group), found))
    return out


def _ambiguity(ruleset: Ruleset, runs: list[tuple[Choice, RulesetResult]],
               elements: set[str], found: list[tuple[set[Choice], Finding]]) -> Finding:
    """The `ambiguity` finding of one sentence (`elements`) and the findings that only some
    of its readings have: with one such finding, it names that finding's rules and says
    whether each reading has it; with several, it names the sentence's elements and lists,
    per reading, the findings it has and those it has not."""
    base_choice = runs[0][0]
    readings = [c for c, _ in runs if _differs(base_choice, c) <= elements]
    sentence = _sentence(ruleset, elements)
    if len(found) == 1:
        ((have, shown),) = found
        detail = tuple((f"reading {_label(ruleset, c, elements)}",
                        "found" if c in have else "not found") for c in readings)
        return Finding(
            "ambiguity", tuple(sorted(elements | set(shown.rules))), shown.states,
            f"{sentence} can be read {len(detail)} ways, and the "
            f"{shown.kind} finding ({shown.message}) depends on which: "
            + "; ".join(f"{a}: {b}" for a, b in detail),
            trace=shown.trace, detail=detail)
    found = sorted(found, key=lambda hf: (hf[1].kind, hf[1].rules))

    def name(f: Finding) -> str:   # one clash can be open under a reading, settled under another
        settled = f", settled by {', '.join(f.resolved_by)}" if f.resolved else ""
        return f"{f.kind} ({' vs '.join(f.rules)}{settled})"

    rows, counts = [], []
    for c in readings:
        has = [name(f) for have, f in found if c in have]
        lacks = [name(f) for have, f in found if c not in have]
        label = f"reading {_label(ruleset, c, elements)}"
        counts.append(f"{label} has {len(has)} of them")
        rows.append((label, "; ".join(has) + (" · " if has and lacks else "")
                     + ("not: " + "; ".join(lacks) if lacks else "")))
    states = tuple(sorted({s for _, f in found for s in f.states}))
    return Finding(
        "ambiguity", tuple(sorted(elements)), states,
        f"{sentence} can be read {len(rows)} ways, and {len(found)} findings depend on which: "
        + "; ".join(counts) + " (each finding is reported under the reading that has it)",
        trace=found[0][1].trace, detail=tuple(rows))


def _reading_notes(ruleset: Ruleset, r: Reading) -> list[Finding]:
    """The adopted reading (a resolved ambiguity) and readings that formalize alike."""
    out: list[Finding] = []
    sentence = _sentence(ruleset, {r.element})
    if r.adopted:
        out.append(Finding(
            "ambiguity", (r.element,), (),
            f"{sentence} can be read {len(r.labels)} ways ("
            + ", ".join(f"'{label}'" for label in r.labels)
            + f"); adopted: '{r.adopted}' ({r.adopt_note}); only that reading is checked",
            resolved=True, resolved_by=(f"{r.element}.adopt" if r.adopt_note.startswith('"')
                                        else r.element,),
            detail=tuple((f"reading '{label}'", "adopted" if label == r.adopted
                          else "not checked") for label in r.labels)))
    for a, b in r.identical:
        out.append(Finding(
            "identical-readings", (r.element,), (),
            f"the readings '{a}' and '{b}' of {r.element!r} formalize {sentence} the same "
            "way: nothing is ambiguous there", detail=((f"reading '{a}'", "same"),
                                                       (f"reading '{b}'", "same"))))
    return out
