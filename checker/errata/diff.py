"""The semantic diff of two versions of a ruleset: what a change does, not how its text
changed. Verdicts that flipped, findings new / gone / changed (by fingerprint), States
reachable in only one version (with the witness), spec elements added / removed / changed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from checker.results import REACHABLE_KINDS, Finding, PropertyResult, Status, Trace
from checker.results.run import CheckedRuleset, Run

_SECTIONS = ("meta", "events", "rules", "prevents", "constraints", "may", "facts", "modifiers",
             "procedures", "properties", "rulings")


@dataclass(frozen=True)
class VerdictChange:
    ruleset: str
    property: str
    kind: str
    old: str          # status, or "absent"
    new: str
    trace: Trace | None   # the new version's counterexample / witness, if any


@dataclass(frozen=True)
class FindingChange:
    ruleset: str
    change: str       # new | gone | changed
    finding: Finding
    before: Finding | None = None


@dataclass(frozen=True)
class ElementChange:
    ruleset: str
    element: str
    section: str
    change: str       # added | removed | changed


@dataclass(frozen=True)
class SpecDiff:
    verdicts: tuple[VerdictChange, ...]
    findings: tuple[FindingChange, ...]
    elements: tuple[ElementChange, ...]
    rulesets_added: tuple[str, ...]
    rulesets_removed: tuple[str, ...]

    @property
    def introduces_problems(self) -> bool:
        """A new violation, or a new (or newly unresolved) unresolved finding."""
        bad_verdict = any(v.new == Status.VIOLATED.value and v.kind not in REACHABLE_KINDS
                          for v in self.verdicts)
        bad_finding = any(f.change in ("new", "changed") and not f.finding.resolved
                          for f in self.findings)
        return bad_verdict or bad_finding

    @property
    def empty(self) -> bool:
        return not (self.verdicts or self.findings or self.elements or self.rulesets_added
                    or self.rulesets_removed)


def diff_runs(old: Run, new: Run) -> SpecDiff:
    olds = {c.ruleset.id: c for c in old.checked}
    news = {c.ruleset.id: c for c in new.checked}
    verdicts: list[VerdictChange] = []
    findings: list[FindingChange] = []
    elements: list[ElementChange] = []
    for rid in sorted(olds.keys() & news.keys()):
        verdicts += _verdicts(rid, olds[rid], news[rid])
        findings += _findings(rid, olds[rid], news[rid])
        elements += _elements(rid, olds[rid], news[rid])
    return SpecDiff(tuple(verdicts), tuple(findings), tuple(elements),
                    tuple(sorted(news.keys() - olds.keys())),
                    tuple(sorted(olds.keys() - news.keys())))


def _verdicts(rid: str, old: CheckedRuleset, new: CheckedRuleset) -> list[VerdictChange]:
    a = {p.id: p for p in old.result.properties}
    b = {p.id: p for p in new.result.properties}
    out: list[VerdictChange] = []
    for pid in sorted(a.keys() | b.keys()):
        pa, pb = a.get(pid), b.get(pid)
        sa, sb = _status(pa), _status(pb)
        if sa != sb:
            kind = (pb or pa).kind  # type: ignore[union-attr]
            trace = pb.trace if pb is not None else None
            if trace is None and pa is not None and kind in REACHABLE_KINDS:
                trace = pa.trace  # reachable only in the old version: show how it was
            out.append(VerdictChange(rid, pid, kind, sa, sb, trace))
    return out


def _status(p: PropertyResult | None) -> str:
    return p.status.value if p is not None else "absent"


def _findings(rid: str, old: CheckedRuleset, new: CheckedRuleset) -> list[FindingChange]:
    a = {f.fingerprint(rid): f for f in old.result.findings}
    b = {f.fingerprint(rid): f for f in new.result.findings}
    out: list[FindingChange] = []
    for fp in sorted(a.keys() & b.keys()):
        if a[fp].resolved != b[fp].resolved:
            out.append(FindingChange(rid, "changed", b[fp], a[fp]))
    gone = {fp: a[fp] for fp in a.keys() - b.keys()}
    for fp in sorted(b.keys() - a.keys()):
        f = b[fp]
        twin = next((k for k, g in gone.items() if (g.kind, g.rules) == (f.kind, f.rules)), None)
        if twin is not None:
            out.append(FindingChange(rid, "changed", f, gone.pop(twin)))
        else:
            out.append(FindingChange(rid, "new", f))
    out += [FindingChange(rid, "gone", g) for _, g in sorted(gone.items())]
    return out


def _elements(rid: str, old: CheckedRuleset, new: CheckedRuleset) -> list[ElementChange]:
    a, b = _declarations(old), _declarations(new)
    out: list[ElementChange] = []
    for key in sorted(a.keys() | b.keys()):
        section, ident = key
        if key not in a:
            out.append(ElementChange(rid, ident, section, "added"))
        elif key not in b:
            out.append(ElementChange(rid, ident, section, "removed"))
        elif a[key] != b[key]:
            out.append(ElementChange(rid, ident, section, "changed"))
    return out


def _declarations(c: CheckedRuleset) -> dict[tuple[str, str], str]:
    doc = c.ruleset.doc
    if doc is None:
        return {}
    out: dict[tuple[str, str], str] = {}
    for section in _SECTIONS:
        for item in getattr(doc, section):
            out[(section, item.id)] = _canon(item.model_dump(by_alias=True))
    for section in ("states", "vars", "stats", "decisions", "inputs"):
        for key, item in getattr(doc, section).items():
            dumped = item.model_dump() if hasattr(item, "model_dump") else item
            out[(section, key)] = _canon(dumped)
    return out


def _canon(data: Any) -> str:
    return json.dumps(data, sort_keys=True, default=str)
