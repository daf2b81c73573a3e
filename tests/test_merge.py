"""`ruleproof merge`: shards of one run join into the reports and exit code of the
unsharded run; shards that do not belong together are refused, saying which."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from checker.cli import main
from checker.plan.merge import MergeError, check_shards

ROOT = Path(__file__).resolve().parent.parent


def _doc(k: int, n: int, *, code: str = "c1", options: str = "o1",
         spec: str = "s1") -> dict[str, Any]:
    return {"format_version": 1, "rulesets": [], "run": {
        "code": code, "options": options, "shard": [k, n],
        "rulesets": [{"id": "r", "file": "r.yaml", "spec_sha256": spec,
                      "source_sha256": "t", "results": {}}]}}


@pytest.mark.unit
def test_one_run_s_shards_are_accepted() -> None:
    assert check_shards([("a", _doc(2, 2)), ("b", _doc(1, 2))]) == 2


@pytest.mark.unit
@pytest.mark.parametrize(("docs", "says"), [
    ([("a", _doc(1, 2)), ("b", _doc(1, 2))], "shard 1/2 is given twice: a and b"),
    ([("a", _doc(1, 3)), ("b", _doc(3, 3))], "missing shard(s) 2/3"),
    ([("a", _doc(1, 2)), ("b", _doc(2, 2, code="c2"))], "b was made by another ruleproof"),
    ([("a", _doc(1, 2)), ("b", _doc(2, 2, options="o2"))], "b was checked with other options"),
    ([("a", _doc(1, 2)), ("b", _doc(2, 2, spec="s2"))], "b checked other rulesets"),
    ([("a", _doc(1, 2)), ("b", _doc(2, 3))], "b is shard 2/3, but a is one of 2"),
    ([("a", {"format_version": 1})], "a is not the JSON report of a ruleproof check"),
])
def test_shards_that_do_not_belong_together_are_refused(docs: list[tuple[str, Any]],
                                                         says: str) -> None:
    with pytest.raises(MergeError) as info:
        check_shards(docs)
    assert says in str(info.value)


@pytest.mark.e2e
def test_merged_shards_give_the_unsharded_reports_and_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(ROOT / "tests" / "corpus" / "findings", tmp_path / "f")
    monkeypatch.chdir(tmp_path)
    spec = "f/order-dependence.yaml"
    full = main(["check", spec, "--no-cache", "--jobs", "1", "--json", "full.json",
                 "--sarif", "full.sarif", "--html", "h0"])
    for k in (1, 2):
        main(["check", spec, "--no-cache", "--jobs", "1", "--shard", f"{k}/2",
              "--json", f"s{k}.json", "--html", f"h{k}"])
    merged = main(["merge", "s1.json", "s2.json", "--json", "m.json", "--sarif", "m.sarif",
                   "--html", "hm"])
    assert merged == full == 1                   # the planted order dependence fails both
    one, two = (json.loads(Path(p).read_text()) for p in ("full.json", "m.json"))
    assert one["rulesets"] == two["rulesets"]
    assert Path("full.sarif").read_text() == Path("m.sarif").read_text()
    capsys.readouterr()
    assert main(["merge", "s1.json", "s1.json"]) == 2
    assert "shard 1/2 is given twice" in capsys.readouterr().err
    assert not Path("reports").exists()          # nothing written when refused
