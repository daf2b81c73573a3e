"""Reviewed behaviour changes (`ruleproof diff --accept FILE`): a file listing the
fingerprint of each difference an errata is meant to make, with its words, so that an
intended change passes the gate once reviewed. `--write-accept FILE` writes the current
differences for review; a file that does not parse is refused before any work, and a file
naming a fingerprint the diff does not produce is refused after it (exit 2 both)."""

from __future__ import annotations

import json
from pathlib import Path

from checker.diagnostics import Diagnostic, Location
from checker.errata.listing import read_listing
from checker.errors import SpecError

FORMAT_VERSION = 1


def load(path: Path) -> frozenset[str]:
    return read_listing(path, "accepted", FORMAT_VERSION,
                        lambda items: frozenset(str(i["fingerprint"]) for i in items),
                        missing=f"no accept file {str(path)!r}; write one with 'ruleproof diff "
                                "OLD NEW --write-accept FILE' and review it",
                        kind="a ruleproof accept file")


def unknown(path: Path, accepted: frozenset[str], produced: set[str]) -> None:
    """Refuse fingerprints the diff does not produce (a stale or mistyped entry)."""
    stale = sorted(accepted - produced)
    if stale:
        raise SpecError([Diagnostic(
            "RP201", f"{str(path)!r} accepts {len(stale)} difference(s) this diff does not "
            f"have ({', '.join(stale[:3])}{' …' if len(stale) > 3 else ''}); remove them or "
            "rewrite the file with --write-accept", Location(str(path), 1, 1))])


def dumps(items: list[tuple[str, str, str]]) -> str:
    """(fingerprint, ruleset, words) of each difference, as an accept file."""
    data = {"format_version": FORMAT_VERSION,
            "comment": "Behaviour changes reviewed and accepted for this errata; "
                       "'ruleproof diff --accept' fails only on others.",
            "accepted": [{"fingerprint": fp, "ruleset": rid, "change": words}
                         for fp, rid, words in items]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
