"""Rendering a semantic diff (`checker.errata.diff.SpecDiff`): terminal lines and a JSON file
(`format_version` 1, stably ordered)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from checker.codec import finding_to, trace_to
from checker.errata.diff import SpecDiff
from checker.report.write import write_atomic

FORMAT_VERSION = 1

_REACH = ("reachable", "state-reachable", "rule-fires", "vacuity")


def _verdict_words(kind: str, status: str) -> str:
    if kind in _REACH:
        return {"proved": "reachable", "violated": "never reachable"}.get(status, status)
    return status


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


def render_diff(diff: SpecDiff, *, json_path: Path | None = None) -> None:
    for line in lines(diff):
        print(line)
    if json_path is not None:
        write_atomic(json_path, json.dumps(to_json(diff), indent=2, sort_keys=True,
                                           ensure_ascii=False) + "\n")
