"""Citation drift: a changed source text is reported quote by quote, with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.cli import main
from checker.errata.drift import drift

pytestmark = pytest.mark.unit

OLD = ("Crouched\nSpeed is halved.\nArmor is halved.\n"
       "Flying State is automatically canceled if the model becomes Crouched.\n")
SPEC = """ruleset: t
source: old.txt
states:
  Crouched: {cite: "Speed is halved."}
  Flying: {}
rules:
  - id: crouched-cancels-flying
    cite: "Flying State is automatically canceled if the model becomes Crouched."
    when: Crouched
    do: [leave Flying]
informal:
  - {cite: "Armor is halved.", reason: "stat without a mechanic in this excerpt"}
"""


def _setup(tmp_path: Path, new_text: str) -> tuple[Path, Path]:
    (tmp_path / "old.txt").write_text(OLD, "utf-8")
    (tmp_path / "new.txt").write_text(new_text, "utf-8")
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC, "utf-8")
    return spec, tmp_path / "new.txt"


def test_unchanged_text_has_no_drift(tmp_path: Path) -> None:
    spec, new = _setup(tmp_path, OLD)
    result = drift(spec, new)
    assert result.clean and result.quotes == 3


def test_changed_sentence_is_reported_with_closest_passage(tmp_path: Path) -> None:
    changed = OLD.replace("automatically canceled", "canceled at the end of the turn")
    spec, new = _setup(tmp_path, changed)
    result = drift(spec, new)
    assert [d.code for d in result.diagnostics] == ["RP601"]
    d = result.diagnostics[0]
    assert d.location is not None and d.location.line == 8
    assert "crouched-cancels-flying" in d.message
    assert d.fix == ("replace it with 'Flying State is canceled at the end of the turn if the "
                     "model becomes Crouched.'")
    assert [s.text for s in result.uncovered] == [
        "Flying State is canceled at the end of the turn if the model becomes Crouched."]


def test_new_sentence_is_listed_as_uncovered(tmp_path: Path) -> None:
    spec, new = _setup(tmp_path, OLD + "Crouched models cannot Charge.\n")
    result = drift(spec, new)
    assert not result.diagnostics
    assert [s.text for s in result.uncovered] == ["Crouched models cannot Charge."]


def test_cli_drift_exit_codes(tmp_path: Path) -> None:
    spec, new = _setup(tmp_path, OLD)
    assert main(["drift", str(spec), "--source", str(new)]) == 0
    new.write_text(OLD.replace("Armor", "Defense"), "utf-8")
    assert main(["drift", str(spec), "--source", str(new)]) == 1
