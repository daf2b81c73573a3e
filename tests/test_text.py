"""The rulebook text: sentence splitting and quote matching (`checker.text`), on the
three seed texts as they are (artifacts included)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.text import Sentence, SourceText, normalize

pytestmark = pytest.mark.unit

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


@pytest.fixture(scope="module")
def eldfall() -> SourceText:
    return SourceText((SEEDS / "eldfall-states.txt").read_text("utf-8"), "eldfall-states.txt")


@pytest.fixture(scope="module")
def noctvale() -> SourceText:
    return SourceText((SEEDS / "noctvale-conditions.txt").read_text("utf-8"),
                      "noctvale-conditions.txt")


@pytest.fixture(scope="module")
def bushido() -> SourceText:
    return SourceText((SEEDS / "bushido-model-states.txt").read_text("utf-8"),
                      "bushido-model-states.txt")


def sentence(st: SourceText, starts: str) -> Sentence:
    found = [s for s in st.sentences if s.text.startswith(starts)]
    assert found, f"no sentence starts with {starts!r}"
    return found[0]


# ------------------------------------------------------------------------------ normalize

@pytest.mark.parametrize(("raw", "normal"), [
    ("model\u2019s", "model's"),
    ("\u2018a\u2019 \u201cb\u201d", "'a' \"b\""),
    ("2\u20133 \u2014 Flee", "2-3 - Flee"),
    ("\u22126 modifier", "-6 modifier"),
    ("a\u00a0b", "a b"),
    ("  a \t\n  b\r\n", "a b"),
    ("360\u00b0 Line of Sight\u2026", "360\u00b0 Line of Sight\u2026"),   # nothing else
    ("Case Stays", "Case Stays"),
])
def test_normalize_forgives_only_whitespace_quotes_and_dashes(raw: str, normal: str) -> None:
    assert normalize(raw) == normal


# ------------------------------------------------------------------------------ sentences

def test_every_sentence_span_is_its_text(eldfall: SourceText, noctvale: SourceText,
                                         bushido: SourceText) -> None:
    for st in (eldfall, noctvale, bushido):
        lines = st.text.split("\n")
        for i, s in enumerate(st.sentences):
            assert s.index == i
            assert st.text[s.start:s.end] == s.text
            assert s.text in lines[s.line - 1]
            assert st.line_of(s.start) == s.line
        assert [s.start for s in st.sentences] == sorted(s.start for s in st.sentences)


@pytest.mark.parametrize(("starts", "kind", "line"), [
    ("States", "heading", 1),
    ("\\ States represent certain conditions", "sentence", 3),     # the artifact stays
    ("A model may be in more than one State simultaneously.", "sentence", 3),
    ("States of the same name cannot stack.", "sentence", 3),
    ("Source: Eldfall Chronicles Rulebook v1.6, p.61–64.", "sentence", 5),
    ("State\tCan Activate?", "row", 9),
    ("Crouched\tYes\tYes\tWalk or Idle only", "row", 14),
    ("Detailed Rules Per State", "heading", 27),
    ("At the start of each of its Strategic Phases, a Bleeding", "sentence", 31),
    ("• Fail: The model suffers 1 Wound.", "bullet", 33),
    ("• Cannot be targeted by Melee Attacks — except", "bullet", 124),
    ("States of the same name cannot stack (e.g., a model cannot have Panicked twice).",
     "sentence", 211),
    ("Model is Panicked and Engaged at Activation start\tDeclares Idle + Dodge", "row", 220),
])
def test_eldfall_sentence_kinds(eldfall: SourceText, starts: str, kind: str, line: int) -> None:
    s = sentence(eldfall, starts)
    assert (s.kind, s.line) == (kind, line)


@pytest.mark.parametrize(("starts", "kind", "line"), [
    ("Conditions", "heading", 1),
    ("Wound States", "heading", 3),
    ("- Cannot attack", "bullet", 10),
    ("At the start of each activation, make a Will check.", "sentence", 44),
    ("Pass: remove Bleeding.", "sentence", 44),
    ("Fail: suffer 1 Wound.", "sentence", 44),
    ("Fail: The fighter must spend both actions", "sentence", 51),   # ': ' does not split
    ("| Affliction tokens | Name | Effect |", "row", 35),
    ("| 3 | Withered | −1 Might, −1 Skill, and −1\" Movement |", "row", 39),
    ("- 2–3 — Flee: Spend both actions", "bullet", 63),
    ("Damned cannot be removed.", "sentence", 75),
])
def test_noctvale_sentence_kinds(noctvale: SourceText, starts: str, kind: str,
                                 line: int) -> None:
    s = sentence(noctvale, starts)
    assert (s.kind, s.line) == (kind, line)


def test_noctvale_table_rule_is_not_a_sentence(noctvale: SourceText) -> None:
    assert not [s for s in noctvale.sentences if s.line == 36]      # |---|---|---|


@pytest.mark.parametrize(("starts", "kind", "line"), [
    ("Model States", "heading", 1),
    ("Markers should be placed next to a model, or its profile card, to indicate that "
     "model’s State", "sentence", 5),
    ("Berserk", "heading", 7),
    ("When a Berserk model activates check the following steps", "sentence", 12),
    ("1. If in range, this model must select", "bullet", 14),
    ("4. If the model is unable to Target", "bullet", 17),
    ("Link to original", "heading", 21),
    ("• The Holding model is no longer in BtB with the Held model.", "bullet", 103),
    ("Blind models may not declare aRun Action or a Charge Action.", "sentence", 37),
])
def test_bushido_sentence_kinds(bushido: SourceText, starts: str, kind: str,
                                line: int) -> None:
    s = sentence(bushido, starts)
    assert (s.kind, s.line) == (kind, line)


def test_numbered_steps_are_one_sentence_each(bushido: SourceText) -> None:
    steps = [s for s in bushido.sentences if 14 <= s.line <= 17]
    assert [s.text[:2] for s in steps] == ["1.", "2.", "3.", "4."]
    assert steps[0].text.endswith("declare a Melee Action.")


def test_link_to_original_artifacts_are_all_headings(bushido: SourceText) -> None:
    links = [s for s in bushido.sentences if s.text == "Link to original"]
    assert len(links) == 17 and {s.kind for s in links} == {"heading"}


def test_sentences_in_a_span(eldfall: SourceText) -> None:
    [m] = eldfall.find("Flying State is automatically canceled if the model becomes Crouched.")
    inside = eldfall.sentences_in(m.start, m.end)
    assert [s.text for s in inside] == [
        "• Flying State is automatically canceled if the model becomes Crouched."]
    three = eldfall.find("A model may be in more than one State simultaneously. States")
    assert len(eldfall.sentences_in(three[0].start, three[0].end)) == 2


# ------------------------------------------------------------------------------ quotes

def test_repeated_noctvale_paragraph_gives_two_matches(noctvale: SourceText) -> None:
    paragraph = ("Fighters who are overcome in battle become Downed or Stunned before being "
                 "removed from play. A fighter reduced to exactly 0 Wounds becomes Downed. A "
                 "fighter reduced below 0 Wounds is overkilled and becomes Stunned instead.")
    matches = noctvale.find(paragraph)
    assert [m.line for m in matches] == [2, 4]
    for m in matches:
        assert noctvale.text[m.start:m.end] == paragraph
    assert [m.line for m in noctvale.find("A fighter reduced to exactly 0 Wounds becomes Downed.")
            ] == [2, 4]


def test_typographic_apostrophe_in_text_matches_straight_quote(bushido: SourceText) -> None:
    [m] = bushido.find("The model suffers a number of wounds equal to the removed Bleed marker's "
                       "value.")
    assert "marker\u2019s" in bushido.text[m.start:m.end]
    assert bushido.find("Remove the model\u2019s Held marker when:") == bushido.find(
        "Remove the model's Held marker when:")


@pytest.mark.parametrize("quote", [
    "Cannot be targeted by Melee Attacks - except by models also in the Flying State.",
    "Cannot be targeted by Melee Attacks \u2013 except by models also in the Flying State.",
    "Poisoned model must perform a Toughness roll with a -6 modifier.",
    "Source: Eldfall Chronicles Rulebook v1.6, p.61-64.",
])
def test_dashes_are_normalized(eldfall: SourceText, quote: str) -> None:
    assert len(eldfall.find(quote)) == 1


def test_whitespace_tabs_and_line_breaks_are_one_space(eldfall: SourceText) -> None:
    [row] = eldfall.find("Model is Panicked and Engaged at Activation start Declares Idle + Dodge")
    assert "\t" in eldfall.text[row.start:row.end]
    [across] = eldfall.find("Blinded\n\n   • The model has no   Line of Sight")
    assert across.line == 36
    assert eldfall.text[across.start:across.end].startswith("Blinded")


def test_typographic_quotes_in_the_quote_match_straight_text(eldfall: SourceText) -> None:
    assert len(eldfall.find("The model\u2019s Speed and Agility are halved.")) == 1


@pytest.mark.parametrize("quote", [
    "the model's speed and agility are halved.",      # case is not forgiven
    "The model's Speed and Agility are halved",       # a prefix of a sentence is fine ...
])
def test_case_matters_but_partial_sentences_match(eldfall: SourceText, quote: str) -> None:
    expected = 0 if quote[0] == "t" else 1
    assert len(eldfall.find(quote)) == expected


@pytest.mark.parametrize("quote", ["", "   ", "\n"])
def test_empty_quote_matches_nothing(eldfall: SourceText, quote: str) -> None:
    assert eldfall.find(quote) == []


def test_ellipsis_and_degree_sign_are_not_forgiven(eldfall: SourceText) -> None:
    assert eldfall.find("The Shrouded model retains 360 Line of Sight") == []
    assert len(eldfall.find("The Shrouded model retains 360° Line of Sight")) == 1


def test_overlapping_occurrences_are_all_found() -> None:
    st = SourceText("aaa", "x.txt")
    assert [(m.start, m.end) for m in st.find("aa")] == [(0, 2), (1, 3)]


def test_match_lines_and_spans_on_crlf_text() -> None:
    st = SourceText("First line.\r\nSecond  line\u2019s end.\r\n", "x.txt")
    [m] = st.find("Second line's end.")
    assert (m.line, st.text[m.start:m.end]) == (2, "Second  line\u2019s end.")
    assert [s.text for s in st.sentences] == ["First line.", "Second  line\u2019s end."]


# ------------------------------------------------------------------------------ closest

@pytest.mark.parametrize(("quote", "passage"), [
    ("Model is Flying and becomes Crouched: Flying is canceled",     # a table row
     "Model is Flying and becomes Crouched\tFlying is automatically canceled"),
    ("Flying is canceled if the model becomes Crouched",
     "Flying State is automatically canceled if the model becomes Crouched."),
    ("May only declare Assist, Dodge or Nothing as its Action.",
     "May only declare Assist (targeting self), Dodge, or Nothing as its Action or Reaction."),
])
def test_closest_passage_for_a_misquote(eldfall: SourceText, quote: str, passage: str) -> None:
    assert eldfall.closest(quote) == passage


def test_closest_on_noctvale_and_bushido(noctvale: SourceText, bushido: SourceText) -> None:
    assert noctvale.closest("Active fighters count toward their players activation count.") \
        == "Active fighters count toward their player's activation count."
    assert bushido.closest("A Prone model can not gain Prone markers") \
        == "A Prone model cannot gain Prone Markers."


def test_closest_of_nothing_is_empty() -> None:
    assert SourceText("", "x.txt").closest("anything") == ""


# ------------------------------------------------------------------------------ rulebook layouts

def kinds(text: str) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in SourceText(text, "x.txt").sentences]


@pytest.mark.parametrize(("text", "expected"), [
    # a name that ends in ! is not a sentence end when the text shows it is a name
    ("A model in the Charge! State moves first. Then it attacks.",
     [("sentence", "A model in the Charge! State moves first."),
      ("sentence", "Then it attacks.")]),
    ("Play Charge! Then roll. A model with Charge! cannot Run.",
     [("sentence", "Play Charge! Then roll."), ("sentence", "A model with Charge! cannot Run.")]),
    ('A card called "Ready?" Lets you react. Roll again! Then stop.',
     [("sentence", 'A card called "Ready?" Lets you react.'), ("sentence", "Roll again!"),
      ("sentence", "Then stop.")]),
    ("Charge!\nA model in the Charge! State moves first.",
     [("heading", "Charge!"), ("sentence", "A model in the Charge! State moves first.")]),
])
def test_names_ending_in_bang_or_question_mark(text: str,
                                               expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize("line", [
    "=== Movement ===", "== Movement", "# Movement", "## The Movement Phase",
    "MOVEMENT PHASE", "STATES AND MARKERS:", "3.2 Movement", "3.2.1 Running and Charging",
    "Recovery:", "Triggered by:", "Active Role \u2014 failed M roll:", "Entering/Leaving Crouched:",
    "Ceasing to be Engaged:", "Bleeding", "Link to original",
])
def test_heading_styles(line: str) -> None:
    assert kinds(line + "\nA model may move.") == [("heading", line),
                                                   ("sentence", "A model may move.")]


@pytest.mark.parametrize("line", [
    "While Flying, the model:", "Remove the model's Held marker when:",
    "While Downed, a fighter:", "Roll on the Insanity Table (1d6):",
    "At the beginning of each of its Activations, the model must perform a Morale roll:",
    "3.2 Movement is halved.", "1. Move the model.",
])
def test_lead_ins_that_say_something_stay_sentences(line: str) -> None:
    [(kind, text)] = kinds(line)
    assert kind != "heading" and text == line


@pytest.mark.parametrize(("line", "kind"), [
    ("- Cannot attack", "bullet"), ("* Cannot attack", "bullet"), ("• Cannot attack", "bullet"),
    ("1. Cannot attack.", "bullet"), ("2) Cannot attack.", "bullet"),
    ("(a) Cannot attack.", "bullet"), ("b) Cannot attack.", "bullet"),
    ("-1 Melee Pool while Prone.", "sentence"),            # a minus sign, not a bullet
    ("| 1 | Weakened | -1 Might |", "row"), ("Bleeding\tYes\tNormal", "row"),
    ("Bleeding    Yes    Normal", "row"), ("Bleeding  Yes  Normal", "row"),
    ("Situation     Result", "row"),
    ("Second  line's end.", "sentence"),                   # one double space is typing
])
def test_bullets_and_rows(line: str, kind: str) -> None:
    assert kinds(line)[0] == (kind, line)


def test_two_spaces_after_a_full_stop_are_not_columns() -> None:
    assert kinds("A model may move.  It may also run.  Then it stops.") == [
        ("sentence", "A model may move."), ("sentence", "It may also run."),
        ("sentence", "Then it stops.")]


@pytest.mark.parametrize("line", ["***", "===", "---", "|---|---|", "~~~", "# "])
def test_section_breaks_are_no_sentence(line: str) -> None:
    assert kinds(f"A model may move.\n{line}\nIt may run.") == [
        ("sentence", "A model may move."), ("sentence", "It may run.")]


# the 14 lone lines of the seed texts that end in ':' (there is no name ending in '!' or
# '?' in them; "Can Activate?" is a table cell): a label is a heading, a lead-in that says
# something (an article, a comma) is a sentence whose list follows as bullets
@pytest.mark.parametrize(("seed", "line", "kind"), [
    ("eldfall", 62, "heading"), ("eldfall", 85, "heading"), ("eldfall", 91, "heading"),
    ("eldfall", 96, "heading"), ("eldfall", 102, "heading"), ("eldfall", 115, "sentence"),
    ("eldfall", 149, "heading"), ("eldfall", 159, "heading"), ("eldfall", 166, "heading"),
    ("eldfall", 170, "heading"), ("bushido", 101, "sentence"), ("noctvale", 9, "sentence"),
    ("noctvale", 17, "sentence"), ("noctvale", 61, "sentence"),
])
def test_seed_lead_ins(seed: str, line: int, kind: str, request: pytest.FixtureRequest) -> None:
    st: SourceText = request.getfixturevalue(seed)
    [s] = [s for s in st.sentences if s.line == line]
    assert s.kind == kind and s.text.endswith(":")


def test_seed_table_header_cell_with_question_mark_is_not_split(eldfall: SourceText) -> None:
    [row] = [s for s in eldfall.sentences if s.line == 9]
    assert row.kind == "row" and "Can Activate?\tCan React?" in row.text
