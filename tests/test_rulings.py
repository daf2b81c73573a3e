"""Pinned rulings: a published ruling lowers to an invariant over effective permissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.interpret import explore
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

TEXT = """Panicked
Must perform a full Run movement toward the nearest open field edge.
If Engaged at the start of its turn: declares Idle and Dodge.
Engaged
May only declare Idle or Walk.
"""

SPEC = """
ruleset: t
source: rules.txt
phases: [start, move]
states:
  Panicked: {}
  Engaged: {}
events:
  - {id: panic, do: [enter Panicked]}
  - {id: engage, do: [enter Engaged]}
decisions:
  movement: [idle, walk, run]
  action: [dodge, attack, nothing]
constraints:
  - id: panicked-run
    cite: "Must perform a full Run movement toward the nearest open field edge."
    when: Panicked and phase == start
    must: {movement: run}
  - id: panicked-engaged
    cite: "If Engaged at the start of its turn: declares Idle and Dodge."
    when: Panicked and Engaged and phase == start
    must: {movement: idle, action: dodge}
    overrides: [panicked-run%s]
  - id: engaged-moves
    cite: "May only declare Idle or Walk."
    when: Engaged
    only: {movement: [idle, walk]}
rulings:
  - id: panicked-engaged-idle-dodge
    cite: "If Engaged at the start of its turn: declares Idle and Dodge."
    when: Panicked and Engaged and phase == start
    expect: {movement: idle, action: dodge}
"""


def _ruling(tmp_path: Path, overrides: str) -> tuple[str, str]:
    (tmp_path / "rules.txt").write_text(TEXT, "utf-8")
    (tmp_path / "s.yaml").write_text(SPEC % overrides, "utf-8")
    system = load_ruleset(tmp_path / "s.yaml").system
    ruling = next(p for p in system.properties if p.kind == "ruling")
    vac = next(p for p in system.properties if p.id == "vacuity:panicked-engaged-idle-dodge")
    return explore(system, ruling).verdict, explore(system, vac).verdict


def test_ruling_holds_when_the_override_is_written(tmp_path: Path) -> None:
    assert _ruling(tmp_path, "") == ("holds", "holds")


def test_ruling_breaks_without_the_override(tmp_path: Path) -> None:
    # without 'overrides', the forced Run still applies: nothing is legal for movement,
    # so 'idle' is not allowed and the ruling fails in the situation
    text = SPEC.replace("    overrides: [panicked-run%s]\n", "")
    (tmp_path / "rules.txt").write_text(TEXT, "utf-8")
    (tmp_path / "s.yaml").write_text(text, "utf-8")
    system = load_ruleset(tmp_path / "s.yaml").system
    ruling = next(p for p in system.properties if p.kind == "ruling")
    result = explore(system, ruling)
    assert result.verdict == "fails" and result.path is not None
    assert [e for e, _ in result.path][-2:] in (["panic", "engage"], ["engage", "panic"])


def test_check_fails_when_a_pinned_ruling_breaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`check` re-verifies every pinned ruling and exits 1 when one no longer holds."""
    from checker.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules.txt").write_text(TEXT, "utf-8")
    args = ["check", "s.yaml", "--html", "r", "--json", "out.json", "--no-color"]

    def ruling_status() -> str:
        data = json.loads((tmp_path / "out.json").read_text("utf-8"))
        return next(p["status"] for p in data["rulesets"][0]["properties"]
                    if p["id"] == "panicked-engaged-idle-dodge")

    (tmp_path / "s.yaml").write_text(SPEC % "", "utf-8")
    main(args)
    assert ruling_status() == "proved"
    capsys.readouterr()
    (tmp_path / "s.yaml").write_text(SPEC.replace("    overrides: [panicked-run%s]\n", ""),
                                     "utf-8")          # the errata drops the override
    assert main(args) == 1
    assert ruling_status() == "violated"
    out = capsys.readouterr().out
    assert "s.yaml:28:5: error[RP501]: violated" in out      # the ruling's own line
