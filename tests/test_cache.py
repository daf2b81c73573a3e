"""The per-property cache: a proof is reused exactly when the property's cone of influence
is unchanged, and never changes a verdict.

The scenario uses docs/example-mini.yaml. Its rule `crouched-cancels-flying` writes only
the Flying State, and nothing but the Flying properties reads Flying; so editing that rule
must re-prove `no-stacking:Flying` and reuse every other proof. (Read from the spec, not
from the tool: no event guard, rule or property other than Flying's mentions Flying.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checker.options import Options
from checker.plan import check as pipeline
from checker.plan import store as cache
from checker.results import Method, PropertyResult, Status, Step, Trace
from checker.results.run import Run

# layers (tests/README.md): the tests that run a check are e2e, the others unit

ROOT = Path(__file__).resolve().parent.parent
PROOFS = {"dead-terminal", "hp-bounded", "no-stacking:Crouched", "no-stacking:Flying",
          "no-stacking:Incapacitated", "no-stacking:Dead", "no-stacking:Bleeding"}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "spec").mkdir()
    (tmp_path / "seeds").mkdir()
    shutil.copy(ROOT / "docs" / "example-mini.yaml", tmp_path / "spec" / "mini.yaml")
    shutil.copy(ROOT / "seeds" / "eldfall-states.txt", tmp_path / "seeds")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _edit_rule(spec: Path) -> None:
    text = spec.read_text(encoding="utf-8")
    anchor = '- id: crouched-cancels-flying\n'
    head, tail = text.split(anchor)
    old = "    when: Crouched\n"
    assert tail.index(old) < tail.index("- id:")       # the rule's own `when`
    spec.write_text(head + anchor + tail.replace(old, "    when: Crouched and hp >= 1\n", 1),
                    encoding="utf-8")


def _run(options: Options, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[dict[str, PropertyResult], dict[str, bool]]:
    """Check spec/ and record, per property, whether the pipeline found a cached proof."""
    seen: dict[str, bool] = {}
    real = cache.lookup

    def spy(system, prop, opts):  # type: ignore[no-untyped-def]
        found = real(system, prop, opts)
        seen.setdefault(prop.id, found is not None)
        return found

    monkeypatch.setattr(cache, "lookup", spy)
    run = pipeline.check([Path("spec")], options)
    monkeypatch.setattr(cache, "lookup", real)
    return {p.id: p for p in run.checked[0].result.properties}, seen


def _verdicts(results: dict[str, PropertyResult]) -> dict[str, tuple[Status, Method | None]]:
    return {k: (r.status, r.method) for k, r in results.items()}


@pytest.mark.e2e
def test_an_edit_reproves_only_the_properties_whose_cone_it_touches(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, seen = _run(Options(), monkeypatch)
    assert not any(seen.values())                          # an empty cache
    assert {k for k, r in first.items() if cache.cone_proof(r)} == PROOFS

    _edit_rule(work / "spec" / "mini.yaml")
    after, seen = _run(Options(), monkeypatch)
    assert {k for k, hit in seen.items() if hit} == PROOFS - {"no-stacking:Flying"}
    fresh, _ = _run(Options(use_cache=False), monkeypatch)
    assert _verdicts(after) == _verdicts(fresh)             # the cache changed no verdict
    assert after["no-stacking:Flying"].status is Status.PROVED


@pytest.mark.e2e
def test_unchanged_rerun_is_one_ruleset_hit_and_no_cache_means_no_files(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _run(Options(use_cache=False), monkeypatch)
    assert not (work / ".ruleproof-cache").exists()
    # without the scope re-check
    first, _ = _run(Options(widen=False), monkeypatch)
    entries = sorted((work / ".ruleproof-cache").rglob("*.json"))
    assert len(entries) == 1 + len(PROOFS)                  # the ruleset + one per proof
    again, seen = _run(Options(widen=False), monkeypatch)
    assert seen == {}                     # answered by the ruleset entry: nothing looked up
    assert _verdicts(again) == _verdicts(first)


@pytest.mark.e2e
def test_the_scope_recheck_keeps_no_proof_and_takes_none_for_the_spec(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-check decides the widened system from its own reachability core, without
    induction or certificate (`checker.plan.widen`): it stores nothing, so after an edit
    only the spec's own cone proofs are found, and a widened system (its domains are part
    of the key) never finds one of them."""
    hits: list[tuple[str, int, bool]] = []
    real = cache.lookup

    def spy(system, prop, opts):  # type: ignore[no-untyped-def]
        found = real(system, prop, opts)
        hp = next(v.hi for v in system.vars if v.name == "hp")
        hits.append((prop.id, hp, found is not None))
        return found

    monkeypatch.setattr(cache, "lookup", spy)
    pipeline.check([Path("spec")], Options())
    assert hits and not any(h for _, _, h in hits)                    # an empty cache
    assert {hp for _, hp, _ in hits} == {2, 5}        # hp [0, 2] and widened to [0, 5]
    hits.clear()
    _edit_rule(work / "spec" / "mini.yaml")
    pipeline.check([Path("spec")], Options())
    assert {p for p, hp, hit in hits if hp == 2 and hit} == PROOFS - {"no-stacking:Flying"}
    assert [p for p, hp, hit in hits if hp == 5] and \
        not [p for p, hp, hit in hits if hp == 5 and hit]


@pytest.mark.e2e
def test_a_damaged_entry_is_recomputed_not_trusted(work: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _run(Options(), monkeypatch)
    for entry in (work / ".ruleproof-cache").rglob("*.json"):
        data = json.loads(entry.read_text(encoding="utf-8"))
        if isinstance(data["value"], dict) and data["value"].get("id") == "hp-bounded":
            data["value"]["status"] = "no such status"
            entry.write_text(json.dumps(data), encoding="utf-8")
            break
    else:
        raise AssertionError("no cached proof of hp-bounded")
    _edit_rule(work / "spec" / "mini.yaml")                 # past the ruleset-level entry
    after, seen = _run(Options(), monkeypatch)
    assert seen["hp-bounded"] is False and after["hp-bounded"].status is Status.PROVED
    assert seen["dead-terminal"] is True


@pytest.mark.unit
def test_the_engines_alone_write_no_cache(work: Path) -> None:
    from checker.engines import check_property
    from checker.spec.load import load_ruleset
    system = load_ruleset(Path("spec/mini.yaml"), "spec/mini.yaml").system
    for prop in system.properties[:3]:
        check_property(system, prop, Options())
    assert not (work / ".ruleproof-cache").exists()


@pytest.mark.unit
def test_only_cone_proofs_are_cacheable() -> None:
    def result(status: Status, method: Method | None, trace: Trace | None) -> PropertyResult:
        return PropertyResult("p", "always", status, method, "", trace, (), "p", "")
    trace = Trace((Step("e", (), (), (), ()),), True)
    assert cache.cone_proof(result(Status.PROVED, Method.K_INDUCTION, None))
    assert cache.cone_proof(result(Status.VIOLATED, Method.SPACER, None))   # never reachable
    assert not cache.cone_proof(result(Status.VIOLATED, Method.BMC, trace))
    assert not cache.cone_proof(result(Status.PROVED, Method.BMC, trace))   # a witness
    assert not cache.cone_proof(result(Status.PROVED, Method.EXPLICIT, None))
    assert not cache.cone_proof(result(Status.UNKNOWN, None, None))


@pytest.mark.e2e
def test_the_cone_key_does_not_depend_on_the_hash_seed(work: Path) -> None:
    script = ("from pathlib import Path\n"
              "from checker.plan import store as cache\nfrom checker.options import Options\n"
              "from checker.spec.load import load_ruleset\n"
              "s = load_ruleset(Path('spec/mini.yaml'), 'spec/mini.yaml').system\n"
              "print([cache.cone_key(s, p, Options()) for p in s.properties])\n")
    keys = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": seed,
                                            "PYTHONPATH": str(ROOT)}).stdout
            for seed in ("1", "2", "3")}
    assert len(keys) == 1 and keys.pop().count("'") == 2 * 17


# ------------------------------------------------------------------ whole run: instant re-run

def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from checker.cli import main
    code = main(args)
    return code, capsys.readouterr().out


def _no_checking(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*a: object, **k: object) -> None:
        raise AssertionError("the run was checked again")
    monkeypatch.setattr(pipeline, "check", fail)


@pytest.mark.e2e
@pytest.mark.parametrize("extra", [[], ["--strict"]])
def test_an_identical_rerun_is_replayed_without_checking(
        work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        extra: list[str]) -> None:
    args = ["check", "spec", "--jobs", "1", "--json", "out.json", *extra]
    code, text = _cli(args, capsys)
    assert code == (1 if extra else 0) and "report: reports/index.html" in text
    _no_checking(monkeypatch)
    assert _cli(args, capsys) == (code, text)


@pytest.mark.e2e
@pytest.mark.parametrize("change", ["rulebook", "report deleted", "report edited", "json",
                                   "option", "no-cache"])
def test_a_changed_input_output_or_option_is_checked_again(
        work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        change: str) -> None:
    args = ["check", "spec", "--jobs", "1", "--json", "out.json"]
    code, text = _cli(args, capsys)
    if change == "rulebook":
        book = work / "seeds" / "eldfall-states.txt"
        book.write_bytes(book.read_bytes() + b"\nAn added sentence.\n")
    elif change == "report deleted":
        (work / "reports" / "index.html").unlink()
    elif change == "report edited":
        page = work / "reports" / "index.html"
        page.write_text(page.read_text(encoding="utf-8") + "<!-- -->", encoding="utf-8")
    elif change == "json":
        (work / "out.json").write_text("{}", encoding="utf-8")
    elif change == "option":
        args = [*args, "--max-depth", "30"]
    else:
        args = [*args, "--no-cache"]
    calls: list[int] = []
    real = pipeline.check

    def counted(*a: object, **k: object) -> Run:
        calls.append(1)
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "check", counted)
    again, text2 = _cli(args, capsys)
    assert calls == [1] and again == code
    if change in ("report deleted", "report edited", "json"):   # the same inputs, again
        assert text2 == text
    assert (work / "reports" / "index.html").is_file()
    assert json.loads((work / "out.json").read_text(encoding="utf-8"))["rulesets"]
