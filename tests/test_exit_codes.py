"""The error contract of the command line: bad input → 2 with located, coded lines; an
output that cannot be written → 2 with one line and nothing half-written; an internal
error or any other exception → 255 with the traceback and "this is a bug in ruleproof",
never 1 (which CI reads as "a violation was found")."""

from __future__ import annotations

from pathlib import Path

import pytest

import checker.plan.check
import checker.spec.coverage
from checker.cli import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, main
from checker.errors import InternalError

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "example-mini.yaml"


def test_valid_input_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE)]) == EXIT_OK


def test_spec_error_exits_2_with_located_coded_lines(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("ruleset: t\nsource: rules.txt\nstates:\n  Dead: {whne: 1}\n", "utf-8")
    (tmp_path / "rules.txt").write_text("A Dead model is removed.\n", "utf-8")
    assert main(["validate", str(spec)]) == EXIT_USAGE
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "error[RP" in line]
    assert lines and all(line.startswith(f"{spec}:") for line in lines), err
    assert "error[RP202]" in err and "Traceback" not in err
    assert "nothing was checked and nothing was written" in err


def test_injected_internal_error_exits_255_with_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(paths: object) -> object:
        raise InternalError("injected: a trace that does not replay")

    monkeypatch.setattr(checker.plan.check, "load_all", broken)
    assert main(["validate", str(EXAMPLE)]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "InternalError: injected" in err
    assert "this is a bug in ruleproof" in err


def test_any_other_exception_exits_255_with_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(ruleset: object) -> object:
        raise RuntimeError("injected: an impossible state")

    monkeypatch.setattr(checker.spec.coverage, "coverage", broken)
    assert main(["validate", str(EXAMPLE)]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: injected" in err
    assert "this is a bug in ruleproof" in err


def test_keyboard_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(paths: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(checker.plan.check, "load_all", interrupted)
    assert main(["validate", str(EXAMPLE)]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_unwritable_report_folder_exits_2_with_nothing_half_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "blocker").write_text("a regular file\n", "utf-8")
    code = main(["check", str(EXAMPLE), "--no-cache", "--jobs", "1", "--no-color",
                 "--html", "blocker/reports", "--json", "out/report.json",
                 "--sarif", "out/report.sarif"])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error[output]" in err and "blocker/reports" in err
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert (tmp_path / "blocker").read_text("utf-8") == "a regular file\n"
    assert not (tmp_path / "out").exists(), "no report may be written"


def test_unwritable_output_file_exits_2(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "blocker").write_text("a regular file\n", "utf-8")
    code = main(["export", str(EXAMPLE), "--promela", "-o", str(tmp_path / "blocker" / "x.pml")])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error[output]" in err and "Traceback" not in err
