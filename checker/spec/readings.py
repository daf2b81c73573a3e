"""Readings: a sentence with several reasonable readings, each an alternative formalization of
the same cite (`readings:`), optionally resolved by `adopt:` (docs/spec-language.md
"Readings"). `lower_ruleset` lowers the base selection (the adopted reading, else the
first, of every such element) and one variant per other reading; `lower_choice` lowers any
combination. A spec without readings is lowered once, exactly as before.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from checker.diagnostics import Diagnostic
from checker.errors import SpecError
from checker.ir import Choice, PathKey, Reading, Ruleset, System
from checker.spec.lower import lower
from checker.spec.lower_expr import did_you_mean
from checker.spec.schema import SpecDoc
from checker.spec.source import SourceMap, SpecTree

# the formal fields a reading replaces, per section; the rest (id, cite, overrides, scope)
# is shared by every reading
FORMAL: dict[str, tuple[str, ...]] = {
    "events": ("when", "do"),
    "rules": ("on", "when", "do", "repeat_while"),
    "constraints": ("when", "only", "forbid", "must", "at_least_one"),
    "facts": ("when", "set"),
    "properties": ("always", "never", "reachable", "terminal", "after"),
    "may": ("when", "grants"),
}

Key = tuple[str, int]          # (section, index) of an element in the spec


def _noun(section: str) -> str:
    """What one element of `section` is called in a message."""
    return "permission" if section == "may" else section.rstrip("s")


def lower_ruleset(tree: SpecTree, doc: SpecDoc) -> Ruleset:
    """`lower(tree, doc)`, with every element's readings lowered and checked too."""
    diags: list[Diagnostic] = []
    items = _reading_items(tree, doc, diags)
    if not items and not diags:
        ruleset = lower(tree, doc)                 # the common case: no readings at all
        _check_used(tree, doc, set(ruleset.conditions_used))
        return ruleset
    followers = _followers(tree, items, diags)
    items = {key: item for key, item in items.items() if key not in followers}
    base = {key: _base_index(item) for key, item in items.items()}
    try:
        ruleset = _lower(tree, doc, base, items, followers)
    except SpecError as exc:
        raise SpecError(diags + [d for d in exc.diagnostics if d not in diags]) from None
    used = set(ruleset.conditions_used)
    singles: dict[Key, list[System | None]] = {}
    for key, item in items.items():
        systems: list[System | None] = []
        for j in range(len(item.readings)):
            if j == base[key]:
                systems.append(ruleset.system)
                continue
            try:
                single = _lower(tree, doc, {**base, key: j}, items, followers)
            except SpecError as exc:
                diags += [d for d in exc.diagnostics if d not in diags]
                systems.append(None)
                continue
            used |= single.conditions_used
            systems.append(single.system)
        singles[key] = systems
    if diags:
        raise SpecError(diags)
    _check_used(tree, doc, used)
    readings, variants = [], []
    for key, item in items.items():
        systems = singles[key]
        labels = tuple(str(r.label) for r in item.readings)
        same = tuple((labels[a], labels[b]) for a in range(len(labels))
                     for b in range(a + 1, len(labels)) if systems[a] == systems[b])
        adopted = item.adopt.label if item.adopt is not None else ""
        readings.append(Reading(item.id, key[0], labels, base[key], adopted,
                                _adopt_note(item), same,
                                tuple(f.id for f, _ in followers.values()
                                      if f.read_with == item.id)))
        if adopted:
            continue                               # only the adopted reading is checked
        seen = [ruleset.system]
        for j, system in enumerate(systems):
            if j != base[key] and system is not None and system not in seen:
                seen.append(system)
                variants.append((_choice(items, {**base, key: j}), system))
    return replace(ruleset, doc=doc, tree=tree, readings=tuple(readings),
                   choice=_choice(items, base), variants=tuple(variants))


def lower_choice(ruleset: Ruleset, choice: Choice) -> Ruleset:
    """The ruleset with the readings `choice` names (the others at their base)."""
    for known, system in ruleset.variants:
        if known == choice:
            return replace(ruleset, system=system, choice=choice)
    if choice == ruleset.choice or ruleset.doc is None or ruleset.tree is None:
        return ruleset
    lowered = lower_doc(ruleset.tree, ruleset.doc, choice)
    return replace(ruleset, system=lowered.system, choice=choice)


def lower_doc(tree: SpecTree, doc: SpecDoc, choice: Choice) -> Ruleset:
    """`doc` lowered with the readings `choice` names (the others at their base): how a
    changed document (the widened one of the scope re-check) keeps a variant's readings."""
    items = _reading_items(tree, doc, [])
    if not items:
        return lower(tree, doc)
    followers = _followers(tree, items, [])
    items = {key: item for key, item in items.items() if key not in followers}
    by_id = {item.id: key for key, item in items.items()}
    picked = {key: _base_index(item) for key, item in items.items()}
    picked.update({by_id[e]: j for e, j in choice})
    return _lower(tree, doc, picked, items, followers)


def _check_used(tree: SpecTree, doc: SpecDoc, used: set[str]) -> None:
    """RP222: a named condition that no element uses, under any of its readings."""
    unused = [name for name in doc.conditions if name not in used]
    if unused:
        raise SpecError([Diagnostic(
            "RP222", f"the named condition {name!r} is never used: no element of the spec "
            "reads it", tree.source_map.at(("conditions", name, "<key>")),
            "use it where the text says it, or remove it") for name in unused])


def label_of(ruleset: Ruleset, element: str, index: int) -> str:
    return next(r.labels[index] for r in ruleset.readings if r.element == element)


# ============================================================================ validation

def _reading_items(tree: SpecTree, doc: SpecDoc, diags: list[Diagnostic]) -> dict[Key, Any]:
    """The elements with readings, by (section, index); problems go to `diags` (RP219)."""
    def err(code: str, message: str, path: PathKey, fix: str | None = None) -> None:
        diags.append(Diagnostic(code, message, tree.source_map.at(path), fix))

    out: dict[Key, Any] = {}
    for section, formal in FORMAL.items():
        noun = _noun(section)
        for i, item in enumerate(getattr(doc, section)):
            path: PathKey = (section, i)
            if not item.readings:
                if item.adopt is not None:
                    err("RP219", f"{noun} {item.id!r} adopts a reading but has no 'readings'",
                        (*path, "adopt"), "give the readings it chooses among, or drop "
                        "'adopt'")
                continue
            ok = True
            if item.cite is None:
                err("RP219", f"{noun} {item.id!r} has readings but no cite: readings are "
                    "readings of a sentence", (*path, "readings"),
                    "cite the sentence the readings read")
                ok = False
            both = sorted(item.model_fields_set & set(formal))
            if both:
                err("RP219", f"{noun} {item.id!r} gives {both[0]!r} both itself and in its "
                    "readings", (*path, both[0]), f"move {both[0]!r} into each reading")
                ok = False
            if len(item.readings) < 2:
                err("RP219", f"{noun} {item.id!r} has only one reading", (*path, "readings"),
                    "give at least two readings, or write the fields on the element itself")
                ok = False
            labels: dict[str, int] = {}
            for j, r in enumerate(item.readings):
                if not r.label or not str(r.label).strip():
                    err("RP219", f"reading {j + 1} of {noun} {item.id!r} has no label",
                        (*path, "readings", j), "give it a short label in rulebook words, "
                        "e.g. label: \"one Wait removes every kind of marker\"")
                    ok = False
                elif r.label in labels:
                    err("RP219", f"two readings of {noun} {item.id!r} are labelled "
                        f"{r.label!r}", (*path, "readings", j, "label"),
                        "give each reading its own label")
                    ok = False
                else:
                    labels[r.label] = j
                if section == "may" and r.grants is None:
                    err("RP219", f"reading {j + 1} of permission {item.id!r} grants nothing: "
                        "each reading says what it grants", (*path, "readings", j),
                        "give 'grants:'; `grants: {}` if under this reading the sentence "
                        "grants nothing")
                    ok = False
            if item.adopt is not None:
                adopt = item.adopt
                if adopt.label not in labels:
                    hint = did_you_mean(adopt.label, list(labels))
                    err("RP219", f"{noun} {item.id!r} adopts {adopt.label!r}, which is not one "
                        f"of its readings {list(labels)}", (*path, "adopt", "label"),
                        hint or f"adopt one of {list(labels)}")
                    ok = False
                if (adopt.cite is None) == (adopt.ruling is None):
                    err("RP219", f"the adoption of {adopt.label!r} must say what resolves it",
                        (*path, "adopt"), "quote the source with 'cite:' (an FAQ, a ruling, "
                        "the text's own example) or write 'ruling: ...'")
                    ok = False
            if ok:
                out[(section, i)] = item
    return out


def _followers(tree: SpecTree, items: dict[Key, Any], diags: list[Diagnostic]
               ) -> dict[Key, tuple[Any, Key]]:
    """The elements read with another (`read_with: ID`): the same words in another sentence,
    read as that element's are. Each maps to (itself, the key of the element it is read
    with); its readings must carry exactly that element's labels, and it adopts nothing of
    its own (RP219)."""
    by_id = {item.id: key for key, item in items.items()}
    out: dict[Key, tuple[Any, Key]] = {}
    for key, item in items.items():
        if item.read_with is None:
            continue
        noun = _noun(key[0])
        path: PathKey = (*key, "read_with")
        lead = by_id.get(item.read_with)
        if lead is None or items[lead].read_with is not None or lead == key:
            known = [i.id for k, i in items.items() if i.read_with is None]
            hint = did_you_mean(item.read_with, known)
            diags.append(Diagnostic(
                "RP219", f"{noun} {item.id!r} is read with {item.read_with!r}, which is not "
                "an element with readings of its own", tree.source_map.at(path),
                hint or f"name one of {known}"))
            continue
        mine = sorted(str(r.label) for r in item.readings)
        theirs = sorted(str(r.label) for r in items[lead].readings)
        if mine != theirs:
            diags.append(Diagnostic(
                "RP219", f"{noun} {item.id!r} is read with {item.read_with!r}, but its "
                f"readings are labelled {mine}, not {theirs}", tree.source_map.at(path),
                "give it one reading per reading of the element it is read with, with the "
                "same labels"))
            continue
        if item.adopt is not None:
            diags.append(Diagnostic(
                "RP219", f"{noun} {item.id!r} is read with {item.read_with!r} and adopts a "
                "reading of its own", tree.source_map.at((*key, "adopt")),
                f"adopt the reading on {item.read_with!r}: it decides both"))
            continue
        out[key] = (item, lead)
    return out


def _base_index(item: Any) -> int:
    if item.adopt is None:
        return 0
    return next(j for j, r in enumerate(item.readings) if r.label == item.adopt.label)


def _adopt_note(item: Any) -> str:
    adopt = item.adopt
    if adopt is None:
        return ""
    if adopt.ruling is not None:
        return f"ruling: {adopt.ruling}"
    cites = adopt.cite if isinstance(adopt.cite, list) else [adopt.cite]
    return " ".join(f'"{c if isinstance(c, str) else c.quote}"' for c in cites)


def _choice(items: dict[Key, Any], picked: dict[Key, int]) -> Choice:
    return tuple(sorted((items[key].id, j) for key, j in picked.items()))


# ============================================================================ lowering

def _lower(tree: SpecTree, doc: SpecDoc, picked: dict[Key, int],
           leaders: dict[Key, Any] | None = None,
           followers: dict[Key, tuple[Any, Key]] | None = None) -> Ruleset:
    """`doc` with each element's reading `picked[key]` written into its formal fields (an
    element read with another takes the reading of the same label), the source map
    pointing those fields at the reading, lowered."""
    picked = dict(picked)
    for at, (follower, lead) in (followers or {}).items():
        label = (leaders or {})[lead].readings[picked[lead]].label
        picked[at] = next(j for j, r in enumerate(follower.readings) if r.label == label)
    updates: dict[str, list[Any]] = {}
    where = dict(tree.source_map.locations)
    for (section, i), j in picked.items():
        items = updates.setdefault(section, list(getattr(doc, section)))
        item = items[i]
        reading = item.readings[j]
        fields = {f: getattr(reading, f) for f in FORMAL[section]}
        if section == "constraints" and reading.overrides:   # added to the element's own
            fields["overrides"] = [*item.overrides, *reading.overrides]
        items[i] = item.model_copy(update={**fields, "readings": []})
        prefix = (section, i, "readings", j)
        for key, loc in tree.source_map.locations.items():
            if key[:4] == prefix and len(key) > 4:
                where[(section, i, *key[4:])] = loc
    chosen = doc.model_copy(update=updates)
    return lower(replace(tree, source_map=SourceMap(tree.source_map.file, where)), chosen)
