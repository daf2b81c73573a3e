"""No verdict, trace or report depends on how fast or how loaded the machine is (issue #19):
the JSON of a check is byte-identical with one process, two worker processes, and two
workers beside two processes that keep both cores busy. On Noctvale, which the exact
reachability core answers (its budget is a count of decision-diagram nodes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
SPEC = "spec/noctvale.yaml"


def _check(out: Path, jobs: int) -> bytes:
    done = subprocess.run([sys.executable, "-m", "checker", "check", SPEC, "--no-cache",
                           "--jobs", str(jobs), "--json", str(out), "--html", str(out) + ".d"],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 1, done.stderr        # Noctvale's text has real conflicts
    return out.read_bytes()


def test_the_same_json_with_one_or_two_workers_and_under_load(tmp_path: Path) -> None:
    one = _check(tmp_path / "one.json", 1)
    two = _check(tmp_path / "two.json", 2)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = _check(tmp_path / "loaded.json", 2)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert one == two
    assert one == loaded
