"""The semantic diff of two versions of a ruleset: what a change does, not how its text
changed. Verdicts that flipped, findings new / gone / changed (by fingerprint), States
reachable in only one version (with the witness), spec elements added / removed / changed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from checker.results import REACHABLE_KINDS, Finding, PropertyResult, Status, Trace
from checker.results.run import CheckedRuleset, Run

if TYPE_CHECKING:
    from checker.engines.behaviour import BehaviourChange, BehaviourDiff

_SECTIONS = ("meta", "events", "rules", "ordering", "prevents", "constraints", "may", "facts",
             "modifiers", "procedures", "properties", "rulings")


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


def behaviour_fingerprint(ruleset: str, change: BehaviourChange) -> str:
    """The identity of a behaviour change in `--accept` files (stable across runs)."""
    return hashlib.sha256(f"{ruleset}|{change.key()}".encode()).hexdigest()[:16]


def gates(change: BehaviourChange) -> bool:
    """Whether a behaviour change fails the gate: something the old version did not allow
    (a situation, a step, a permitted or required option, a way to break a property), or a
    promise lost (an obligation dropped, a permission withdrawn). Situations and steps
    that became impossible are reported, but do not fail by themselves."""
    return change.change == "possible" or change.what in ("required", "allowed")


@dataclass(frozen=True)
class SpecDiff:
    verdicts: tuple[VerdictChange, ...]
    findings: tuple[FindingChange, ...]
    elements: tuple[ElementChange, ...]
    rulesets_added: tuple[str, ...]
    rulesets_removed: tuple[str, ...]
    behaviour: tuple[tuple[str, BehaviourDiff], ...] = ()
    accepted: frozenset[str] = field(default_factory=frozenset)

    def behaviour_changes(self) -> list[tuple[str, BehaviourChange, str]]:
        """(ruleset, change, fingerprint) of every behaviour change, in report order."""
        return [(rid, c, behaviour_fingerprint(rid, c)) for rid, b in self.behaviour
                for c in b.changes]

    @property
    def introduces_problems(self) -> bool:
        """A new violation, a new (or newly unresolved) unresolved finding, a promise lost
        (a property that held is gone), or a behaviour change that gates and was not
        accepted."""
        bad_verdict = any(v.new == Status.VIOLATED.value and v.kind not in REACHABLE_KINDS
                          for v in self.verdicts)
        lost = any(v.old == Status.PROVED.value and v.new == "absent"
                   and v.kind not in REACHABLE_KINDS for v in self.verdicts)
        bad_finding = any(f.change in ("new", "changed") and not f.finding.resolved
                          for f in self.findings)
        bad_behaviour = any(gates(c) and fp not in self.accepted
                            for _, c, fp in self.behaviour_changes())
        return bad_verdict or lost or bad_finding or bad_behaviour

    @property
    def empty(self) -> bool:
        return not (self.verdicts or self.findings or self.elements or self.rulesets_added
                    or self.rulesets_removed or any(b.changes for _, b in self.behaviour))


def diff_runs(old: Run, new: Run, *, node_budget: int | None = None,
              accepted: frozenset[str] = frozenset()) -> SpecDiff:
    """The diff of two checked runs; with `node_budget`, also the behaviour diff of every
    ruleset in both (`checker.engines.behaviour`, counted in decision-diagram nodes)."""
    olds = {c.ruleset.id: c for c in old.checked}
    news = {c.ruleset.id: c for c in new.checked}
    verdicts: list[VerdictChange] = []
    findings: list[FindingChange] = []
    elements: list[ElementChange] = []
    behaviour: list[tuple[str, BehaviourDiff]] = []
    for rid in sorted(olds.keys() & news.keys()):
        verdicts += _verdicts(rid, olds[rid], news[rid])
        findings += _findings(rid, olds[rid], news[rid])
        elements += _elements(rid, olds[rid], news[rid])
        if node_budget is not None:
            behaviour.append((rid, _behaviour(olds[rid], news[rid], node_budget)))
    return SpecDiff(tuple(verdicts), tuple(findings), tuple(elements),
                    tuple(sorted(news.keys() - olds.keys())),
                    tuple(sorted(olds.keys() - news.keys())), tuple(behaviour), accepted)


def _behaviour(old: CheckedRuleset, new: CheckedRuleset, node_budget: int) -> BehaviourDiff:
    from checker.engines.behaviour import behaviour_diff

    a = {p.id: p for p in old.result.properties}
    b = {p.id: p for p in new.result.properties}
    both_broken = {pid for pid in a.keys() & b.keys()
                   if a[pid].status is Status.VIOLATED and b[pid].status is Status.VIOLATED}
    pa = {p.id: p for p in old.ruleset.system.properties}
    pb = {p.id: p for p in new.ruleset.system.properties}
    pairs = [(pa[pid], pb[pid]) for pid in sorted(both_broken) if pid in pa and pid in pb]
    return behaviour_diff(old.ruleset.system, new.ruleset.system, node_budget=node_budget,
                          props=pairs)


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
