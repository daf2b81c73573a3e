"""`merge_shards(docs)`: the JSON reports of `check --shard K/N` runs joined into the `Run` an
unsharded check gives (`ruleproof merge`). Refuses (`MergeError`, saying which) shards of
different rulesets, code versions or options, and a missing or duplicated shard.

Each shard's JSON carries, under "run", the code version, the options, its K/N and per
ruleset the hashes of its spec and text and its raw results. The property verdicts of the
shards are joined in the spec's order; the findings that follow from verdicts and structure
are derived again from all verdicts (as an unsharded run does) and the scan findings of
each shard are added.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from checker.graph import structural_findings
from checker.ir import Ruleset
from checker.results import Finding, PropertyResult, RulesetResult
from checker.results import findings as derived
from checker.results.codec import finding_to, ruleset_result_from
from checker.results.run import CheckedRuleset, Run
from checker.spec.coverage import coverage
from checker.spec.load import load_ruleset


class MergeError(Exception):
    """Shards that cannot be joined: the message says which and why."""


def _run_block(name: str, doc: Any) -> dict[str, Any]:
    run = doc.get("run") if isinstance(doc, dict) else None
    if not isinstance(run, dict) or not {"code", "options", "shard", "rulesets"} <= set(run):
        raise MergeError(f"{name} is not the JSON report of a ruleproof check (no 'run' "
                         "block; write it with `ruleproof check --shard K/N --json FILE`)")
    return run


def check_shards(docs: list[tuple[str, Any]]) -> int:
    """The N of the shards, after checking they are one run's shards 1..N, each once."""
    runs = [(name, _run_block(name, doc)) for name, doc in docs]
    first_name, first = runs[0]
    for name, run in runs[1:]:
        if run["code"] != first["code"]:
            raise MergeError(f"{name} was made by another ruleproof version than "
                             f"{first_name} (code {run['code']} vs {first['code']})")
        if run["options"] != first["options"]:
            raise MergeError(f"{name} was checked with other options than {first_name} "
                             f"({run['options']!r} vs {first['options']!r})")
        if _identity(run) != _identity(first):
            raise MergeError(f"{name} checked other rulesets (or other versions of their "
                             f"specs or texts) than {first_name}")
    n = int(first["shard"][1])
    seen: dict[int, str] = {}
    for name, run in runs:
        k, total = int(run["shard"][0]), int(run["shard"][1])
        if total != n:
            raise MergeError(f"{name} is shard {k}/{total}, but {first_name} is one of {n}")
        if k in seen:
            raise MergeError(f"shard {k}/{n} is given twice: {seen[k]} and {name}")
        seen[k] = name
    missing = [k for k in range(1, n + 1) if k not in seen]
    if missing:
        raise MergeError("missing shard(s) " + ", ".join(f"{k}/{n}" for k in missing))
    return n


def _identity(run: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((r["id"], r["spec_sha256"], r["source_sha256"]) for r in run["rulesets"])


def merge_shards(docs: list[tuple[str, Any]]) -> Run:
    """The unsharded run of the shards `docs` ((file name, parsed JSON) pairs)."""
    check_shards(docs)
    runs = [_run_block(name, doc) for name, doc in docs]
    checked = []
    for entry in runs[0]["rulesets"]:
        ruleset = _load(entry)
        parts = [ruleset_result_from(r["results"]) for run in runs for r in run["rulesets"]
                 if r["id"] == entry["id"]]
        checked.append(_merge_one(ruleset, parts))
    return Run(checked)


def _load(entry: dict[str, Any]) -> Ruleset:
    path = Path(entry["file"])
    try:
        ruleset = load_ruleset(path, entry["file"])
    except OSError as exc:
        raise MergeError(f"cannot read {entry['file']}: {exc}") from None
    if hashlib.sha256(ruleset.spec_text.encode()).hexdigest() != entry["spec_sha256"] or \
            hashlib.sha256(ruleset.source.text.encode()).hexdigest() != entry["source_sha256"]:
        raise MergeError(f"{entry['file']} (or its rulebook text) changed since the shards "
                         "were checked: check again")
    return ruleset


def _merge_one(ruleset: Ruleset, parts: list[RulesetResult]) -> CheckedRuleset:
    order = {p.id: i for i, p in enumerate(ruleset.system.properties)}
    checked: list[PropertyResult] = []
    undecided: list[PropertyResult] = []
    scan_found: list[Finding] = []
    for part in parts:
        mine = [p for p in part.properties if p.id in order]
        checked += mine
        undecided += [p for p in part.properties if p.id not in order]
        own = structural_findings(ruleset.system, mine, derived.from_properties(ruleset, mine))
        left = [finding_to(f) for f in own]
        for f in part.findings:
            d = finding_to(f)
            if d in left:
                left.remove(d)          # derived from this shard's verdicts: derived again
            else:
                scan_found.append(f)
    checked.sort(key=lambda p: order[p.id])
    found = structural_findings(ruleset.system, checked,
                                derived.from_properties(ruleset, checked)) + scan_found
    found.sort(key=lambda f: (f.kind, f.rules, f.states))
    result = RulesetResult(ruleset.id, checked + undecided, found,
                           sum(p.seconds for p in parts))
    return CheckedRuleset(ruleset, result, coverage(ruleset))
