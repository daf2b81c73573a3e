"""`--jobs` and `--shard`: the same results whatever the number of worker processes, and
shards that split the work into disjoint parts whose union is the whole check."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checker.cli import main
from checker.options import Options
from checker.plan import check as pipeline
from checker.plan import shards
from checker.results.codec import finding_to, property_to
from checker.results.run import Run

# layers (tests/README.md): the tests that run a check are e2e, the others unit

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "findings"
# planted findings of several kinds, several rulesets in one run (docs/example-mini.yaml
# adds one with 17 properties)
SPECS = ["order-dependence.yaml", "forbidden-obligation.yaml", "non-termination.yaml",
         "unreachable-state.yaml", "fact-contradiction.yaml"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parallel")
    (root / "spec").mkdir()
    shutil.copy(CORPUS / "rules.txt", root / "spec" / "rules.txt")
    for name in SPECS:
        shutil.copy(CORPUS / name, root / "spec" / name)
    (root / "seeds").mkdir()
    shutil.copy(ROOT / "seeds" / "eldfall-states.txt", root / "seeds")
    shutil.copy(ROOT / "docs" / "example-mini.yaml", root / "spec" / "mini.yaml")
    return root


def _results(run: Run) -> dict[str, object]:
    out: dict[str, object] = {}
    for c in run.checked:
        r = c.result
        out[r.ruleset] = ([property_to(p) for p in r.properties],
                          [finding_to(f) for f in r.findings])
    return out


def _check(folder: Path, **opts: object) -> Run:
    return pipeline.check([folder / "spec"], Options(use_cache=False, **opts))  # type: ignore[arg-type]


@pytest.mark.e2e
def test_two_workers_give_exactly_the_one_process_results(folder: Path) -> None:
    one = _results(_check(folder, jobs=1))
    two = _results(_check(folder, jobs=2))
    assert len(one) == len(SPECS) + 1
    assert any(findings for _, findings in one.values())          # something to compare
    assert two == one


@pytest.mark.e2e
@pytest.mark.parametrize("n", [2, 3])
def test_shards_are_disjoint_and_together_the_whole_check(folder: Path, n: int) -> None:
    whole = _results(_check(folder))
    parts = [_results(_check(folder, shard=(k, n), jobs=1 + k % 2)) for k in range(1, n + 1)]
    for rid, (props, findings) in whole.items():
        got_props = [p for part in parts for p in part[rid][0]]      # type: ignore[index]
        got_findings = [f for part in parts for f in part[rid][1]]   # type: ignore[index]
        key = lambda d: repr(sorted(d.items()))                      # noqa: E731
        assert sorted(map(key, got_props)) == sorted(map(key, props))    # type: ignore[arg-type]
        # findings from properties (a dead rule, an unreachable State) follow the property;
        # conflicts and order dependence come with the scan that found them
        assert sorted(map(key, got_findings)) == sorted(map(key, findings))  # type: ignore[arg-type]
    sizes = [sum(len(part[rid][0]) for rid in part) for part in parts]  # type: ignore[index]
    assert all(sizes), sizes                       # 42 properties: no shard is left empty


@pytest.mark.e2e
def test_the_scan_parts_merged_are_the_whole_scan(folder: Path) -> None:
    """Each scan is decided in parts (`decision.scan_part`); the parts are disjoint, and
    merged they give what the scan gives when asked for everything at once."""
    from checker.engines import conflicts, order
    from checker.engines.decision import SCAN_PARTS, merge_scans
    found = 0
    for ruleset in pipeline.load_all([folder / "spec"]):
        for scan in (conflicts.scan_conflicts, order.scan_order):
            parts = [scan(ruleset, Options(), k) for k in range(SCAN_PARTS)]
            whole = scan(ruleset, Options())
            assert merge_scans(parts) == whole
            keys = [(f.kind, f.rules) for p in parts for f in p.findings]
            assert len(keys) == len(set(keys))            # no finding found by two parts
            found += len(whole.findings)
    assert found >= 4                         # the planted conflicts and order dependences


@pytest.mark.unit
def test_the_split_depends_only_on_names() -> None:
    a = Options(shard=(2, 5))
    assert shards.in_shard("bushido", "no-stacking:Prone", a) == \
        shards.in_shard("bushido", "no-stacking:Prone", Options(shard=(2, 5), jobs=4))
    owners = [k for k in range(1, 6)
              if shards.in_shard("bushido", "no-stacking:Prone", Options(shard=(k, 5)))]
    assert len(owners) == 1


@pytest.mark.unit
@pytest.mark.parametrize("bad", ["0/2", "3/2", "2", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_is_a_usage_error(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", f"--shard={bad}", "spec"])
    assert exc.value.code == 2
    assert "is not K/N" in capsys.readouterr().err


@pytest.mark.e2e
def test_a_shard_says_what_it_checked(folder: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    main(["check", "--no-cache", "--jobs", "1", "--shard", "1/2", "spec", "--html", "out"])
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("shard 1/2")]
    total = sum(len(r.system.properties) for r in pipeline.load_all([folder / "spec"]))
    assert len(line) == 1 and f"properties of {total}" not in line[0]
    scans = len(shards.scan_items()) * (len(SPECS) + 1)     # every part of both scans
    assert f"of {total} properties" in line[0] and f"of {scans} conflict" in line[0]


@pytest.mark.e2e
def test_parallel_checks_readings_like_one_process() -> None:
    from dataclasses import replace

    from checker.plan.executors import check_parallel
    from checker.plan.tasks import check_ruleset
    from checker.spec.load import load_ruleset

    corpus = Path(__file__).parent / "corpus" / "findings"
    # ambiguity-ok: every reading adopted, so no variant is checked, and the adopted
    # ambiguity is still reported (the pool once dropped it)
    rulesets = [load_ruleset(corpus / f"{n}.yaml")
                for n in ("ambiguity", "ambiguity-ok", "dead-rule")]
    one = [check_ruleset(r, Options(use_cache=False)).result for r in rulesets]
    two = [c.result for c in check_parallel(rulesets, Options(use_cache=False, jobs=2))]
    for a, b in zip(one, two, strict=True):
        assert [replace(p, seconds=0) for p in a.properties] == \
            [replace(p, seconds=0) for p in b.properties]
        assert a.findings == b.findings
    assert [f.kind for f in two[1].findings if f.kind == "ambiguity"] == ["ambiguity"]


@pytest.mark.e2e
def test_one_pool_per_ruleset_holds_only_its_own_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool forks once per ruleset, after the earlier rulesets' cores are released:
    every worker inherits what its parent holds, so holding all rulesets' cores at once made
    each worker as large as all of them (README check: 3.7 GB)."""
    from checker.engines.reach import api
    from checker.plan import executors
    from checker.spec.load import load_ruleset

    corpus = Path(__file__).parent / "corpus" / "findings"
    rulesets = [load_ruleset(corpus / f"{n}.yaml") for n in ("ambiguity", "dead-rule")]
    held: list[tuple[str, int, int]] = []
    real = executors._run_pool

    def spy(units, pending, *rest):  # type: ignore[no-untyped-def]
        before = len(api._PINNED)
        out = real(units, pending, *rest)
        held.append((units[0].id, before, len(api._PINNED)))
        return out

    pinned: list[int] = []
    real_core = executors.shared_core

    def core(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real_core(*args, **kwargs)
        pinned.append(len(api._PINNED))
        return out

    monkeypatch.setattr(executors, "_run_pool", spy)
    monkeypatch.setattr(executors, "shared_core", core)
    executors.check_parallel(rulesets, Options(use_cache=False, jobs=2))
    # one pool per ruleset, in order, none holding another's cores when it starts or ends
    assert held == [(rulesets[0].id, 0, 0), (rulesets[1].id, 0, 0)]
    # and while each runs, its own (the ambiguity's base and its variant: 2) are pinned
    assert pinned == [1, 2, 1]
