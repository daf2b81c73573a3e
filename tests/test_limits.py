"""Limits end to end (issue: a per-property timeout and resource limit surface as UNKNOWN
with the reason, and an UNKNOWN never passes the gate unless the user opts in).

The explicit search is cut to a handful of states, so it can only find the witnesses that
lie within them, the reachability core's node budget is 1 (it gives up, by count, and the
Z3 engines answer), and the solver is starved by a 1 ms timeout or an rlimit of 1: every
invariant must come out UNKNOWN with that reason (never proved, never violated), the only
decided results are reachability witnesses of the explicit search (each with its replayed
trace), and `check` must exit 3, or 0 with `--allow-unknown`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checker.cli import main
from checker.diagnostics import CODES

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "example-mini.yaml"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _run(tmp_path: Path, *flags: str) -> tuple[int, list[dict[str, Any]], list[Any]]:
    out = tmp_path / "out.json"
    code = main(["check", str(SPEC), "--html", str(tmp_path / "r"), "--json", str(out),
                 "--no-color", "--no-cache", "--explicit-limit", "5",
                 "--node-budget", "1", *flags])      # the reachability core gives up at once
    data = json.loads(out.read_text("utf-8"))
    props = [p for r in data["rulesets"] for p in r["properties"]]
    findings = [f for r in data["rulesets"] for f in r["findings"]]
    return code, props, findings


def _only_unknown_or_explicit_witness(props: list[dict[str, Any]], reason: str) -> None:
    """rlimit 1: z3 cannot answer a single query, so nothing but the explicit search's
    witnesses is decided."""
    unknown = [p for p in props if p["status"] == "unknown"]
    decided = [p for p in props if p["status"] != "unknown"]
    assert len(unknown) >= len(props) // 2, props
    assert all(reason in p["reason"] for p in unknown
               if p["kind"] not in ("reachable", "state-reachable", "rule-fires")), \
        [p["reason"] for p in unknown]
    for p in decided:       # found within the 5 explored states, replayed: honest
        assert p["status"] == "proved" and p["method"] == "explicit" and p["trace"], p
    invariants = [p for p in props if p["kind"] in ("always", "never", "no-stacking",
                                                     "terminal", "termination")]
    assert invariants and all(p["status"] == "unknown" for p in invariants)


def test_rlimit_gives_unknown_and_exit_3(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, props, _ = _run(tmp_path, "--rlimit", "1")
    _only_unknown_or_explicit_witness(props, "resource limit")
    assert code == 3
    assert "unknown" in capsys.readouterr().out.lower()


def test_timeout_gives_unknown_and_exit_3(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """1 ms: a query that happens to finish in time may still decide (honestly, with its
    certificate), but the proofs that need real work stop with "timeout"."""
    code, props, _ = _run(tmp_path, "--timeout", "0.001")
    timed_out = [p for p in props if p["status"] == "unknown" and "timeout" in p["reason"]]
    assert len(timed_out) >= 3, [(p["id"], p["status"], p["reason"]) for p in props]
    for p in props:
        assert p["status"] == "unknown" or p["method"], p   # decided only with a method
    assert code == 3
    assert "unknown" in capsys.readouterr().out.lower()


def test_allow_unknown_opts_out_of_the_gate(tmp_path: Path) -> None:
    code, props, findings = _run(tmp_path, "--rlimit", "1", "--allow-unknown")
    _only_unknown_or_explicit_witness(props, "resource limit")
    # the JSON findings carry their code; the severity is the registry's
    assert code == (1 if any(not f["resolved"] and CODES[f["code"]].severity.value == "error"
                             for f in findings) else 0)
