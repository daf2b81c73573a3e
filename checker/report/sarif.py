"""The SARIF 2.1.0 report, for code-review annotations: one result per open or resolved
finding (resolved ones carry a suppression saying what resolves them) and per violated or
undecided property; the rule id is the diagnostic code, and the rule's `helpUri` its
section of docs/codes.md. Each result is located in the spec file first and then at every
rulebook passage it cites. Paths are relative to the folder the check ran in
(`%SRCROOT%`)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote as urlquote

from checker import __version__
from checker.diagnostics import CODES
from checker.report.data import (
    FindingView,
    PropertyView,
    QuoteView,
    ReportData,
    RulesetView,
    Where,
)

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# where each rule's documentation is: its section of docs/codes.md (a URI reference relative
# to the repository root; `ruleproof explain-code RPnnn` prints the same text)
HELP_DOC = "docs/codes.md"


class SarifReporter:
    report_type = "sarif"

    def render(self, data: ReportData, *, version: str = __version__) -> str:
        results: list[dict[str, Any]] = []
        for r in data.rulesets:
            results.extend(self._property(p, r) for p in r.properties if p.code is not None)
            results.extend(self._finding(f, r) for f in r.findings)
        used = sorted({res["ruleId"] for res in results})
        driver: dict[str, Any] = {
            "name": "ruleproof",
            "rules": [sarif_rule(code) for code in used],
        }
        if version:
            driver["version"] = version
        for res in results:
            res["ruleIndex"] = used.index(res["ruleId"])
        doc = {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }],
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"

    def _property(self, p: PropertyView, r: RulesetView) -> dict[str, Any]:
        assert p.code is not None
        level = p.severity
        locations = [_spec_location(p.location, f"property '{p.id}'")]
        locations += [_text_location(q, r.source_file) for q in p.quotes]
        out: dict[str, Any] = {
            "ruleId": p.code,
            "level": level,
            "message": {"text": p.message},
            "locations": locations,
            "partialFingerprints": {"ruleproof/v1": p.fingerprint},
            "properties": {"ruleset": r.id, "property": p.id, "kind": p.kind,
                           "status": p.status},
        }
        if p.trace is not None:
            out["properties"]["traceSteps"] = [s.text for s in p.trace.steps]
        return out

    def _finding(self, f: FindingView, r: RulesetView) -> dict[str, Any]:
        text = f.message
        if f.citations:
            text += " — " + "; ".join(f"{q.element}: \"{q.quote}\" ({r.source_file}:{q.line})"
                                      for q in f.citations)
        locations = [_spec_location(f.location, f"rule '{f.rules[0]}'" if f.rules else "")]
        locations += [_text_location(q, r.source_file) for q in f.citations]
        out: dict[str, Any] = {
            "ruleId": f.code,
            "level": CODES[f.code].severity.value,
            "message": {"text": text},
            "locations": locations,
            "partialFingerprints": {"ruleproof/v1": f.fingerprint},
            "properties": {"ruleset": r.id, "kind": f.kind, "rules": list(f.rules),
                           "states": list(f.states)},
        }
        if f.trace is not None:
            out["properties"]["traceSteps"] = [s.text for s in f.trace.steps]
        if f.resolved:
            why = ", ".join(f.resolved_by) or "the ruleset"
            out["suppressions"] = [{"kind": "inSource", "status": "accepted",
                                    "justification": f"resolved by {why}"}]
        return out


def sarif_rule(code: str) -> dict[str, Any]:
    c = CODES[code]
    return {
        "id": c.code,
        "name": c.slug,
        "shortDescription": {"text": c.title},
        "defaultConfiguration": {"level": c.severity.value},
        "helpUri": f"{HELP_DOC}#{c.anchor}",
    }


def sarif_uri(path: str) -> str:
    return urlquote(path, safe="/")


def _spec_location(w: Where, what: str) -> dict[str, Any]:
    loc: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": sarif_uri(w.file), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": w.line, "startColumn": w.col},
        },
    }
    if what:
        loc["message"] = {"text": f"{what} in the spec"}
    return loc


def _text_location(q: QuoteView, source: str) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": sarif_uri(source), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": q.line, "startColumn": q.col, "endLine": q.end_line,
                       "endColumn": q.end_col, "snippet": {"text": q.quote}},
        },
        "message": {"text": f"the rulebook sentence '{q.element}' formalizes"},
    }
