"""Rendering a semantic diff (`checker.errata.diff.SpecDiff`): terminal lines, a JSON file
(`format_version` 1, stably ordered) and an HTML page (`diff.html`, Jinja2 with
autoescape, the report's own stylesheet and Content-Security-Policy)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.errata.diff import SpecDiff, behaviour_fingerprint
from checker.report.write import write_atomic
from checker.results import REACHABLE_KINDS, Status
from checker.results.codec import finding_to, trace_to

if TYPE_CHECKING:
    from checker.engines.behaviour import BehaviourChange
    from checker.options import Options
    from checker.report.data import FindingView, TraceView
    from checker.results.run import Run

FORMAT_VERSION = 1

def _verdict_words(kind: str, status: str) -> str:
    """A verdict of the diff (a `Status` value, or "absent") in words (`status_label`)."""
    from checker.report.wording import status_label
    return status_label(kind, Status(status)) \
        if status in {s.value for s in Status} else status


def _value_words(name: str, value: str, kind: str) -> str:
    if kind == "state":
        return {"0": f"not {name}", "1": name}.get(value, f"{name} ×{value}")
    if kind == "marker":
        return f"{value} {name} marker(s)"
    return f"{name} = {value}"


def behaviour_words(change: BehaviourChange, kinds: dict[str, str]) -> str:
    """One behaviour change in rulebook terms (States by name, numbers as `x = v`)."""
    where = ", ".join(_value_words(n, v, kinds.get(n, "int")) for n, v in change.where) \
        or "any situation"
    effect = "; ".join(
        (f"gains {n}" if a == "0" and kinds.get(n) == "state" else
         f"loses {n}" if b == "0" and kinds.get(n) == "state" else f"{n} {a} → {b}")
        for n, a, b in change.effect) or "nothing changes"
    now = change.change == "possible"
    if change.what == "situation":
        return (f"{'now possible' if now else 'no longer possible'}: a situation with "
                f"{where} ({change.count} situation(s))")
    if change.what == "step":
        return (f"{'now possible' if now else 'no longer possible'}: in a situation with "
                f"{where}, {change.event} → {effect} ({change.count} step(s))")
    if change.what == "violation":
        return (f"{'a new way' if now else 'a way no longer there'} to break "
                f"{change.event!r}: a situation with {where}")
    if change.what == "allowed":
        return (f"{'now permitted' if now else 'no longer permitted'}: {change.event}, "
                f"in a situation with {where}")
    return (f"{'now required' if now else 'no longer required'}: {change.event}, "
            f"in a situation with {where}")


def lines(diff: SpecDiff) -> list[str]:
    out: list[str] = []
    for rid, b in diff.behaviour:
        kinds = dict(b.kinds)
        if b.note:
            out.append(f"! {rid}: behaviour {b.note}")
        for c in b.changes:
            fp = behaviour_fingerprint(rid, c)
            mark = "+" if c.change == "possible" else "-"
            acc = " (accepted)" if fp in diff.accepted else ""
            out.append(f"{mark} {rid}: {behaviour_words(c, kinds)} [{fp}]{acc}")
    for r in diff.rulesets_added:
        out.append(f"+ ruleset {r} (new)")
    for r in diff.rulesets_removed:
        out.append(f"- ruleset {r} (removed)")
    for v in diff.verdicts:
        steps = f" (trace: {len(v.trace) - 1} steps)" if v.trace is not None else ""
        out.append(f"~ {v.ruleset}: {v.kind} {v.property!r}: "
                   f"{_verdict_words(v.kind, v.old)} → {_verdict_words(v.kind, v.new)}{steps}")
    for f in diff.findings:
        mark = {"new": "+", "gone": "-", "changed": "~"}[f.change]
        resolved = " (resolved)" if f.finding.resolved else ""
        out.append(f"{mark} {f.ruleset}: {f.change} finding {f.finding.kind}: "
                   f"{', '.join(f.finding.rules)}{resolved} — {f.finding.message}")
    for e in diff.elements:
        mark = {"added": "+", "removed": "-", "changed": "~"}[e.change]
        out.append(f"{mark} {e.ruleset}: {e.section} {e.element!r} {e.change}")
    if diff.empty:
        out.append("no semantic difference")
    verdict = ("the change makes possible what was not, loses a promise, or introduces a "
               "violation or an unresolved finding" if diff.introduces_problems
               else "the change introduces no new problem")
    out.append(verdict)
    return out


def to_json(diff: SpecDiff) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "introduces_problems": diff.introduces_problems,
        "rulesets_added": list(diff.rulesets_added),
        "rulesets_removed": list(diff.rulesets_removed),
        "verdicts": [{"ruleset": v.ruleset, "property": v.property, "kind": v.kind,
                      "old": v.old, "new": v.new, "trace": trace_to(v.trace)}
                     for v in diff.verdicts],
        "findings": [{"ruleset": f.ruleset, "change": f.change,
                      "finding": finding_to(f.finding),
                      "before": finding_to(f.before) if f.before else None}
                     for f in diff.findings],
        "elements": [{"ruleset": e.ruleset, "section": e.section, "element": e.element,
                      "change": e.change} for e in diff.elements],
        "behaviour": [{"ruleset": rid, "note": b.note, "depth": b.depth,
                       "only_old": list(b.only_old), "only_new": list(b.only_new),
                       "changes": [_change_to(rid, c, dict(b.kinds), diff.accepted)
                                   for c in b.changes]}
                      for rid, b in diff.behaviour],
    }


def _change_to(rid: str, c: BehaviourChange, kinds: dict[str, str],
               accepted: frozenset[str]) -> dict[str, Any]:
    fp = behaviour_fingerprint(rid, c)
    return {"fingerprint": fp, "change": c.change, "what": c.what, "event": c.event,
            "where": [list(w) for w in c.where], "effect": [list(e) for e in c.effect],
            "count": c.count, "words": behaviour_words(c, kinds), "accepted": fp in accepted,
            "trace": trace_to(c.trace)}


@dataclass(frozen=True)
class VerdictRow:
    ruleset: str
    property: str
    kind: str
    old: str
    new: str
    bad: bool
    note: str
    trace: TraceView | None
    trace_label: str


@dataclass(frozen=True)
class FindingRow:
    ruleset: str
    change: str
    bad: bool
    before: str
    view: FindingView
    source_file: str


@dataclass(frozen=True)
class BehaviourRow:
    ruleset: str
    words: str
    fingerprint: str
    accepted: bool
    bad: bool
    trace: TraceView | None
    trace_label: str


@dataclass(frozen=True)
class DiffPage:
    old: str
    new: str
    problems: bool
    empty: bool
    rulesets_added: tuple[str, ...]
    rulesets_removed: tuple[str, ...]
    verdicts: tuple[VerdictRow, ...]
    findings: tuple[FindingRow, ...]
    elements: tuple[Any, ...]
    behaviour: tuple[BehaviourRow, ...] = ()
    behaviour_notes: tuple[str, ...] = ()


def diff_page(diff: SpecDiff, old: Run, new: Run, options: Options, *, old_label: str,
              new_label: str) -> DiffPage:
    """The view-model of the diff page: findings and traces rendered with the version
    they belong to (a gone finding with the old one, everything else with the new)."""
    from checker.report.data import Views

    olds = {c.ruleset.id: Views(c, options) for c in old.checked}
    news = {c.ruleset.id: Views(c, options) for c in new.checked}
    verdicts = []
    for v in diff.verdicts:
        only_old = (v.new in (Status.VIOLATED, "absent") and v.kind in REACHABLE_KINDS
                    and v.trace is not None)
        views = (olds if only_old else news).get(v.ruleset)
        label = ("How it was reached in the old version" if only_old
                 else "Counterexample in the new version" if v.new == Status.VIOLATED
                 else "Witness in the new version")
        note = ("Reachable only in the old version." if only_old else
                "Reachable only in the new version." if v.kind in REACHABLE_KINDS
                and v.new == Status.PROVED else "")
        verdicts.append(VerdictRow(
            v.ruleset, v.property, v.kind, _verdict_words(v.kind, v.old),
            _verdict_words(v.kind, v.new),
            v.new == Status.VIOLATED and v.kind not in REACHABLE_KINDS,
            note, views.trace(v.trace) if views is not None else None, label))
    findings = []
    for f in diff.findings:
        views = (olds if f.change == "gone" else news)[f.ruleset]
        before = ""
        if f.before is not None:
            before = ("resolved" if f.before.resolved else "unresolved") + \
                f" {f.before.kind} between {', '.join(f.before.rules)}"
        findings.append(FindingRow(f.ruleset, f.change,
                                   f.change != "gone" and not f.finding.resolved, before,
                                   views.finding(f.finding), views.source_file))
    from checker.errata.diff import gates

    rows = []
    for rid, b in diff.behaviour:
        kinds = dict(b.kinds)
        for c in b.changes:
            fp = behaviour_fingerprint(rid, c)
            views = (news if c.change == "possible" else olds).get(rid)
            label = ("How it happens in the new version" if c.change == "possible"
                     else "How it happened in the old version")
            rows.append(BehaviourRow(rid, behaviour_words(c, kinds), fp, fp in diff.accepted,
                                     gates(c) and fp not in diff.accepted,
                                     views.trace(c.trace) if views is not None and c.trace
                                     else None, label))
    notes = tuple(f"{rid}: behaviour {b.note}" for rid, b in diff.behaviour if b.note)
    return DiffPage(old_label, new_label, diff.introduces_problems, diff.empty,
                    diff.rulesets_added, diff.rulesets_removed, tuple(verdicts),
                    tuple(findings), diff.elements, tuple(rows), notes)


def html(page: DiffPage) -> str:
    from checker.report.html import HtmlReporter

    return HtmlReporter().env.get_template("diff.html.j2").render(page=page)


def render_diff(diff: SpecDiff, *, json_path: Path | None = None,
                html_path: Path | None = None, page: DiffPage | None = None) -> None:
    for line in lines(diff):
        print(line)
    if json_path is not None:
        write_atomic(json_path, json.dumps(to_json(diff), indent=2, sort_keys=True,
                                           ensure_ascii=False) + "\n")
    if html_path is not None and page is not None:
        write_atomic(html_path, html(page))
        print(f"diff page: {html_path}")
