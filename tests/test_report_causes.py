"""Root causes (checker.report.data.causes): findings that share a cause are one card, told
in the rulebook's words, with what to do; the findings underneath stay one by one."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_report_support import ROOT, demo_run

from checker.options import Options
from checker.report import advice
from checker.report.data import build_report
from checker.report.data.views import RulesetView
from checker.results import Finding
from checker.results.run import Run

pytestmark = pytest.mark.unit


def _demo(extra: list[Finding]) -> RulesetView:
    run = demo_run()
    first = run.checked[0]
    result = replace(first.result, findings=list(first.result.findings) + extra)
    run = Run([replace(first, result=result), *run.checked[1:]])
    return build_report(run, Options(), base=ROOT).rulesets[0]


def _contradiction(model: str) -> Finding:
    return Finding("fact-contradiction", ("blinded-no-los", "shrouded-360-los"),
                   ("Blinded", "Shrouded"),
                   f"model {model!r} can be Blinded and Shrouded at once (a.Blinded=1, …)")


def test_the_same_clash_for_every_model_and_kind_is_one_cause() -> None:
    r = _demo([_contradiction("a"), _contradiction("b"),
               Finding("forbidden-obligation", ("blinded-no-los", "shrouded-360-los"),
                       ("Blinded", "Shrouded"), "the same two rules, another kind")])
    clash = [c for c in r.causes if set(c.rules) == {"blinded-no-los", "shrouded-360-los"}]
    assert len(clash) == 1                        # one card ...
    cause = clash[0]
    assert cause.situations == 4                  # ... over every finding underneath
    assert cause.models == ("a", "b")
    assert cause.codes == ("RP401", "RP402")
    # the fingerprints underneath are those of the findings, unchanged
    assert {f.fingerprint for f in cause.findings} == {
        f.fingerprint for f in r.findings if set(f.rules) == set(cause.rules)}
    # + the trigger-wording warning ("becomes Crouched") and the term "Reaction": 2 more causes
    assert r.counts.findings == 8 and r.counts.causes == 5


def test_headlines_speak_titles_and_never_variables() -> None:
    r = _demo([])
    for c in r.causes:
        assert "=1" not in c.headline and "a." not in c.headline
    order = next(c for c in r.causes if c.kinds == ("order-dependence",))
    # the headings the two cited sentences are under (rulebook lines 66 and 141)
    # the rulebook heading above the cited sentence ("Entering/Leaving Crouched:")
    assert order.headline.startswith("Entering/Leaving Crouched vs Incapacitated:")
    assert [s.title for s in order.sides] == ["Entering/Leaving Crouched", "Incapacitated"]
    assert order.decision == "The text must say which happens first."
    assert "resolve Entering/Leaving Crouched first" in order.errata


def test_every_cause_says_what_to_do_and_a_new_kind_gets_the_default() -> None:
    for c in _demo([]).causes:
        assert c.decision and c.errata and c.options
    assert advice.advice("kind-from-another-branch").decision == \
        "The text must settle this case."
    assert advice.tier("kind-from-another-branch") == "contradiction"


def test_attention_is_ranked_by_impact() -> None:
    r = _demo([])
    tiers = [c.tier for c in r.causes]
    assert tiers == sorted(tiers, key=advice.TIERS.index)
    assert r.causes[0].tier == "game-breaking"    # the order dependence
    assert all(c.severity == "warning" for c in r.warnings)
    assert all(c.tier == "warning" for c in r.warnings)


def test_an_element_title_from_the_spec_wins(tmp_path: object) -> None:
    from checker.spec.load import load_ruleset
    spec = (ROOT / "tests" / "fixtures" / "report" / "demo.yaml").read_text(encoding="utf-8")
    assert "  - id: crouched-cancels-flying\n" in spec
    spec = spec.replace("  - id: crouched-cancels-flying\n",
                        "  - id: crouched-cancels-flying\n    title: Landing when crouched\n")
    path = ROOT / "tests" / "fixtures" / "report" / "demo-titled.yaml"
    path.write_text(spec, encoding="utf-8")
    try:
        ruleset = load_ruleset(path, "tests/fixtures/report/demo-titled.yaml")
    finally:
        path.unlink()
    assert ruleset.elements["crouched-cancels-flying"].title == "Landing when crouched"
    assert ruleset.elements["incapacitated-crouches"].title == ""
