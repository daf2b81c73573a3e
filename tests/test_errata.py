"""The errata workflow end to end on an Eldfall excerpt: each simulated errata is reported
exactly, with the documented exit codes (diff 0/1, baseline, drift 0/1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from checker.cli import main

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
MINI = (ROOT / "docs" / "example-mini.yaml").read_text("utf-8")

HEAL = """  - id: die
    when: Incapacitated
    do: [enter Dead]
  - id: heal
    do: [leave Dead, hp = 2]
"""
CONFLICT = """  - id: dead-only-nothing
    cite: "Cannot be removed"
    when: Crouched and Incapacitated
    must: {action: perceive}
"""


def _tree(tmp_path: Path, name: str, spec: str) -> Path:
    folder = tmp_path / name
    (folder / "spec").mkdir(parents=True)
    (folder / "seeds").mkdir()
    shutil.copy(ROOT / "seeds" / "eldfall-states.txt", folder / "seeds")
    (folder / "spec" / "eldfall.yaml").write_text(spec, "utf-8")
    return folder / "spec"


@pytest.fixture(autouse=True)
def _no_shared_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_diff_unchanged_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _tree(tmp_path, "old", MINI)
    new = _tree(tmp_path, "new", MINI)
    assert main(["diff", str(old), str(new)]) == 0
    assert "no semantic difference" in capsys.readouterr().out


def test_diff_heal_clears_dead(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _tree(tmp_path, "old", MINI)
    new = _tree(tmp_path, "new", MINI.replace("events:\n", "events:\n" + HEAL, 1))
    out_json = tmp_path / "diff.json"
    assert main(["diff", str(old), str(new), "--json", str(out_json),
                 "--html", str(tmp_path / "page")]) == 1
    out = capsys.readouterr().out
    assert "terminal 'dead-terminal': proved → violated" in out
    assert "events 'heal' added" in out and "events 'die' added" in out
    data = json.loads(out_json.read_text("utf-8"))
    flipped = {(v["property"], v["old"], v["new"]) for v in data["verdicts"]}
    assert ("dead-terminal", "proved", "violated") in flipped
    assert ("state-reachable:Dead", "violated", "proved") in flipped
    assert data["introduces_problems"] is True
    page = (tmp_path / "page" / "diff.html").read_text("utf-8")
    assert "fails the gate" in page and "Counterexample in the new version" in page
    assert "<code>dead-terminal</code>: proved → <strong>violated</strong>" in page
    assert "Reachable only in the new version." in page     # Dead, through the new heal
    assert "<code>heal</code></td><td>added" in page


def test_baseline_accepts_known_findings_and_fails_on_new(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _tree(tmp_path, "cur", MINI)
    base = tmp_path / "baseline.json"
    assert main(["baseline", str(spec), "--output", str(base)]) == 0
    accepted = json.loads(base.read_text("utf-8"))["findings"]
    # the mini example's "becomes Crouched" level rule carries the trigger-wording warning;
    # Dead is never entered; the text's "Reaction" (blinded-actions) is a term nothing declares
    assert sorted(f["kind"] for f in accepted) == ["trigger-wording", "undefined-reference",
                                                   "unreachable-state"]
    reports = tmp_path / "r"
    assert main(["check", str(spec), "--html", str(reports), "--baseline", str(base),
                 "--no-color"]) == 0
    capsys.readouterr()
    (spec / "eldfall.yaml").write_text(MINI.replace("constraints:\n", "constraints:\n" +
                                                    CONFLICT, 1), "utf-8")
    assert main(["check", str(spec), "--html", str(reports), "--baseline", str(base),
                 "--no-color"]) == 1
    out = capsys.readouterr().out
    assert "new finding not in the baseline" in out and "forbidden-obligation" in out


def test_drift_reports_the_changed_sentence(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    spec = _tree(tmp_path, "cur", MINI)
    text = (ROOT / "seeds" / "eldfall-states.txt").read_text("utf-8")
    new_text = tmp_path / "errata.txt"
    new_text.write_text(text.replace("Triggered when the model's HP reaches 0.",
                                     "Triggered when the model's HP reaches 0 or less."),
                        "utf-8")
    assert main(["drift", str(spec / "eldfall.yaml"), "--source", str(new_text)]) == 1
    out = capsys.readouterr().out
    assert "incapacitated-at-0: quote \"Triggered when the model's HP reaches 0.\" is no " \
           "longer in" in out
    assert "replace it with \"Triggered when the model's HP reaches 0 or less.\"" in out
    new_text.write_text(text, "utf-8")
    assert main(["drift", str(spec / "eldfall.yaml"), "--source", str(new_text)]) == 1
    assert "0 no longer match" in capsys.readouterr().out


def test_baseline_accepts_a_known_violation_and_fails_on_a_new_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    healed = MINI.replace("events:\n", "events:\n" + HEAL, 1)
    spec = _tree(tmp_path, "cur", healed)
    base = tmp_path / "baseline.json"
    reports = tmp_path / "r"
    assert main(["check", str(spec), "--html", str(reports), "--no-color"]) == 1  # Dead heals
    assert main(["baseline", str(spec), "--output", str(base)]) == 0
    accepted = json.loads(base.read_text("utf-8"))["findings"]
    assert [e["summary"].split(" — ")[0] for e in accepted if e["kind"] ==
            "violated-property"] == ["terminal 'dead-terminal' is violated"]
    capsys.readouterr()
    assert main(["check", str(spec), "--html", str(reports), "--baseline", str(base),
                 "--no-color"]) == 0
    out = capsys.readouterr().out      # accepted items are counted, not listed again
    assert "error[" not in out and "warning[" not in out
    assert f"{len(accepted)} accepted in the baseline, not listed again" in out
    # the errata is withdrawn: the accepted violation no longer occurs (and is listed)
    (spec / "eldfall.yaml").write_text(MINI, "utf-8")
    capsys.readouterr()
    assert main(["check", str(spec), "--html", str(reports), "--baseline", str(base),
                 "--no-color"]) == 0
    assert "baseline entry no longer occurs (remove it): eldfall: terminal 'dead-terminal'" \
        in capsys.readouterr().out
    # a baseline of the pre-errata version does not accept the violation the errata brings
    assert main(["baseline", str(spec), "--output", str(base)]) == 0
    (spec / "eldfall.yaml").write_text(healed, "utf-8")
    capsys.readouterr()
    assert main(["check", str(spec), "--html", str(reports), "--baseline", str(base),
                 "--no-color"]) == 1
    assert "new violation not in the baseline: eldfall: terminal 'dead-terminal'" in \
        capsys.readouterr().out


def test_a_bad_baseline_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _tree(tmp_path, "cur", MINI)
    reports = tmp_path / "r"
    assert main(["check", str(spec), "--html", str(reports), "--baseline",
                 str(tmp_path / "missing.json")]) == 2
    assert "RP101" in capsys.readouterr().err and not reports.exists()
    (tmp_path / "bad.json").write_text("{\"format_version\": 7}", "utf-8")
    assert main(["check", str(spec), "--html", str(reports), "--baseline",
                 str(tmp_path / "bad.json")]) == 2
    assert "RP201" in capsys.readouterr().err and not reports.exists()
