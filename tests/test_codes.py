"""The one registry of diagnostic codes (`checker.diagnostics.CODES`): every code used in
the checker is registered, every registered code is raised somewhere (RP3xx structural
findings excepted while they are being wired up), every finding kind is registered once."""

from __future__ import annotations

import re
from pathlib import Path

from checker.diagnostics import CODES, FINDINGS
from checker.report.data import KIND_TITLES
from checker.results import FINDING_CODES, FINDING_KINDS, Finding

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "checker"
REGISTRY = PACKAGE / "diagnostics.py"
CODE = re.compile(r"\bRP\d{3}\b")

# registered but raised by a stage still being written (structural graph findings)
NOT_YET_RAISED = {"RP302", "RP303"}


def _uses() -> dict[str, set[str]]:
    """code → the checker modules (other than the registry) that mention it."""
    out: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path == REGISTRY:
            continue
        for code in CODE.findall(path.read_text("utf-8")):
            out.setdefault(code, set()).add(str(path.relative_to(ROOT)))
    return out


def test_every_code_the_checker_uses_is_registered() -> None:
    unregistered = set(_uses()) - set(CODES)
    assert not unregistered, f"codes used but not in checker/diagnostics.py: {unregistered}"


def test_every_registered_code_is_raised_somewhere() -> None:
    raised = set(_uses()) | {c.code for c in FINDINGS.values()}
    never = set(CODES) - raised - NOT_YET_RAISED
    assert not never, f"registered codes nothing raises: {sorted(never)}"
    assert NOT_YET_RAISED <= set(CODES)


def test_finding_kinds_are_derived_from_the_registry() -> None:
    assert FINDING_KINDS == tuple(FINDINGS)
    assert FINDING_CODES == {k: c.code for k, c in FINDINGS.items()}
    assert KIND_TITLES == {k: c.heading for k, c in FINDINGS.items()}
    for kind, c in FINDINGS.items():
        assert CODES[c.code] is c and c.slug == kind and c.heading
        assert Finding(kind, (), (), "").code == c.code
    assert not [c for c in CODES.values() if c.heading and c.slug not in FINDINGS]


def test_codes_are_well_formed() -> None:
    assert list(CODES) == sorted(CODES)
    for code, c in CODES.items():
        assert re.fullmatch(r"RP[1-6]\d\d", code) and c.code == code
        assert c.anchor == code.lower()
    assert len({c.slug for c in CODES.values()}) == len(CODES)
