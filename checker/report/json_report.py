"""The JSON report: `{"format_version": 1, "rulesets": [...]}`, documented field by field in
docs/json-format.md. Keys appear in the documented order, lists in a stable order, and
timings (`seconds`) only when asked for, so two runs on the same input are byte-identical.
"""

from __future__ import annotations

import json
from typing import Any

from checker.report.data import (
    FindingView,
    PropertyView,
    QuoteView,
    ReportData,
    RulesetView,
    TraceView,
    Where,
)

# 1: first version.
FORMAT_VERSION = 1


class JsonReporter:
    report_type = "json"

    def render(self, data: ReportData) -> str:
        doc: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "rulesets": [self._ruleset(r, data.timings) for r in data.rulesets]}
        if data.provenance and data.provenance.get("shard", [1, 1])[1] > 1:
            # a shard's report: what `ruleproof merge` joins it with the others by
            doc["run"] = {**data.provenance, "rulesets": list(data.results)}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"

    def _ruleset(self, r: RulesetView, timings: bool) -> dict[str, Any]:
        causes = {f.fingerprint: c.anchor.removeprefix("c-")
                  for c in r.causes + r.resolved_causes for f in c.findings}
        out: dict[str, Any] = {
            "id": r.id,
            "title": r.title,
            "file": r.spec_file,
            "source": r.source_file,
            "summary": {"properties": r.counts.properties, "proved": r.counts.proved,
                        "violated": r.counts.violated, "unknown": r.counts.unknown,
                        "findings": r.counts.findings, "resolved": r.counts.resolved,
                        "causes": r.counts.causes, "error_causes": r.counts.error_causes},
            "properties": [self._property(p, timings) for p in r.properties],
            "findings": [self._finding(f, r.source_file, causes) for f in r.findings],
            "coverage": {"formalized": r.coverage.formalized, "informal": r.coverage.informal,
                         "uncovered": r.coverage.uncovered, "percent": r.coverage.percent,
                         "sentences": [{"line": s.line, "text": s.text, "kind": s.kind,
                                        "status": s.status, "elements": list(s.elements)}
                                       for s in r.coverage.sentences
                                       if s.status != "heading"]},
        }
        if timings:
            out["seconds"] = r.seconds
        return out

    def _property(self, p: PropertyView, timings: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": p.id,
            "kind": p.kind,
            "status": p.status,
            "method": p.method,
            "reason": p.reason,
            "text": p.text,
            "claim": p.claim,
            "message": p.message,
            "location": _where(p.location),
            "trace": _trace(p.trace),
        }
        if p.readings:
            out["readings"] = p.readings
        if timings:
            out["seconds"] = p.seconds
        return out

    def _finding(self, f: FindingView, source: str, cause: dict[str, str]) -> dict[str, Any]:
        return {
            "fingerprint": f.fingerprint,
            "cause": cause.get(f.fingerprint, ""),
            "code": f.code,
            "kind": f.kind,
            "message": f.message,
            "location": _where(f.location),
            "states": list(f.states),
            "rules": list(f.rules),
            "citations": [_quote(q, source) for q in f.citations],
            "resolved": f.resolved,
            "resolved_by": list(f.resolved_by),
            "detail": [{"label": k, "value": v} for k, v in f.detail],
            "trace": _trace(f.trace),
            **({"outcomes": [{"label": k, "trace": _trace(t)} for k, t in f.outcomes]}
               if f.outcomes else {}),
        }


def _where(w: Where) -> dict[str, Any]:
    return {"file": w.file, "line": w.line, "col": w.col}


def _quote(q: QuoteView, source: str) -> dict[str, Any]:
    return {"rule": q.element, "quote": q.quote, "file": source, "line": q.line, "col": q.col}


def _trace(t: TraceView | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "replayed": t.replayed,
        "initial": {v.name: v.value for v in t.initial},
        **({"initial_fired": list(t.initial_fired)} if t.initial_fired else {}),
        "steps": [{"event": s.event,
                   "inputs": dict(s.inputs),
                   "fired": [r.instance for r in s.fired],
                   "changed": {c.name: c.after for c in s.changes}} for s in t.steps],
    }
