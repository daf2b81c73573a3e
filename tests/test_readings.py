"""Readings of an ambiguous sentence (`readings:`, `adopt:`; docs/spec-language.md
"Readings"): lowering one system per variant, the variants a check runs, the `ambiguity`
finding with its witness, adoption, identical readings, and the soundness of the scheme:
a verdict is reported "under all readings" iff it is the same under every combination of
readings, each checked on its own."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.errors import InternalError, SpecError
from checker.interpret import replay
from checker.options import Options
from checker.plan import readings as plan_readings
from checker.plan.tasks import check_properties, check_ruleset
from checker.results import GATED_KINDS, PropertyResult, Status
from checker.results.codec import ruleset_result_from, ruleset_result_to
from checker.spec import readings as spec_readings
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).parent / "corpus" / "findings"
OPTIONS = Options(use_cache=False, timeout_ms=600_000)
REST = "one Rest removes every kind of marker listed"
CHOSEN = "one Rest removes one kind, chosen by the player"


# ============================================================================ the corpus twins

def test_the_planted_ambiguity_names_the_sentence_each_reading_and_the_witness() -> None:
    ruleset = load_ruleset(CORPUS / "ambiguity.yaml")
    assert [(r.element, r.labels, r.adopted) for r in ruleset.readings] == [
        ("rest", (REST, CHOSEN), "")]
    result = check_ruleset(ruleset, OPTIONS).result
    found = [f for f in result.findings if f.kind == "ambiguity"]
    assert len(found) == 1 and not found[0].resolved
    f = found[0]
    # the element's two sentences, named as two sentences, then the question
    assert f.message.startswith(
        'the sentences "A model may take a Rest to remove all Dazed markers." and '
        '"A model may take a Rest to remove one Wound marker." can be read 2 ways, and '
        "property 'rest-clears-daze' depends on which: ")
    assert f"'{REST}': holds" in f.message and f"'{CHOSEN}': broken" in f.message
    assert f.detail == ((f"reading '{REST}'", "holds"), (f"reading '{CHOSEN}'", "broken"))
    # the witness is replayed under the reading where the promise breaks, not the base
    assert f.trace is not None and f.trace.replayed
    assert [s.event for s in f.trace.steps[1:]] == ["daze", "rest"]
    assert dict(f.trace.steps[-1].inputs)["rest_removes"] == "wound"
    broken = spec_readings.lower_choice(ruleset, (("rest", 1),))
    start = tuple(v for _, v in f.trace.steps[0].state)
    prop = next(p for p in broken.system.properties if p.id == "rest-clears-daze")
    events = [(s.event, tuple(broken.system.var(n).labels.index(v)
                              for n, v in s.inputs)) for s in f.trace.steps[1:]]
    again = replay(broken.system, start, events, prop, expect="violation")
    assert again.replayed
    with pytest.raises(InternalError):   # the base reading keeps the promise: no violation
        replay(ruleset.system, start, events, prop, expect="violation")
    # the property is reported under the reading where it breaks; the others hold under all
    by_id = {p.id: p for p in result.properties}
    assert by_id["rest-clears-daze"].status is Status.VIOLATED
    assert by_id["rest-clears-daze"].readings == f"'{CHOSEN}'"
    assert {p.readings for i, p in by_id.items() if i != "rest-clears-daze"} == {"all"}


def test_a_broken_base_reading_is_reported_broken(tmp_path: Path) -> None:
    """The reading where the promise breaks is the base (the first reading): the property
    is still reported violated under it, not proved under the other."""
    spec = yaml.safe_load((CORPUS / "ambiguity.yaml").read_text("utf-8"))
    rest = next(e for e in spec["events"] if e["id"] == "rest")
    rest["readings"].reverse()
    path = tmp_path / "ambiguity-swapped.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), "utf-8")
    shutil.copy(CORPUS / spec["source"], tmp_path / spec["source"])
    ruleset = load_ruleset(path)
    assert ruleset.readings[0].labels == (CHOSEN, REST)
    result = check_ruleset(ruleset, OPTIONS).result
    prop = next(p for p in result.properties if p.id == "rest-clears-daze")
    assert prop.status is Status.VIOLATED and prop.readings == f"'{CHOSEN}'"
    assert prop.trace is not None and prop.trace.replayed
    (f,) = [f for f in result.findings if f.kind == "ambiguity"]
    assert f.detail == ((f"reading '{CHOSEN}'", "broken"), (f"reading '{REST}'", "holds"))


def test_the_adopted_reading_resolves_it_and_is_the_only_one_checked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset(CORPUS / "ambiguity-ok.yaml")
    assert ruleset.readings[0].adopted == REST and ruleset.variants == ()
    assert plan_readings.variant_choices(ruleset) == []
    result = check_ruleset(ruleset, OPTIONS).result
    (f,) = [f for f in result.findings if f.kind == "ambiguity"]
    assert f.resolved and f.resolved_by == ("rest.adopt",)
    assert f"adopted: '{REST}'" in f.message and "Rest FAQ" in f.message
    assert all(p.status is Status.PROVED and p.readings == "" for p in result.properties)


def test_the_report_says_under_which_reading(tmp_path: Path) -> None:
    import json

    from checker.cli import main

    out = tmp_path / "r.json"
    assert main(["check", str(CORPUS / "ambiguity.yaml"), "--no-cache", "--json", str(out),
                 "--html", str(tmp_path / "html")]) == 1
    props = {p["id"]: p for p in json.loads(out.read_text())["rulesets"][0]["properties"]}
    assert props["rest-clears-daze"]["readings"] == f"'{CHOSEN}'"
    assert f"violated under the reading '{CHOSEN}'" in props["rest-clears-daze"]["message"]
    assert "proved under all readings" in props["termination"]["message"]
    # the HTML property table says it too, beside the verdict (not only in the finding)
    page = (tmp_path / "html" / "ambiguity.html").read_text("utf-8")
    row = page[page.index('id="p-rest-clears-daze"'):]
    row = row[:row.index("</tr>")]
    assert "violated" in row and f"under the reading &#39;{CHOSEN}&#39;" in row
    other = page[page.index('id="p-termination"'):]
    assert "under the reading" not in other[:other.index("</tr>")]


def test_codec_round_trip_keeps_the_reading() -> None:
    result = check_ruleset(load_ruleset(CORPUS / "ambiguity.yaml"), OPTIONS).result
    again = ruleset_result_from(ruleset_result_to(result))
    assert again.properties == result.properties and again.findings == result.findings


# ============================================================================ lowering

def test_a_spec_without_readings_is_lowered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = spec_readings.lower
    monkeypatch.setattr(spec_readings, "lower", lambda *a: calls.append(1) or real(*a))
    ruleset = load_ruleset(CORPUS / "dead-rule.yaml")
    assert calls == [1] and ruleset.readings == () and ruleset.variants == ()


def _write(tmp_path: Path, spec: dict) -> Path:  # type: ignore[type-arg]
    shutil.copy(CORPUS / "rules.txt", tmp_path / "rules.txt")
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def _spec(rest: list[list[str]], hurt: list[list[str]]) -> dict:  # type: ignore[type-arg]
    return {
        "ruleset": "readings", "source": "rules.txt",
        "inputs": {"pick": ["dazed", "wound"]},
        "states": {"Dazed": {"markers": {"max": 2}}, "Wound": {"markers": {"max": 2}}},
        "events": [
            {"id": "daze", "do": ["add Dazed"]},
            {"id": "rest", "cite": "A model may take a Rest to remove all Dazed markers.",
             "readings": [{"label": f"rest {i}", "do": d} for i, d in enumerate(rest)]},
            {"id": "hurt", "cite": "A model may take a Rest to remove one Wound marker.",
             "readings": [{"label": f"hurt {i}", "do": d} for i, d in enumerate(hurt)]}],
        "properties": [
            {"id": "rest-clears-daze", "after": "rest", "never": "Dazed"},
            {"id": "few-wounds", "always": "count(Wound) <= 1"},
            {"id": "dazed-and-wounded", "reachable": "Dazed and Wound"}]}


def test_identical_readings_are_a_warning_and_checked_once(tmp_path: Path) -> None:
    ruleset = load_ruleset(_write(tmp_path, _spec([["remove all Dazed"], ["remove all Dazed"]],
                                                  [["add Wound"], ["add 1 Wound"]])))
    assert [r.identical for r in ruleset.readings] == [(("rest 0", "rest 1"),),
                                                       (("hurt 0", "hurt 1"),)]
    assert ruleset.variants == () and plan_readings.variant_choices(ruleset) == []
    result = check_ruleset(ruleset, OPTIONS).result
    kinds = sorted(f.kind for f in result.findings)
    assert kinds.count("identical-readings") == 2 and "ambiguity" not in kinds


def test_conditional_effects_and_their_guard(tmp_path: Path) -> None:

    spec = _spec([["if pick == dazed: remove all Dazed"], ["remove all Dazed"]],
                 [["add Wound"], ["if Dazed: add Wound"]])
    ruleset = load_ruleset(_write(tmp_path, spec))
    assert len(ruleset.variants) == 2
    spec["events"][0]["do"] = ["if Dazed: add Dazed"]     # the condition reads what it changes
    with pytest.raises(SpecError) as exc:
        load_ruleset(_write(tmp_path, spec))
    assert [d.code for d in exc.value.diagnostics] == ["RP206"]
    assert "reads 'Dazed', which the effect changes" in exc.value.diagnostics[0].message


def test_independent_readings_are_checked_separately_interacting_ones_together(
        tmp_path: Path) -> None:
    # rest and hurt write different markers, but one property reads both (joined)
    both = load_ruleset(_write(tmp_path, _spec([["remove all Dazed"], ["remove 1 Wound"]],
                                               [["add Wound"], ["add 2 Wound"]])))
    assert len(plan_readings.variant_choices(both)) == 3        # 2 x 2 - the base
    spec = _spec([["remove all Dazed"], ["remove 1 Dazed"]], [["add Wound"], ["add 2 Wound"]])
    spec["properties"] = [{"id": "rest-clears-daze", "after": "rest", "never": "Dazed"},
                          {"id": "few-wounds", "always": "count(Wound) <= 1"}]
    apart = load_ruleset(_write(tmp_path, spec))
    assert len(plan_readings.variant_choices(apart)) == 2       # 1 + 1: the sum


# ============================================================================ soundness

EFFECTS = ["remove all Dazed", "remove 1 Wound", "add Wound", "add Dazed",
           "if pick == dazed: remove all Dazed", "if pick == wound: add Wound"]
DOS = st.lists(st.sampled_from(EFFECTS), min_size=0, max_size=2, unique=True)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.lists(DOS, min_size=2, max_size=2), st.lists(DOS, min_size=2, max_size=2))
def test_proved_under_all_readings_iff_proved_under_each(rest: list[list[str]],
                                                          hurt: list[list[str]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ruleset = load_ruleset(_write(Path(tmp), _spec(rest, hurt)))
        result = check_ruleset(ruleset, OPTIONS).result
        merged = {p.id: p for p in result.properties}
        if not ruleset.readings or all(r.identical for r in ruleset.readings):
            return
        # every combination of readings, each checked on its own (the product)
        separately: dict[str, set[Status]] = {}
        for picked in itertools.product(range(2), range(2)):
            variant = spec_readings.lower_choice(ruleset, (("hurt", picked[1]),
                                                           ("rest", picked[0])))
            for p in check_properties(variant.system, OPTIONS):
                separately.setdefault(p.id, set()).add(p.status)
        ambiguous = {r for f in result.findings if f.kind == "ambiguity" for r in f.rules}
        for pid in _agree(merged, separately):
            if merged[pid].kind in GATED_KINDS:
                assert pid in ambiguous, pid


def _agree(merged: dict[str, PropertyResult], separately: dict[str, set[Status]]
           ) -> list[str]:
    """Each merged verdict is the one every combination gives ("all"), or, where they
    differ, the one where it breaks, whichever reading is the base: violated if some
    reading violates it, else unknown. The ids whose verdicts differ."""
    differ = []
    for pid, statuses in separately.items():
        p = merged[pid]
        if p.readings == "all":
            assert statuses == {p.status}, pid
        else:
            assert len(statuses) > 1, pid
            worst = next(s for s in (Status.VIOLATED, Status.UNKNOWN, p.status)
                         if s in statuses)
            assert p.status is worst, pid
            differ.append(pid)
    return differ



def test_adopt_by_a_ruling_note(tmp_path: Path) -> None:
    spec = _spec([["remove all Dazed"], ["if pick == dazed: remove all Dazed"]],
                 [["add Wound"], ["add 2 Wound"]])
    spec["events"][1]["adopt"] = {"label": "rest 1", "ruling": "designer on the forum, 2024"}
    ruleset = load_ruleset(_write(tmp_path, spec))
    assert [(r.element, r.adopted, r.base) for r in ruleset.readings] == [
        ("rest", "rest 1", 1), ("hurt", "", 0)]
    assert dict(ruleset.choice) == {"hurt": 0, "rest": 1}
    assert [c for c, _ in ruleset.variants] == [(("hurt", 1), ("rest", 1))]
    result = check_ruleset(ruleset, OPTIONS).result
    (f,) = [f for f in result.findings if f.kind == "ambiguity" and f.resolved]
    assert f.resolved_by == ("rest",) and "ruling: designer on the forum, 2024" in f.message
    # the adopted reading is the one checked: the Rest may leave the model Dazed
    by_id = {p.id: p for p in result.properties}
    assert by_id["rest-clears-daze"].status is Status.VIOLATED


def test_a_finding_only_one_reading_has_is_an_ambiguity(tmp_path: Path) -> None:
    spec = _spec([["remove all Dazed"], ["remove 1 Wound"]], [["add Wound"], ["add 2 Wound"]])
    spec["events"][0] = {"id": "daze", "cite": "A model that has taken a Rest is no longer Dazed.",
                         "readings": [{"label": "it dazes", "do": ["add Dazed"]},
                                      {"label": "it wounds", "do": ["add Wound"]}]}
    spec["rules"] = [{"id": "dazed-bleeds", "when": "Dazed", "do": ["add Wound"]}]
    result = check_ruleset(load_ruleset(_write(tmp_path, spec)), OPTIONS).result
    dead = [f for f in result.findings if f.kind == "dead-rule"]
    assert len(dead) == 1 and "(under the reading 'it wounds')" in dead[0].message
    # one sentence, two findings that depend on it (the rule is dead and Dazed unreachable
    # under 'it wounds'): one ambiguity finding names the sentence and lists both
    (f,) = [f for f in result.findings if f.kind == "ambiguity" and "dead-rule" in f.detail[1][1]]
    assert f.rules == ("daze",)
    assert "can be read 2 ways, and 2 findings depend on which" in f.message
    assert f.detail == (
        ("reading 'it dazes'", "not: dead-rule (dazed-bleeds); unreachable-state (states:Dazed)"),
        ("reading 'it wounds'", "dead-rule (dazed-bleeds); unreachable-state (states:Dazed)"))


FRENZY = """
meta:
  - {id: no-stacking, stacking: none}
states: {Frenzied: {}, Stunned: {}, Blinded: {}}
events:
  - {id: frenzy, do: [enter Frenzied]}
  - {id: stun, do: [enter Stunned]}
  - {id: blind, do: [enter Blinded]}
decisions:
  action:
    slots: [first, second]
    options: [attack, move, nothing]
constraints:
  - id: frenzy-attacks
    cite: "A Frightened fighter must spend at least 1 action moving directly away from the source."
    readings:
      - {label: "every action attacks", when: Frenzied, only: {action: [attack]}}
      - {label: "one action attacks", when: Frenzied, at_least_one: {action: [attack]}}
  - {id: stunned-cannot-act, when: Stunned, forbid: {action: [attack, move]}}
  - {id: blinded-cannot-attack, when: Blinded, forbid: {action: [attack]}}
"""


def test_one_ambiguity_per_sentence_lists_every_finding_that_depends_on_it(
        tmp_path: Path) -> None:
    """Read as "every action attacks", Frenzy leaves a Stunned or Blinded fighter no legal
    action (2 no-legal-action); read as "one action attacks", the attack it obliges is
    forbidden (2 forbidden-obligation). The 4 findings are each reported under their
    reading, and the one sentence gets one ambiguity finding, not 4."""
    from strategies import corpus_spec
    result = check_ruleset(corpus_spec(tmp_path, FRENZY), OPTIONS).result
    pairs = [("blinded-cannot-attack", "frenzy-attacks"), ("frenzy-attacks", "stunned-cannot-act")]
    got = {(f.kind, f.rules) for f in result.findings
           if f.kind not in ("ambiguity", "undefined-reference")}
    assert got == {(k, r) for k in ("no-legal-action", "forbidden-obligation") for r in pairs}
    for f in result.findings:
        if f.kind == "no-legal-action":
            assert f.message.endswith("(under the reading 'every action attacks')")
        if f.kind == "forbidden-obligation":
            assert f.message.endswith("(under the reading 'one action attacks')")
    (amb,) = [f for f in result.findings if f.kind == "ambiguity"]
    assert amb.rules == ("frenzy-attacks",)
    assert "can be read 2 ways, and 4 findings depend on which" in amb.message
    assert amb.detail == (
        ("reading 'every action attacks'",
         "no-legal-action (blinded-cannot-attack vs frenzy-attacks); "
         "no-legal-action (frenzy-attacks vs stunned-cannot-act) · "
         "not: forbidden-obligation (blinded-cannot-attack vs frenzy-attacks); "
         "forbidden-obligation (frenzy-attacks vs stunned-cannot-act)"),
        ("reading 'one action attacks'",
         "forbidden-obligation (blinded-cannot-attack vs frenzy-attacks); "
         "forbidden-obligation (frenzy-attacks vs stunned-cannot-act) · "
         "not: no-legal-action (blinded-cannot-attack vs frenzy-attacks); "
         "no-legal-action (frenzy-attacks vs stunned-cannot-act)"))
    assert amb.trace is not None and amb.trace.replayed


TARGET = """
meta:
  - {id: no-stacking, stacking: none}
states: {Frenzied: {}}
vars:
  source_closest: {range: [0, 1], init: 0}
events:
  - {id: frenzy, do: [enter Frenzied]}
  - {id: frenzy-source-closest, do: [enter Frenzied, source_closest = 1]}
decisions:
  target:
    - none
    - {closest_fighter: {closest: true, source: false}}
    - {closest_source: {closest: true, source: true}}
    - {insanity_source: {closest: false, source: true}}
constraints:
  - {id: attack-closest, when: Frenzied, only: {closest: true}}
  - {id: board, when: Frenzied and source_closest == 1,
     forbid: {target: [closest_fighter, insanity_source]}}
  - id: not-the-source
    cite: "A Frightened fighter must spend at least 1 action moving directly away from the source."
    readings:
      - {label: "the closest other than the source", when: Frenzied, forbid: {source: true},
         overrides: [board]}
      - {label: "the target may not be the source", when: Frenzied, forbid: {source: true}}
"""


def test_a_reading_may_settle_a_clash_the_other_leaves_open(tmp_path: Path) -> None:
    """A constraint's reading can carry `overrides` (added to the element's own): read as a
    selection ("the closest other than the source") the sentence settles the clash with the
    board; read as a restriction it leaves no target. The same clash is reported open under
    one reading and settled under the other, and the ambiguity says which is which."""
    from strategies import corpus_spec
    result = check_ruleset(corpus_spec(tmp_path, TARGET), OPTIONS).result
    clash = ("attack-closest", "board", "not-the-source")
    got = {(f.kind, f.rules, f.resolved, f.resolved_by) for f in result.findings
           if f.kind not in ("ambiguity", "undefined-reference")}
    assert got == {("no-legal-action", clash, False, ()),
                   ("no-legal-action", clash, True, ("not-the-source",))}
    for f in result.findings:
        if f.kind == "no-legal-action":
            assert f.trace is not None and f.trace.replayed
            assert [s.event for s in f.trace.steps[1:]] == ["frenzy-source-closest"]
            assert f.message.endswith("(under the reading 'the target may not be the source')"
                                      if not f.resolved else
                                      "(under the reading 'the closest other than the source')")
    (amb,) = [f for f in result.findings if f.kind == "ambiguity"]
    assert amb.detail == (
        ("reading 'the closest other than the source'",
         "no-legal-action (attack-closest vs board vs not-the-source, settled by "
         "not-the-source) · not: no-legal-action (attack-closest vs board vs not-the-source)"),
        ("reading 'the target may not be the source'",
         "no-legal-action (attack-closest vs board vs not-the-source) · not: no-legal-action "
         "(attack-closest vs board vs not-the-source, settled by not-the-source)"))


def test_a_field_of_other_elements_is_named_as_such_not_suggested_as_itself(
        tmp_path: Path) -> None:
    """A field that exists elsewhere is not suggested as itself ("did you mean
    'overrides'?"): on an event's reading, `overrides` is a field of other elements; on a
    constraint's reading, `cite` belongs on the element."""
    from strategies import corpus_spec
    event = TARGET.replace("  - {id: frenzy, do: [enter Frenzied]}",
                           "  - {id: frenzy, cite: \"A Blinded model may only declare Dodge or "
                           "Nothing.\", readings: [{label: a, do: [enter Frenzied], overrides: "
                           "[board]}, {label: b, do: []}]}")
    constraint = TARGET.replace('forbid: {source: true}}\n', 'forbid: {source: true}, cite: x}\n')
    fixes = []
    for spec in (event, constraint):
        with pytest.raises(SpecError) as err:
            corpus_spec(tmp_path, spec)
        (d,) = err.value.diagnostics
        fixes.append((d.code, d.fix))
    assert fixes == [
        ("RP202", "'overrides' is a field of other elements, not of this one"),
        ("RP202", "'cite' is a field of other elements, not of this one: a reading gives "
                  "only the fields that differ between readings; give it on the element")]


BLINDED_MAY = """
states: {Blinded: {}}
events:
  - {id: blind, do: [enter Blinded]}
decisions:
  action: [dodge, nothing]
constraints:
  - {id: no-dodge, when: Blinded, forbid: {action: [dodge]}}
may:
  - id: m
    cite: "A Blinded model may only declare Dodge or Nothing."
    readings:
      - {label: "it may Dodge", when: Blinded, grants: {action: [dodge]}}
"""


@pytest.mark.parametrize("second", [
    '{label: "it may do Nothing", when: Blinded, grants: {action: [nothing]}}',
    '{label: "the list only restricts", grants: {}}'])
def test_a_permission_can_have_readings(tmp_path: Path, second: str) -> None:
    """`may:` takes `readings:` (each gives `when`/`grants`; `grants: {}` is a reading under
    which the sentence grants nothing): read as granting Dodge, the permission is forbidden
    wherever it applies (`unusable-permission`, Blinded forbids Dodge); read as granting
    Nothing, or nothing at all, it meets no prohibition. Until 2026-12-05 a permission's
    readings were accepted and silently ignored."""
    from strategies import corpus_spec
    result = check_ruleset(corpus_spec(tmp_path, BLINDED_MAY + f"      - {second}\n"),
                           OPTIONS).result
    got = sorted((f.kind, f.rules) for f in result.findings if f.kind != "undefined-reference")
    assert got == [("ambiguity", ("m", "no-dodge")), ("unusable-permission", ("m", "no-dodge"))]
    (pc,) = [f for f in result.findings if f.kind == "unusable-permission"]
    assert pc.message.endswith("(under the reading 'it may Dodge')")
    (amb,) = [f for f in result.findings if f.kind == "ambiguity"]
    other = second.split('"')[1]
    assert amb.detail == (("reading 'it may Dodge'", "found"),
                          (f"reading '{other}'", "not found"))


def test_each_permission_reading_says_what_it_grants(tmp_path: Path) -> None:
    from strategies import corpus_spec
    with pytest.raises(SpecError) as err:
        corpus_spec(tmp_path, BLINDED_MAY + '      - {label: "the list only restricts"}\n')
    (d,) = err.value.diagnostics
    assert d.code == "RP219" and d.message == (
        "reading 2 of permission 'm' grants nothing: each reading says what it grants")


def test_a_permission_reading_gives_only_when_and_grants(tmp_path: Path) -> None:
    from strategies import corpus_spec
    with pytest.raises(SpecError) as err:
        corpus_spec(tmp_path, """
decisions: {action: [dodge, nothing]}
may:
  - id: m
    cite: "A Blinded model may only declare Dodge or Nothing."
    readings:
      - {label: a, only: {action: [dodge]}}
      - {label: b, grants: {action: [nothing]}}
""")
    (d,) = err.value.diagnostics
    assert (d.code, d.fix) == ("RP202", "'only' is a field of other elements, not of this one")


def test_a_reading_of_what_is_declared_only_is_checked_on_its_twins_properties(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Frenzy's two readings change only what the constraints permit and oblige, not what
    can happen: the variant is a twin of the base (same transitions and properties, one
    reachability core), so its properties, scope re-check and order scans are the base's
    and only its conflict and restatement scans run; the findings are those of checking it
    in full (the test above). A reading of an event is never a twin."""
    from strategies import corpus_spec

    from checker.plan import tasks
    ruleset = corpus_spec(tmp_path, FRENZY)
    units = [u for _, u in tasks.reading_units(ruleset)]
    assert tasks.twin_units(units) == {1: 0}
    assert units[1].system.events is units[0].system.events
    assert units[1].system.constraints != units[0].system.constraints
    calls: list[str] = []
    real = tasks.check_properties

    def counted(system, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(system.ruleset)
        return real(system, *args, **kwargs)
    monkeypatch.setattr(tasks, "check_properties", counted)
    result = check_ruleset(ruleset, OPTIONS).result
    assert len(calls) == 1
    kinds = sorted(f.kind for f in result.findings if f.kind != "undefined-reference")
    assert kinds == ["ambiguity", *["forbidden-obligation"] * 2, *["no-legal-action"] * 2]
    rest = load_ruleset(CORPUS / "ambiguity.yaml")
    assert tasks.twin_units([u for _, u in tasks.reading_units(rest)]) == {}


GATED = """
meta:
  - {id: no-stacking, stacking: none}
states: {Hidden: {}, Alarm: {}, Sneaking: {}, Quiet: {}}
decisions: {act: [reveal, wait]}
events:
  - {id: hide, do: [enter Hidden]}
  - {id: raise-alarm, do: [enter Alarm]}
  - {id: reveal, when: Hidden, declares: {act: reveal}, do: [leave Hidden]}
  - id: sneak
    cite: "A model that slips into the shadows is Hidden."
    readings:
      - {label: "sneaking only", when: Hidden, do: [enter Sneaking]}
      - {label: "sneaking quietly", when: Hidden, do: [enter Sneaking, enter Quiet]}
constraints:
  - id: alarm-reveal
    cite: "A Hidden model may reveal itself at the start of its activation."
    readings:
      - {label: "cannot reveal", when: Alarm, forbid: {act: [reveal]}}
      - {label: "must reveal", when: Alarm, must: {act: reveal}}
"""


def test_a_reading_that_gates_a_declaration_writes_what_the_declaring_event_writes(
        tmp_path: Path) -> None:
    """`alarm-reveal` reads Alarm and constrains `act`; under "cannot reveal" the event
    `reveal` (which leaves Hidden) is disabled while the alarm is raised, so the reading
    decides whether a model stays Hidden — which `sneak`'s readings read. The two elements
    interact and are checked together (2 x 2 - 1 variants, not 1 + 1), and the constraint's
    variants are not twins (a guard differs)."""
    from strategies import corpus_spec

    from checker.plan import tasks
    ruleset = corpus_spec(tmp_path, GATED)
    assert len(plan_readings.variant_choices(ruleset)) == 3
    units = [u for _, u in tasks.reading_units(ruleset)]
    assert tasks.twin_units(units) == {}
    # read as "may reveal or wait" instead of "cannot reveal", no guard depends on the
    # reading (a `must` leaves the declaration enabled): apart, and that variant is a twin
    apart = corpus_spec(tmp_path, GATED.replace(
        '{label: "cannot reveal", when: Alarm, forbid: {act: [reveal]}}',
        '{label: "may reveal or wait", when: Alarm, only: {act: [reveal, wait]}}'), name="apart")
    assert len(plan_readings.variant_choices(apart)) == 2
    units = tasks.reading_units(apart)
    twins = tasks.twin_units([u for _, u in units])
    ((twin, of),) = twins.items()
    assert of == 0 and dict(units[twin][0]) == {"alarm-reveal": 1, "sneak": 0}


# ============================================================================ read_with

def _read_with(tmp_path: Path, **hurt: object) -> Path:
    spec = _spec([["remove all Dazed"], ["remove 1 Dazed"]], [["add Wound"], ["add 2 Wound"]])
    spec["events"][2]["readings"] = [{"label": "rest 0", "do": ["add Wound"]},
                                     {"label": "rest 1", "do": ["add 2 Wound"]}]
    spec["events"][2].update(hurt)
    return _write(tmp_path, spec)


def test_an_element_read_with_another_takes_its_reading_and_adds_no_variant(
        tmp_path: Path) -> None:
    # the two elements share a property (few-wounds reads Wound, rest-clears-daze Dazed,
    # dazed-and-wounded both), so read apart they are checked in all 2 x 2 combinations
    apart = load_ruleset(_read_with(tmp_path))
    assert len(plan_readings.variant_choices(apart)) == 3
    ruleset = load_ruleset(_read_with(tmp_path, read_with="rest"))
    assert [(r.element, r.read_with) for r in ruleset.readings] == [("rest", ("hurt",))]
    assert plan_readings.variant_choices(ruleset) == [(("rest", 1),)]

    def effects(choice: tuple[tuple[str, int], ...]) -> dict[str, str]:
        system = spec_readings.lower_choice(ruleset, choice).system
        return {t.source: " ".join(str(a.value) for a in t.effects if not a.var.startswith("_"))
                for t in system.events if t.source in ("rest", "hurt")}

    # the same words are read the same way: under 'rest 0' the Rest removes all Dazed and
    # the hurt adds 1 Wound, under 'rest 1' it removes 1 Dazed and the hurt adds 2
    base, other = effects((("rest", 0),)), effects((("rest", 1),))
    assert base["rest"] == "Const(value=0)" and "V(name='Wound'), Const(value=1)" in base["hurt"]
    assert "sub" in other["rest"] and "V(name='Wound'), Const(value=2)" in other["hurt"]
    # the ambiguity quotes both sentences
    result = check_ruleset(ruleset, OPTIONS).result
    (f,) = [f for f in result.findings if f.kind == "ambiguity"]
    assert "A model may take a Rest to remove all Dazed markers." in f.message
    assert "A model may take a Rest to remove one Wound marker." in f.message


@pytest.mark.parametrize(("hurt", "message"), [
    ({"read_with": "rets"}, "is read with 'rets', which is not an element with readings"),
    ({"read_with": "hurt"}, "is read with 'hurt', which is not an element with readings"),
    ({"read_with": "rest", "readings": [{"label": "rest 0", "do": ["add Wound"]},
                                        {"label": "rest 2", "do": ["add 2 Wound"]}]},
     "but its readings are labelled ['rest 0', 'rest 2'], not ['rest 0', 'rest 1']"),
    ({"read_with": "rest", "adopt": {"label": "rest 0", "ruling": "FAQ"}},
     "is read with 'rest' and adopts a reading of its own"),
])
def test_a_bad_read_with_is_rp219(tmp_path: Path, hurt: dict, message: str) -> None:  # type: ignore[type-arg]

    with pytest.raises(SpecError) as exc:
        load_ruleset(_read_with(tmp_path, **hurt))
    assert [d.code for d in exc.value.diagnostics] == ["RP219"]
    assert message in exc.value.diagnostics[0].message


# ============================================================================ three sentences

MARK = {"rest": "Dazed", "hurt": "Wound", "chill": "Chilled"}


def _three(dos: dict[str, list[list[str]]]) -> dict:  # type: ignore[type-arg]
    return {
        "ruleset": "readings", "source": "rules.txt",
        "states": {m: {"markers": {"max": 2}} for m in MARK.values()},
        "events": [{"id": e, "cite": "A model may take a Rest to remove all Dazed markers.",
                    "readings": [{"label": f"{e} {i}", "do": d} for i, d in enumerate(ds)]}
                   for e, ds in dos.items()],
        # Dazed meets Wound, Wound meets Chilled, Dazed never meets Chilled
        "properties": [{"id": "dazed-and-wounded", "reachable": "Dazed and Wound"},
                       {"id": "wounded-or-chilled",
                        "always": "count(Wound) + count(Chilled) <= 3"}]}


def _dos(marker: str) -> st.SearchStrategy[list[list[str]]]:
    # one reading adds the marker, the other removes it, in either order: a property over
    # two markers then holds or breaks under exactly one combination of the two readings
    add, remove = [f"add 2 {marker}"], [f"remove all {marker}"]
    return st.sampled_from([[remove, add], [add, remove]])


@settings(max_examples=8, deadline=None, derandomize=True)
@given(_dos("Dazed"), _dos("Wound"), _dos("Chilled"))
def test_three_sentences_two_properties_each_verdict_is_that_of_every_combination(
        rest: list[list[str]], hurt: list[list[str]], chill: list[list[str]]) -> None:
    """rest and chill write nothing the other reads and meet no property together: their
    combinations with each other are not checked, and yet every verdict is the one every
    full combination of the three gives."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ruleset = load_ruleset(_write(Path(tmp), _three(
            {"rest": rest, "hurt": hurt, "chill": chill})))
        open_ = [r.element for r in ruleset.readings if not r.identical]
        if len(open_) < 3:
            return
        changed = [{e for e, j in c if j} for c in plan_readings.variant_choices(ruleset)]
        assert {"rest", "chill"} not in [c & {"rest", "chill"} for c in changed]
        assert len(changed) == 5                     # rest, hurt, chill, rest+hurt, hurt+chill
        merged = {p.id: p for p in check_ruleset(ruleset, OPTIONS).result.properties}
        separately: dict[str, set[Status]] = {}
        for picked in itertools.product(range(2), repeat=3):
            choice = tuple(sorted(zip(("rest", "hurt", "chill"), picked, strict=True)))
            variant = spec_readings.lower_choice(ruleset, choice)
            for p in check_properties(variant.system, OPTIONS):
                separately.setdefault(p.id, set()).add(p.status)
        _agree(merged, separately)
