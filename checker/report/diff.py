"""Rendering a semantic diff (`checker.errata.diff.SpecDiff`): terminal lines, a JSON file
(`format_version` 1, stably ordered) and an HTML page (`diff.html`, Jinja2 with
autoescape, the report's own stylesheet and Content-Security-Policy)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.errata.diff import SpecDiff
from checker.report.write import write_atomic
from checker.results import REACHABLE_KINDS, Status
from checker.results.codec import finding_to, trace_to

if TYPE_CHECKING:
    from checker.options import Options
    from checker.report.data import FindingView, TraceView
    from checker.results.run import Run

FORMAT_VERSION = 1

def _verdict_words(kind: str, status: str) -> str:
    """A verdict of the diff (a `Status` value, or "absent") in words (`status_label`)."""
    from checker.report.wording import status_label
    return status_label(kind, Status(status)) \
        if status in {s.value for s in Status} else status


def lines(diff: SpecDiff) -> list[str]:
    out: list[str] = []
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
    verdict = ("the change introduces a violation or an unresolved finding"
               if diff.introduces_problems else "the change introduces no new problem")
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
    }


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
    return DiffPage(old_label, new_label, diff.introduces_problems, diff.empty,
                    diff.rulesets_added, diff.rulesets_removed, tuple(verdicts),
                    tuple(findings), diff.elements)


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
