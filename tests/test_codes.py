"""The one registry of diagnostic codes (`checker.diagnostics.CODES`): every code used in
the checker is registered, every registered code is raised somewhere (RP3xx structural
findings excepted while they are being wired up), every finding kind is registered once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checker.cli import main
from checker.diagnostics import CODES, FINDINGS, explanation
from checker.report.data import KIND_TITLES
from checker.results import FINDING_CODES, FINDING_KINDS, Finding

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "checker"
REGISTRY = PACKAGE / "diagnostics.py"
CODE = re.compile(r"\bRP\d{3}\b")

# registered but raised by a stage still being written (structural graph findings)
NOT_YET_RAISED: set[str] = set()


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
    assert set(CODES) >= NOT_YET_RAISED


def test_finding_kinds_are_derived_from_the_registry() -> None:
    assert tuple(FINDINGS) == FINDING_KINDS
    assert {k: c.code for k, c in FINDINGS.items()} == FINDING_CODES
    assert {k: c.heading for k, c in FINDINGS.items()} == KIND_TITLES
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


# ---------------------------------------------------------------------------- docs/codes.md

DOC = ROOT / "docs" / "codes.md"
SECTION = re.compile(r"^## (RP\d{3})\n\n\*\*(?P<slug>[a-z-]+)\*\* · (?P<sev>\w+) · (?P<title>.+)$",
                     re.M)


def test_every_registered_code_has_a_section_in_docs_and_vice_versa() -> None:
    text = DOC.read_text("utf-8")
    headings = re.findall(r"^## (\S+)", text, re.M)
    assert sorted(headings) == headings == list(CODES), (
        "docs/codes.md needs one '## RPnnn' section per registered code, in code order")
    for m in SECTION.finditer(text):
        c = CODES[m[1]]
        assert (m["slug"], m["sev"], m["title"]) == (c.slug, c.severity.value, c.title), m[1]
    assert len(SECTION.findall(text)) == len(CODES), "a section lacks its name line"
    for code in CODES:
        section = explanation(code)
        assert "Fix:" in section and ("```" in section), f"{code}: no example or no fix"


def test_packaged_codes_md_is_docs_codes_md() -> None:
    assert (PACKAGE / "codes.md").read_bytes() == DOC.read_bytes(), (
        "checker/codes.md (shipped for 'ruleproof explain-code') must be a copy of "
        "docs/codes.md: cp docs/codes.md checker/codes.md")


def test_explain_code_prints_the_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-code", "RP403"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## RP403\n") and "no-legal-action" in out
    assert "## RP404" not in out and "## RP402" not in out
    assert out == explanation("RP403")
    assert main(["explain-code", "rp403"]) == 0
    assert main(["explain-code", "dead-rule"]) == 0
    assert capsys.readouterr().out.startswith("## RP403\n")


@pytest.mark.parametrize(("asked", "suggested"), [("RP430", "RP403"), ("RP4O3", "RP403"),
                                                  ("RP4066", None), ("dead-rul", "RP406")])
def test_explain_unknown_code_exits_2_with_did_you_mean(
        asked: str, suggested: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-code", asked]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"unknown code {asked!r}" in captured.err and "Traceback" not in captured.err
    if suggested:
        assert f"did you mean {suggested}" in captured.err


def test_sarif_rules_link_to_their_section_of_docs_codes_md() -> None:
    import json

    headings = set(re.findall(r"^## (RP\d{3})$", DOC.read_text("utf-8"), re.M))
    golden = json.loads((ROOT / "tests" / "golden" / "demo.sarif").read_text("utf-8"))
    rules = golden["runs"][0]["tool"]["driver"]["rules"]
    assert rules
    for rule in rules:
        doc, _, fragment = rule["helpUri"].partition("#")
        assert (ROOT / doc) == DOC and fragment == rule["id"].lower()
        assert rule["id"] in headings
