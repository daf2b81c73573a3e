"""The scope re-check (docs/semantics.md "The scope re-check"): widening a spec's ranges
(`checker.spec.widen`), the `scope-sensitive` finding and the UNKNOWN it never hides
(`checker.plan.widen`), and the finding through every report format.

The planted pair is tests/corpus/findings/scope-sensitive(-ok).yaml (also checked with the
rest of the corpus in test_conflicts.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from checker.cli import main
from checker.interpret import replay
from checker.ir import Ruleset
from checker.options import Options
from checker.plan import widen as plan_widen
from checker.plan.tasks import check_properties, check_ruleset
from checker.plan.widen import scope_recheck
from checker.results import PropertyResult, Status
from checker.spec.load import load_ruleset
from checker.spec.widen import ranges, widened

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).parent / "corpus" / "findings"
OPTIONS = Options(use_cache=False, timeout_ms=600_000)
# hp is kept at most 1 only by its range: the widened system breaks `small`
HEAL = """\
vars:
  hp: {range: [0, 1], init: 1}
events:
  - {id: heal, do: ["hp += 1"], cite: "A healed model regains 1 HP."}
properties:
  - {id: small, always: hp <= 1}
"""


def load(name: str) -> Ruleset:
    return load_ruleset(CORPUS / f"{name}.yaml")


def spec(tmp_path: Path, body: str) -> Ruleset:
    (tmp_path / "rules.txt").write_text((CORPUS / "rules.txt").read_text("utf-8"), "utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text("ruleset: t\nsource: rules.txt\n" + body, "utf-8")
    return load_ruleset(path)


# ============================================================================ widening

def test_ranges_widen_bounded_vars_and_markers_but_not_pinned_enums_or_inputs(
        tmp_path: Path) -> None:
    r = spec(tmp_path, """\
vars:
  hp: {range: [0, 1], init: 1}
  ap: {range: [2, 4]}
  big: {range: [0, 60]}
  pinned: {range: [0, 3], exact: true, cite: "A model has 1 HP."}
  stance: {values: [up, down]}
inputs:
  d6: {range: [1, 6]}
states:
  Down: {}
  Stunned: {markers: {max: 2}}
  Held: {markers: {max: 1, exact: true, cite: "A model has 1 HP."}}
""")
    assert r.doc is not None
    got = {(x.name, x.kind): (x.lo, x.hi, x.wide) for x in ranges(r.doc)}
    # [lo, hi] → hi + (hi - lo) + 1 (2*hi + 1 from 0), at most lo + 64; markers 2*max + 1
    assert got == {("hp", "var"): (0, 1, 3), ("ap", "var"): (2, 4, 7),
                   ("big", "var"): (0, 60, 64), ("Stunned", "markers"): (0, 2, 5)}
    wide = widened(r)
    assert wide is not None
    doms = {v.name: (v.lo, v.hi, v.init) for v in wide.system.vars}
    assert doms["hp"] == (0, 3, (1,))          # the initial value stays as written
    assert doms["ap"][:2] == (2, 7) and doms["big"][:2] == (0, 64)
    assert doms["pinned"][:2] == (0, 3) and doms["Held"][:2] == (0, 1)
    assert doms["Stunned"][:2] == (0, 5) and doms["Down"][:2] == (0, 2)
    assert doms["d6"][:2] == (1, 6) and doms["stance"][:2] == (0, 1)
    # the spec's own system is untouched
    assert {v.name: v.hi for v in r.system.vars}["hp"] == 1


def test_an_open_start_grows_with_its_range_and_a_chosen_start_does_not(
        tmp_path: Path) -> None:
    # `init: [1, 2]` up to the range's top 2 says "any start from 1 up": widened to 0..5,
    # it starts anywhere from 1 to 5. A single start, or a list below the top, is the
    # spec's (or the text's) own number and stays.
    r = spec(tmp_path, """\
vars:
  hp: {range: [0, 2], init: [1, 2]}
  wounds: {range: [-1, 3], init: [3, 1, 2]}
  ap: {range: [0, 3], init: [0, 1]}
  ki: {range: [0, 3], init: 3}
""")
    wide = widened(r)
    assert wide is not None
    doms = {v.name: (v.lo, v.hi, tuple(sorted(v.init))) for v in wide.system.vars}
    assert doms["hp"] == (0, 5, (1, 2, 3, 4, 5))
    assert doms["wounds"] == (-1, 8, (1, 2, 3, 4, 5, 6, 7, 8))
    assert doms["ap"] == (0, 7, (0, 1))
    assert doms["ki"] == (0, 7, (3,))
    # the spec's own starts are untouched
    assert {v.name: tuple(sorted(v.init)) for v in r.system.vars}["hp"] == (1, 2)


def test_the_clamp_of_an_assignment_follows_the_widened_range(tmp_path: Path) -> None:
    r = spec(tmp_path, HEAL)
    base = {p.id: p.status for p in check_properties(r.system, OPTIONS)}
    assert base["small"] is Status.PROVED
    found, unknown = scope_recheck(r, check_properties(r.system, OPTIONS), OPTIONS)
    assert unknown == []
    (f,) = found
    assert f.kind == "scope-sensitive" and f.rules == ("small", "vars:hp")
    assert "proved only because hp ≤ 1; with hp up to 3" in f.message


# ============================================================================ the finding

def test_planted_scope_sensitive_names_the_range_and_replays_on_the_widened_spec() -> None:
    ruleset = load("scope-sensitive")
    checked = check_ruleset(ruleset, OPTIONS)
    (f,) = [x for x in checked.result.findings if x.kind == "scope-sensitive"]
    assert f.code == "RP414"
    assert f.message == ("wounded-is-down: 'A wounded model is Down.' is proved only because "
                         "hp ≤ 1; with hp up to 3 it breaks (the trace replays it on the "
                         "widened spec)")
    assert dict(f.detail)["range of hp"] == "0..1 widened to 0..3"
    # the property itself stays proved at the spec's range
    assert {p.id: p.status for p in checked.result.properties}["wounded-is-down"] \
        is Status.PROVED
    assert f.trace is not None and f.trace.replayed
    # the trace is a run of the widened spec (heal to 2 HP, then a wound): replay it there
    wide = widened(ruleset)
    assert wide is not None
    prop = next(p for p in wide.system.properties if p.id == "wounded-is-down")
    start = tuple(v for _, v in f.trace.steps[0].state)
    events = [(s.event, ()) for s in f.trace.steps[1:]]
    again = replay(wide.system, start, events, prop, expect="violation")
    assert [s.event for s in again.steps] == ["", "heal", "wound"]
    # ... and it is no run of the spec as written (HP cannot reach 2 there)
    hp = dict(again.steps[1].state)["hp"]
    assert hp == 2 > next(v.hi for v in ruleset.system.vars if v.name == "hp")


def test_the_widened_verdicts_are_the_certified_ones_without_the_certificate() -> None:
    """The re-check takes a widened verdict by exhaustion without the Z3 certificate or an
    induction proof (it only compares it with the spec's own): on the widened corpus spec
    the verdicts equal those the certified path gives, and none is named certified."""
    for name in ("scope-sensitive", "scope-sensitive-ok"):
        ruleset = load(name)
        wide = widened(ruleset)
        system = wide.system if wide is not None else ruleset.system
        certified = {r.id: r.status for r in check_properties(system, OPTIONS)}
        plain = check_properties(system, OPTIONS, recheck=True)
        assert {r.id: r.status for r in plain} == certified
        assert Status.PROVED in certified.values()
        modes = {p.id: p.mode for p in system.properties}
        for r in plain:
            if r.status is Status.PROVED and r.trace is None:     # not a witness
                assert r.method is not None and r.method.value in (
                    "decision-diagrams-unchecked", "explicit"), r.method
                assert ("not certified" if modes[r.id] == "invariant" else "no trace") \
                    in r.reason, r.reason


def test_a_widened_never_reachable_is_still_certified(tmp_path: Path) -> None:
    """What the re-check reports is obtained as in the main check: a reachable property
    that the widened system can never reach is decided by exhaustion *with* the Z3
    certificate, even with `recheck=True` (only invariants that still hold skip it)."""
    r = spec(tmp_path, HEAL + "  - {id: never, reachable: hp < 0}\n")
    got = {p.id: p for p in check_properties(r.system, OPTIONS, recheck=True)}
    assert got["never"].status is Status.VIOLATED
    assert got["never"].method is not None and got["never"].method.value == "decision-diagrams"
    assert "certified by Z3" in got["never"].reason
    assert got["small"].status is Status.PROVED and "not certified" in got["small"].reason


def test_a_widened_reachable_property_gets_no_trace_but_a_broken_invariant_does(
        tmp_path: Path) -> None:
    """With `recheck=True` a reachability property the decision diagrams' exact set still
    meets is proved without a witness (no macro layers, no walk back: the re-check drops
    it); the main check's path gives the same verdict with a replayed trace, and an
    invariant that breaks still gets its trace (the re-check reports it)."""
    r = spec(tmp_path, HEAL + "  - {id: full, reachable: hp == 1}\n")
    wide = widened(r)
    assert wide is not None
    plain = {p.id: p for p in check_properties(wide.system, OPTIONS, recheck=True)}
    main = {p.id: p for p in check_properties(wide.system, OPTIONS)}
    assert plain["full"].status is main["full"].status is Status.PROVED
    assert plain["full"].trace is None and "no trace" in plain["full"].reason
    assert plain["full"].method is not None and \
        plain["full"].method.value == "decision-diagrams-unchecked"
    assert main["full"].trace is not None and main["full"].trace.replayed
    assert plain["small"].status is Status.VIOLATED and plain["small"].trace is not None
    assert plain["small"].trace.replayed
    assert [s.event for s in plain["small"].trace.steps] == \
        [s.event for s in main["small"].trace.steps]


def test_the_pinned_twin_has_no_finding_and_is_not_widened() -> None:
    ruleset = load("scope-sensitive-ok")
    assert ruleset.doc is not None and ranges(ruleset.doc) == []
    assert widened(ruleset) is None
    checked = check_ruleset(ruleset, OPTIONS)
    assert not [f for f in checked.result.findings if f.kind == "scope-sensitive"]
    assert all(p.status is Status.PROVED for p in checked.result.properties)


def test_no_widen_skips_the_recheck() -> None:
    checked = check_ruleset(load("scope-sensitive"), replace(OPTIONS, widen=False))
    assert not [f for f in checked.result.findings if f.kind == "scope-sensitive"]


def test_an_undecided_widened_property_is_unknown_never_clean(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load("scope-sensitive")
    props = check_properties(ruleset.system, OPTIONS)

    def undecided(system: object, ids: object, options: object, proofs: object
                  ) -> dict[str, PropertyResult]:
        return {p.id: replace(p, status=Status.UNKNOWN, reason="state limit reached",
                              trace=None) for p in props if p.status is Status.PROVED}

    monkeypatch.setattr(plan_widen, "decide", undecided)
    found, unknown = scope_recheck(ruleset, props, OPTIONS)
    assert found == []
    proved = [p for p in props if p.status is Status.PROVED]
    assert sorted(u.id for u in unknown) == sorted(f"scope:{p.id}" for p in proved)
    assert all(u.status is Status.UNKNOWN and u.kind == "scope-sensitive" for u in unknown)
    assert all("hp up to 3" in u.reason and "state limit reached" in u.reason
               for u in unknown)


def test_the_recheck_under_jobs_gives_the_one_process_findings() -> None:
    from checker.plan.executors import check_parallel

    ruleset = load("scope-sensitive")
    one = check_ruleset(ruleset, OPTIONS).result
    (two,) = check_parallel([ruleset], replace(OPTIONS, jobs=2))
    assert [(f.kind, f.rules, f.message) for f in two.result.findings] == \
        [(f.kind, f.rules, f.message) for f in one.findings]
    assert [(p.id, p.status) for p in two.result.properties] == \
        [(p.id, p.status) for p in one.properties]


# ============================================================================ reports

def test_the_finding_flows_through_every_report(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["check", str(CORPUS / "scope-sensitive.yaml"), "--no-cache", "--jobs", "1",
                 "--no-color", "--json", "r.json", "--sarif", "r.sarif", "--junit",
                 "r.xml", "--html", "html"])
    out = capsys.readouterr().out
    assert code == 0          # a warning: fails only with --strict
    assert "1 warning (1 finding)" in out     # the terminal's one line per root cause
    data = json.loads(Path("r.json").read_text("utf-8"))
    (f,) = [f for r in data["rulesets"] for f in r["findings"]
            if f["kind"] == "scope-sensitive"]
    assert "'A wounded model is Down.' is proved only because hp ≤ 1" in f["message"]
    assert f["code"] == "RP414" and f["trace"] is not None
    sarif = json.loads(Path("r.sarif").read_text("utf-8"))
    assert any(r["ruleId"] == "RP414" for run in sarif["runs"] for r in run["results"])
    assert "RP414" in Path("r.xml").read_text("utf-8")
    page = "".join(p.read_text("utf-8") for p in Path("html").glob("*.html"))
    assert "RP414" in page and "proved only because hp ≤ 1" in page
    strict = main(["check", str(CORPUS / "scope-sensitive.yaml"), "--no-cache", "--jobs",
                   "1", "--no-color", "--strict", "--html", "html"])
    capsys.readouterr()
    assert strict == 1


def test_an_unknown_recheck_is_an_unknown_in_the_report(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    def undecided(system: object, ids: object, options: object, proofs: object
                  ) -> dict[str, PropertyResult]:
        return {"wounded-is-down": PropertyResult("wounded-is-down", "always", Status.UNKNOWN,
                                                  None, "state limit reached")}

    monkeypatch.setattr(plan_widen, "decide", undecided)
    monkeypatch.chdir(tmp_path)
    code = main(["check", str(CORPUS / "scope-sensitive.yaml"), "--no-cache", "--jobs", "1",
                 "--no-color", "--json", "r.json", "--junit", "r.xml", "--html", "html"])
    out = capsys.readouterr().out
    assert code == 3, out                   # only UNKNOWN: never a clean exit
    data = json.loads(Path("r.json").read_text("utf-8"))
    (p,) = [p for r in data["rulesets"] for p in r["properties"]
            if p["id"] == "scope:wounded-is-down"]
    assert p["status"] == "unknown" and "hp up to 3" in p["reason"]
    assert "scope:wounded-is-down" in Path("r.xml").read_text("utf-8")


def test_a_widened_spec_that_does_not_load_is_unknown_never_clean(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from checker.diagnostics import Diagnostic
    from checker.errors import SpecError
    from checker.spec import widen as spec_widen

    def broken(ruleset: object, which: object = None) -> None:
        raise SpecError([Diagnostic("RP211", "range [0, 99] must span at most 64 values")])

    monkeypatch.setattr(spec_widen, "widened", broken)
    ruleset = load("scope-sensitive")
    props = check_properties(ruleset.system, OPTIONS)
    found, unknown = scope_recheck(ruleset, props, OPTIONS)
    assert found == [] and unknown
    assert all(u.status is Status.UNKNOWN and "does not load" in u.reason for u in unknown)
