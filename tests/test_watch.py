"""`ruleproof check --watch` (issue #18): after an edit of the spec in a temporary folder,
the watcher re-checks and prints exactly the verdict that changed; a spec that stops
loading prints its error and keeps the previous results. Every wait is bounded."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent

RULES = "A Prone model stands up when it activates.\n"
SPEC = """\
ruleset: w
source: rules.txt
states:
  Prone: {}
  Crouched: {}
events:
  - {id: knock-down, do: [enter Prone]}
  - {id: crouch, do: [enter Crouched]}
properties:
  - id: crouched-after-knock
    after: knock-down
    always: Crouched
"""


def _wait_for(out: Path, text: str, seconds: float = 120.0) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = out.read_text(encoding="utf-8") if out.exists() else ""
        if text in got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"no {text!r} within {seconds} s; the watcher printed:\n{got}")


def test_watch_reports_what_an_edit_changes(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text(RULES, encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    out = tmp_path / "out.txt"
    with out.open("w", encoding="utf-8") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "checker", "check", "spec.yaml",
                                 "--watch", "--jobs", "1", "--html", "reports"],
                                cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
        try:
            _wait_for(out, "[check 1]")
            time.sleep(0.5)
            # knocking a model down does not make it Crouched, but "Crouched or Prone" holds
            spec.write_text(SPEC.replace("always: Crouched", "always: Crouched or Prone"),
                            encoding="utf-8")
            got = _wait_for(out, "[check 2]")
            got = _wait_for(out, "'crouched-after-knock'")
            assert "  w: 'crouched-after-knock' violated → proved" in got
            spec.write_text(SPEC + "  - {id: broken\n", encoding="utf-8")
            got = _wait_for(out, "[check 3]")
            assert "error[RP104]" in got
            assert "[check 3] the spec does not load; the results above still stand" in got
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    assert (tmp_path / "reports" / "index.html").is_file()
