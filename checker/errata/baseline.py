"""Baselines of accepted findings: a file beside the specs listing each accepted finding's
fingerprint with one readable line, so that `check --baseline` fails only on new ones.

A property the ruleset violates as written (the rulebook contradicts its own promise, and
the rules writer knows) can be accepted the same way: it is listed with the fingerprint
of (ruleset, property id) and kind `violated-property`. An UNKNOWN result is never
accepted by a baseline (only `--allow-unknown` lets it pass)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from checker.errata.listing import read_listing
from checker.ir import Ruleset
from checker.results import Finding, PropertyResult, gate_violations
from checker.results.run import Run

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Entry:
    fingerprint: str
    ruleset: str
    kind: str
    summary: str


VIOLATED = "violated-property"


def entries(run: Run) -> list[Entry]:
    out = [Entry(f.fingerprint(c.ruleset.id), c.ruleset.id, f.kind, _summary(f))
           for c in run.checked for f in c.result.findings if not f.resolved]
    out += [Entry(p.fingerprint(c.ruleset.id), c.ruleset.id, VIOLATED,
                  f"{p.kind} {p.id!r} is violated — {claim(c.ruleset, p)}")
            for c in run.checked for p in gate_violations(c.result.properties)]
    return sorted(out, key=lambda e: (e.ruleset, e.kind, e.fingerprint))


def claim(ruleset: Ruleset, p: PropertyResult) -> str:
    """What the property promises, in the rulebook's words when it cites them."""
    quote = next((c.quote for c in ruleset.citations if c.element == p.source), None)
    return quote or p.text or p.id


def _summary(f: Finding) -> str:
    rules = ", ".join(f.rules)
    states = f" [{', '.join(f.states)}]" if f.states else ""
    return f"{f.kind}: {rules}{states} — {f.message}"


def dumps(items: list[Entry]) -> str:
    data = {"format_version": FORMAT_VERSION,
            "comment": "Findings and violated properties accepted for now; 'ruleproof check "
                       "--baseline' fails only on ones not listed here. Regenerate with "
                       "'ruleproof baseline'.",
            "findings": [e.__dict__ for e in items]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def load(path: Path) -> list[Entry]:
    return read_listing(path, "findings", FORMAT_VERSION,
                        lambda items: [Entry(str(i["fingerprint"]), str(i["ruleset"]),
                                             str(i["kind"]), str(i.get("summary", "")))
                                       for i in items],
                        missing=f"no baseline file {str(path)!r}; create one with "
                                "'ruleproof baseline'",
                        kind="a ruleproof baseline")


@dataclass(frozen=True)
class Comparison:
    new: tuple[tuple[str, Finding], ...]       # (ruleset, finding) not in the baseline
    accepted: int
    gone: tuple[Entry, ...]                    # baseline entries that no longer occur
    new_violations: tuple[tuple[str, PropertyResult], ...] = ()


def compare(run: Run, baseline: list[Entry]) -> Comparison:
    known = {e.fingerprint for e in baseline}
    current = {e.fingerprint for e in entries(run)}
    new = tuple((c.ruleset.id, f) for c in run.checked for f in c.result.findings
                if not f.resolved and f.fingerprint(c.ruleset.id) not in known)
    broken = tuple((c.ruleset.id, p) for c in run.checked
                   for p in gate_violations(c.result.properties)
                   if p.fingerprint(c.ruleset.id) not in known)
    gone = tuple(e for e in baseline if e.fingerprint not in current)
    return Comparison(new, len(current & known), gone, broken)
