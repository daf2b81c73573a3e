"""The command line: exit codes, one-line located errors, no traceback for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checker.cli import main

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_version() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("ruleproof ")


def test_schema_is_json_and_matches_docs() -> None:
    out = run("schema")
    assert out.returncode == 0
    schema = json.loads(out.stdout)
    assert "ruleset" in schema["properties"]
    committed = (ROOT / "docs" / "spec.schema.json").read_text(encoding="utf-8")
    assert json.loads(committed) == schema, "regenerate docs/spec.schema.json"


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "--no-such-flag"])
    assert exc.value.code == 2


def test_missing_path_is_located_error_exit_2(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 2
    err = capsys.readouterr().err
    assert "error[RP101]" in err and "Traceback" not in err


def test_quote_not_in_source_prints_location_code_and_closest(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    (tmp_path / "rules.txt").write_text("A Dead model cannot be removed from play.\n"
                                        "Crouched models halve their Speed.\n", "utf-8")
    spec = tmp_path / "s.yaml"
    spec.write_text("ruleset: t\nsource: rules.txt\nstates:\n  Dead:\n"
                    "    cite: \"A Dead model can never be removed from play.\"\n", "utf-8")
    html = tmp_path / "out"
    assert main(["check", str(spec), "--html", str(html)]) == 2
    err = capsys.readouterr().err
    assert f"{spec}:5:11: error[RP207]" in err
    assert "closest passage: 'A Dead model cannot be removed from play.'" in err
    assert not html.exists(), "nothing may be written on bad input"


def test_binary_spec_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "bin.yaml"
    spec.write_bytes(b"\x00\x01\x02ruleset")
    assert main(["validate", str(spec)]) == 2
    assert "error[RP103]" in capsys.readouterr().err


def test_validate_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / "docs" / "example-mini.yaml")]) == 0
    assert "not verified" in capsys.readouterr().out
