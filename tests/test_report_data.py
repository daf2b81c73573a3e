"""The report view-model: wording, traces, anchors, paths, coverage lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report_support import ROOT, demo_run

from checker.options import Options
from checker.report.data import (
    REACHABLE_KINDS,
    ReportData,
    RulesetView,
    anchor,
    build_report,
    property_message,
    relative,
    status_label,
)
from checker.results import Status

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def data() -> ReportData:
    return build_report(demo_run(), Options(), base=ROOT)


def ruleset(data: ReportData, ident: str) -> RulesetView:
    return next(r for r in data.rulesets if r.id == ident)


def test_status_words_for_reachability_kinds() -> None:
    for kind in REACHABLE_KINDS:
        assert status_label(kind, Status.PROVED) == "reachable"
        assert status_label(kind, Status.VIOLATED) == "never reachable"
    assert status_label("always", Status.PROVED) == "proved"
    assert status_label("cap", Status.VIOLATED) == "violated"


@pytest.mark.parametrize("kind", ["always", "state-reachable", "termination", "reachable"])
def test_unknown_never_reads_as_success(kind: str) -> None:
    msg = property_message(kind, Status.UNKNOWN, "at most 3 tokens", None, "timeout: 20 s")
    assert msg.startswith("unknown: 'at most 3 tokens'")
    assert "timeout: 20 s" in msg and "unchecked" in msg
    assert "proved" not in msg and "reachable" not in msg.split("—")[0]


def test_violated_invariant_message_quotes_claim_and_counts_steps(data: ReportData) -> None:
    p = next(p for p in ruleset(data, "demo").properties if p.id == "hp-positive")
    assert p.status == "violated" and p.tone == "bad"
    assert p.message == ("violated: 'always hp >= 1' — after 2 steps: hp 1 → 0, "
                         "becomes Crouched, becomes Incapacitated")
    assert p.code == "RP501"


def test_property_claim_is_the_cited_rulebook_text(data: ReportData) -> None:
    p = next(p for p in ruleset(data, "demo").properties if p.id == "never-crouched-flying")
    assert p.claim == "Flying State is automatically canceled if the model becomes Crouched."
    assert p.message.startswith("proved: 'Flying State")


def test_reachability_verdicts_are_phrased_as_reachable(data: ReportData) -> None:
    props = {p.id: p for p in ruleset(data, "demo").properties}
    dead = props["state-reachable:Dead"]
    assert dead.label == "never reachable" and dead.status == "violated"
    assert dead.message == ("never reachable: 'some model can be Dead' — no sequence of "
                            "events leads there")
    assert dead.code is None  # reported once, as the unreachable-state finding
    both = props["blind-and-shrouded"]
    assert both.label == "reachable"
    assert both.message.endswith("a witness gets there in 2 steps")


def test_unknown_property_has_its_own_code_and_tone(data: ReportData) -> None:
    p = next(p for p in ruleset(data, "demo").properties if p.status == "unknown")
    assert (p.tone, p.code, p.label) == ("unknown", "RP502", "unknown")


def test_trace_shows_only_changes_with_before_and_after(data: ReportData) -> None:
    p = next(p for p in ruleset(data, "demo").properties if p.id == "hp-positive")
    assert p.trace is not None
    assert [v.text for v in p.trace.initial] == ["phase = strategic", "hp = 2"]
    first, second = p.trace.steps
    assert [c.text for c in first.changes] == ["hp 2 → 1"]
    assert [(c.name, c.before, c.after) for c in second.changes] == [
        ("Crouched", "0", "1"), ("Incapacitated", "0", "1"), ("hp", "1", "0")]
    assert [r.instance for r in second.fired] == ["incapacitated-at-0",
                                                   "incapacitated-crouches"]
    assert second.fired[0].anchor == "r-incapacitated-at-0"
    assert second.inputs == (("toughness_roll", "pass"),)


def test_phase_events_read_as_phases(data: ReportData) -> None:
    p = next(p for p in ruleset(data, "demo").properties
             if p.id == "rule-fires:bleeding-roll")
    assert p.trace is not None
    assert [s.text for s in p.trace.steps][:2] == ["activation phase begins", "end phase begins"]


def test_findings_carry_quotes_lines_and_sentences(data: ReportData) -> None:
    demo = ruleset(data, "demo")
    f = next(f for f in demo.findings if f.kind == "fact-contradiction")
    assert f.code == "RP401" and not f.resolved and f.severity == "error"
    assert [(q.element, q.line) for q in f.citations] == [("blinded-no-los", 38),
                                                          ("shrouded-360-los", 189)]
    sentence = demo.coverage.sentences[f.citations[0].sentences[0]]
    assert "no Line of Sight" in sentence.text
    assert (f.anchor, "RP401", False) in sentence.findings
    resolved = next(f for f in demo.findings if f.resolved)
    assert resolved.severity == "note" and resolved.resolved_by == ("blinded-actions",)
    assert resolved.resolved_quotes[0].quote.startswith("May only declare")


def test_coverage_lines_rebuild_the_rulebook_text(data: ReportData) -> None:
    demo = ruleset(data, "demo")
    text = (ROOT / "seeds" / "eldfall-states.txt").read_text(encoding="utf-8")
    rebuilt = "\n".join("".join(s.text for s in line.segments) for line in demo.coverage.lines)
    assert rebuilt == text.rstrip("\n")
    assert all(s.index == i for i, s in enumerate(demo.coverage.sentences))
    c = demo.coverage
    assert c.formalized + c.informal + c.uncovered == sum(
        1 for s in c.sentences if s.status != "heading")
    assert c.informal == 1


def test_paths_are_relative_and_normalized(data: ReportData) -> None:
    demo = ruleset(data, "demo")
    assert demo.spec_file == "tests/fixtures/report/demo.yaml"
    assert demo.source_file == "seeds/eldfall-states.txt"
    assert relative(str(ROOT / "spec" / "x.yaml"), ROOT) == "spec/x.yaml"
    assert relative("/elsewhere/x.yaml", Path("/work/here")) == "../../elsewhere/x.yaml"


def test_anchors_are_safe_in_urls() -> None:
    assert anchor("r", "rule-<script>") == "r-rule-_3c_script_3e_"
    assert anchor("p", "state-reachable:Dead") == "p-state-reachable:Dead"
    assert len({anchor("r", x) for x in ("a b", "a_b", "a_20_b", "a<b")}) == 4


def test_pages_are_unique_and_never_the_index(data: ReportData) -> None:
    assert [r.page for r in data.rulesets] == ["demo.html", "eldfall.html"]
    from checker.report.data import _page_name

    taken = {"index.html"}
    assert [_page_name(i, taken) for i in ("index", "index", "a/b")] == [
        "index-2.html", "index-3.html", "a-b.html"]


def test_counts_and_totals(data: ReportData) -> None:
    demo = ruleset(data, "demo")
    assert (demo.counts.violated, demo.counts.unknown, demo.counts.findings,
            demo.counts.resolved) == (3, 1, 5, 1)   # + RP417 'becomes', the term 'Reaction'
    assert data.totals.properties == sum(r.counts.properties for r in data.rulesets)


def test_timings_only_when_asked() -> None:
    run = demo_run()
    plain = build_report(run, Options(), base=ROOT)
    timed = build_report(run, Options(timings=True), base=ROOT)
    assert all(p.seconds is None for r in plain.rulesets for p in r.properties)
    assert plain.rulesets[0].seconds is None
    assert timed.rulesets[0].seconds == 1.5
    assert all(p.seconds is not None for r in timed.rulesets for p in r.properties)


def test_diagram_marks_terminal_and_unreachable_states(data: ReportData) -> None:
    demo = ruleset(data, "demo")
    states = {s.name: s for s in demo.diagram.states}
    assert states["Dead"].terminal and states["Dead"].unreachable
    assert not states["Crouched"].terminal and not states["Crouched"].unreachable
    assert "r-crouched-cancels-flying" in states["Flying"].elements
    assert states["Flying"].edges
