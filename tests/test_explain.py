"""`ruleproof explain FINGERPRINT` (issue #18): a finding's card in the terminal, found by
the fingerprint the JSON report gives, with the sentences it quotes and its replayed
trace; an unknown fingerprint is a usage error. On the tutorial's first spec (two Eldfall
cover sentences that contradict while the cancellation sentence is left out)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def test_explain_prints_the_card_of_a_fingerprint(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    rules = re.search(r"^```text file=rules.txt\n(.*?)^```$", page, re.M | re.S)
    spec = re.search(r"^```yaml file=spec/tutorial.yaml\n(.*?)^```$", page, re.M | re.S)
    assert rules and spec
    (tmp_path / "rules.txt").write_text(rules.group(1), encoding="utf-8")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "tutorial.yaml").write_text(spec.group(1), encoding="utf-8")
    done = _cli(tmp_path, "check", "spec", "--json", "out.json")
    assert done.returncode == 1, done.stderr
    found = json.loads((tmp_path / "out.json").read_text())["rulesets"][0]["findings"]
    (finding,) = [f for f in found if f["kind"] == "fact-contradiction"]   # + 2 terms (RP304)
    card = _cli(tmp_path, "explain", finding["fingerprint"])
    assert card.returncode == 0, card.stderr
    lines = card.stdout.splitlines()
    assert lines[0] == "RP401 fact-contradiction · error · tutorial · spec/tutorial.yaml:14:5"
    assert '  crouched-light-cover: "Grants Light Cover against Ranged Attacks (model counts ' \
        'as in Light Cover)." (rulebook line 2)' in lines
    assert '  flying-no-cover: "Cannot benefit from Cover (Light or Heavy)." (rulebook line 5)' \
        in lines
    assert lines[-3:] == ["    start: the starting situation", "    1. take-flight: becomes Flying",
                          "    2. crouch: becomes Crouched"]
    unknown = _cli(tmp_path, "explain", "0123456789abcdef")
    assert unknown.returncode == 2 and "no finding or property has the fingerprint" in \
        unknown.stderr
