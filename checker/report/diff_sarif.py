"""The diff's SARIF 2.1.0 report (`ruleproof diff --sarif FILE`), for code review of an
errata: one result per difference the gate reads — a behaviour change (RP603), a verdict
that changed (RP604), a finding new or changed (its own code) — each located at the lines
of NEW the errata changed (`checker.errata.lines`): the changed lines inside the spec
elements the difference concerns (its event, the rules its trace fired, its property, the
States and variables it names), else every changed line. Accepted behaviour changes and
resolved findings carry a suppression; differences that do not fail the gate are notes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from checker import __version__
from checker.diagnostics import CODES
from checker.errata.diff import SpecDiff, gates
from checker.errata.lines import Hunk, changed_lines, hunks_in
from checker.report.diff import behaviour_words
from checker.report.sarif import SARIF_SCHEMA, sarif_rule, sarif_uri
from checker.results import REACHABLE_KINDS, Status, property_fingerprint

if TYPE_CHECKING:
    from checker.engines.behaviour import BehaviourChange
    from checker.ir import Ruleset
    from checker.results import Trace
    from checker.results.run import Run


def diff_sarif(diff: SpecDiff, old: Run, new: Run, *, version: str = __version__) -> str:
    olds = {c.ruleset.id: c.ruleset for c in old.checked}
    news = {c.ruleset.id: c.ruleset for c in new.checked}
    hunks = {rid: changed_lines(olds[rid].spec_text, news[rid].spec_text)
             for rid in olds.keys() & news.keys()}
    results: list[dict[str, Any]] = []
    for rid, change, fp in diff.behaviour_changes():
        rs = news[rid]
        kinds = dict(next(b for r, b in diff.behaviour if r == rid).kinds)
        level = "error" if gates(change) else "note"
        res = _result("RP603", level, f"{rid}: {behaviour_words(change, kinds)}", rs,
                      hunks_in(rs, hunks[rid], _concerns(rs, change)), fp)
        if gates(change) and fp in diff.accepted:
            res["suppressions"] = [{"kind": "external", "status": "accepted",
                                    "justification": "accepted in the --accept file"}]
        results.append(res)
    for v in diff.verdicts:
        rs = news[v.ruleset]
        bad = v.kind not in REACHABLE_KINDS and (
            v.new == Status.VIOLATED.value
            or (v.old == Status.PROVED.value and v.new == "absent"))
        elements = (v.property, *_traced(rs, v.trace))
        results.append(_result(
            "RP604", "error" if bad else "note",
            f"{v.ruleset}: {v.kind} '{v.property}': {v.old} → {v.new}", rs,
            hunks_in(rs, hunks[v.ruleset], elements),
            property_fingerprint(v.ruleset, v.property)))
    for f in diff.findings:
        rs = news[f.ruleset]
        bad = f.change in ("new", "changed") and not f.finding.resolved
        res = _result(f.finding.code, CODES[f.finding.code].severity.value if bad else "note",
                      f"{f.ruleset}: {f.change} {f.finding.kind}: {f.finding.message}", rs,
                      hunks_in(rs, hunks[f.ruleset], (*f.finding.rules, *(
                          f"states:{x}" for x in f.finding.states))),
                      f.finding.fingerprint(f.ruleset))
        if f.finding.resolved:
            res["suppressions"] = [{"kind": "inSource", "status": "accepted",
                                    "justification": "resolved in the new version"}]
        results.append(res)
    used = sorted({r["ruleId"] for r in results})
    for r in results:
        r["ruleIndex"] = used.index(r["ruleId"])
    driver: dict[str, Any] = {"name": "ruleproof", "rules": [sarif_rule(c) for c in used]}
    if version:
        driver["version"] = version
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints",
                     "results": results}]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _concerns(rs: Ruleset, change: BehaviourChange) -> tuple[str, ...]:
    """The spec elements a behaviour change is about."""
    names = {n for n, _ in change.where} | {n for n, _, _ in change.effect}
    out = [_source(rs, change.event), *_traced(rs, change.trace)]
    for n in sorted(names):
        out += [f"states:{n}", f"vars:{n}"]
    return tuple(out)


def _traced(rs: Ruleset, trace: Trace | None) -> tuple[str, ...]:
    """The elements of the last step of `trace`: its event and the rules that fired."""
    if trace is None or not trace.steps:
        return ()
    last = trace.steps[-1]
    return tuple(_source(rs, t) for t in (last.event, *last.fired) if t)


def _source(rs: Ruleset, instance: str) -> str:
    """The spec element of an event or rule instance (`suffer-wound`, `x@a` → `x`)."""
    for t in (*rs.system.events, *rs.system.rules):
        if t.id == instance:
            return t.source
    return instance


def _result(code: str, level: str, text: str, rs: Ruleset, at: tuple[Hunk, ...],
            fingerprint: str) -> dict[str, Any]:
    locations = [_hunk(rs.spec_file, h) for h in at]
    out: dict[str, Any] = {
        "ruleId": code, "level": level, "message": {"text": text},
        "locations": locations[:1],
        "partialFingerprints": {"ruleproof/v1": fingerprint},
        "properties": {"ruleset": rs.id},
    }
    if len(locations) > 1:
        out["relatedLocations"] = [dict(loc, id=i) for i, loc in enumerate(locations[1:], 1)]
    return out


def _hunk(spec_file: str, h: Hunk) -> dict[str, Any]:
    what = (f"{h.removed} line(s) of the old version removed after this line"
            if h.deletion else "changed by the errata")
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": sarif_uri(spec_file), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": h.first, "endLine": h.last},
        },
        "message": {"text": what},
    }
