"""Results ↔ plain JSON data (for the cache and any other machine-readable round trip)."""

from __future__ import annotations

from typing import Any

from checker.results import (
    Finding,
    Method,
    PropertyResult,
    RulesetResult,
    Status,
    Step,
    Trace,
)


def trace_to(t: Trace | None) -> Any:
    if t is None:
        return None
    return {"replayed": t.replayed, "steps": [
        {"event": s.event, "inputs": [list(p) for p in s.inputs], "fired": list(s.fired),
         "changed": [list(p) for p in s.changed], "state": [list(p) for p in s.state]}
        for s in t.steps], **({"start": [list(p) for p in t.start]} if t.start else {})}


def trace_from(d: Any) -> Trace | None:
    if d is None:
        return None
    return Trace(tuple(Step(s["event"], tuple((a, b) for a, b in s["inputs"]),
                            tuple(s["fired"]), tuple((a, b) for a, b in s["changed"]),
                            tuple((a, int(b)) for a, b in s["state"]))
                       for s in d["steps"]), bool(d["replayed"]),
                 tuple((a, int(b)) for a, b in d.get("start", ())))


def property_to(p: PropertyResult) -> dict[str, Any]:
    return {"id": p.id, "kind": p.kind, "status": p.status.value,
            "method": p.method.value if p.method else None, "reason": p.reason,
            "trace": trace_to(p.trace), "states": list(p.states), "source": p.source,
            "text": p.text, "seconds": p.seconds, "invariant": p.invariant,
            **({"readings": p.readings} if p.readings else {})}


def property_from(d: dict[str, Any]) -> PropertyResult:
    return PropertyResult(d["id"], d["kind"], Status(d["status"]),
                          Method(d["method"]) if d["method"] else None, d["reason"],
                          trace_from(d["trace"]), tuple(d["states"]), d["source"], d["text"],
                          float(d["seconds"]), d["invariant"], d.get("readings", ""))


def finding_to(f: Finding) -> dict[str, Any]:
    return {"kind": f.kind, "rules": list(f.rules), "states": list(f.states),
            "message": f.message, "resolved": f.resolved, "resolved_by": list(f.resolved_by),
            "trace": trace_to(f.trace), "detail": [list(p) for p in f.detail],
            "outcomes": [[label, trace_to(t)] for label, t in f.outcomes]}


def finding_from(d: dict[str, Any]) -> Finding:
    return Finding(d["kind"], tuple(d["rules"]), tuple(d["states"]), d["message"],
                   bool(d["resolved"]), tuple(d["resolved_by"]), trace_from(d["trace"]),
                   tuple((a, b) for a, b in d["detail"]),
                   tuple((label, t) for label, raw in d.get("outcomes", [])
                         if (t := trace_from(raw)) is not None))


def ruleset_result_to(r: RulesetResult) -> dict[str, Any]:
    return {"ruleset": r.ruleset, "seconds": r.seconds,
            "properties": [property_to(p) for p in r.properties],
            "findings": [finding_to(f) for f in r.findings]}


def ruleset_result_from(d: dict[str, Any]) -> RulesetResult:
    return RulesetResult(d["ruleset"], [property_from(p) for p in d["properties"]],
                         [finding_from(f) for f in d["findings"]], float(d["seconds"]))
