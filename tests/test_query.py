"""`ruleproof query SPEC EXPR` (issue #18): a reachable question answered with a replayed
shortest trace, an unreachable one with a proof, bad input with a located error. The
expected answers are read from the Noctvale text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from checker.options import Options
from checker.plan.query import query

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
NOCTVALE = ROOT / "spec" / "noctvale.yaml"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker", "query", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


def test_reachable_with_a_replayed_trace() -> None:
    # nothing in the text keeps a Broken fighter from Bleeding
    a = query(NOCTVALE, "Broken and Bleeding", Options(use_cache=False))
    assert a.answer == "reachable" and a.trace is not None and a.trace.replayed
    out = _cli(str(NOCTVALE), "Broken and Bleeding")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("can 'Broken and Bleeding' ever hold? yes, after ")
    assert "becomes Broken" in out.stdout and "becomes Bleeding" in out.stdout


def test_unreachable_with_a_proof() -> None:
    # "A fighter can have up to 3 Affliction tokens. If an effect would add more, keep only 3."
    a = query(NOCTVALE, "afflictions > 3", Options(use_cache=False))
    assert a.answer == "unreachable" and a.trace is None
    out = _cli(str(NOCTVALE), "afflictions > 3")
    assert out.returncode == 0
    # 1,623,528 since a fighter starts a battle with 1, 2 or 3 Wounds (887,736 with 1; 803,064
    # before the closest fighter could be the Insanity's source; 245,304 before one Sanity
    # check per kind of source; 77,072 with one battle): the core's count; its 10,732,218
    # micro states are exactly those of the interpreter's explicit search
    # (tests/test_reach.py, test_seed_counts)
    assert out.stdout.startswith("can 'afflictions > 3' ever hold? no: none of the 1,623,528 "
                                 "reachable situations satisfies it")


def test_without_the_core_the_z3_engines_answer_the_same() -> None:
    off = Options(use_cache=False, node_budget=0)
    assert query(NOCTVALE, "afflictions > 3", off).answer == "unreachable"
    a = query(NOCTVALE, "Broken and Bleeding", off)
    assert a.answer == "reachable" and a.trace is not None
    assert len(a.trace.steps) == len(query(NOCTVALE, "Broken and Bleeding",
                                           Options(use_cache=False)).trace.steps)  # type: ignore[union-attr]


def test_a_bad_expression_is_located_in_the_query() -> None:
    out = _cli(str(NOCTVALE), "Broken and Bleding")
    assert out.returncode == 2
    assert out.stderr.startswith("<query>:1:1: error[RP203]: in 'Broken and Bleding': "
                                 "unknown name 'Bleding' — did you mean 'Bleeding'?")
