"""Rules terms found in the text (`checker.spec.terms`): candidates for undefined-reference,
confirmed by `undefined:`, dismissed by `not-a-term:`; and the three seeds reviewed."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.errors import SpecError
from checker.ir import Ruleset
from checker.results import findings as property_findings
from checker.spec.load import load_ruleset
from checker.spec.terms import bare, key_of, stem

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent

TEXT = """\
Skirmish Rules

Charging
A model in the Charge! State moves first.
A Stunned model must pass a Will check.
Fighters who fail suffer 1 Wound.
The model loses its Shield Bonus until the End Phase.
Roll on the Doom Table.
A model is Hidden when it ends in cover.
Any model may take a rout test.
Stunned models lose all Stunned markers at the End Phase.
"""

CITES = [
    "A model in the Charge! State moves first.", "A Stunned model must pass a Will check.",
    "Fighters who fail suffer 1 Wound.",
    "The model loses its Shield Bonus until the End Phase.", "Roll on the Doom Table.",
    "A model is Hidden when it ends in cover.", "Any model may take a rout test.",
    "Stunned models lose all Stunned markers at the End Phase.",
]


def ruleset(tmp_path: Path, extra: str = "", cites: list[str] = CITES) -> Ruleset:
    (tmp_path / "rules.txt").write_text(TEXT, "utf-8")
    informal = "".join(f'  - {{cite: "{c}", reason: test}}\n' for c in cites)
    spec = tmp_path / "spec.yaml"
    spec.write_text("ruleset: t\ntitle: Skirmish\nsource: rules.txt\nstates:\n  Stunned: {}\n"
                    "events:\n  - {id: end-phase, do: []}\n"
                    f"informal:\n{informal}{extra}", "utf-8")
    return load_ruleset(spec, "spec.yaml")


def terms(r: Ruleset) -> dict[str, str]:
    return {t.name: t.status for t in r.terms}


@pytest.mark.parametrize(("word", "singular"), [
    ("Markers", "marker"), ("abilities", "ability"), ("marker's", "marker"),
    ("marker\u2019s", "marker"), ("Pass", "pass"), ("LoS", "los"), ("Ki", "ki"),
    ("Tests", "test"), ("bonus", "bonus"), ("Matches", "match"),
])
def test_stem_is_a_simple_singular(word: str, singular: str) -> None:
    assert stem(word) == singular


def test_keys_of_spec_names_and_of_terms() -> None:
    assert key_of("DeathSentence", camel=True) == ("death", "sentence")
    assert key_of("death-sentence") == key_of("Death Sentence") == ("death", "sentence")
    assert key_of("out_of_action") == ("out", "of", "action")
    assert key_of("BtB") == ("btb",) and key_of("BtB", camel=True) == ("bt", "b")
    assert bare(key_of("Bleed markers")) == ("bleed",)
    assert bare(key_of("Marker")) == ("marker",)


def test_candidates_of_a_small_text(tmp_path: Path) -> None:
    assert terms(ruleset(tmp_path)) == {
        "Charge": "proposed",          # "the Charge! State": a name; it does not end the sentence
        "Will check": "proposed",      # "X check"
        "Wound": "proposed",           # a capitalized word inside a sentence
        "Shield Bonus": "proposed",
        "Doom Table": "proposed",
        "rout test": "proposed",       # "X test", lower case
    }
    # not candidates: "Fighters", "Roll", "Any" (sentence starts), "Stunned" (a State, and
    # "Stunned markers"), "End Phase" (the event end-phase), "Hidden" (the text defines it:
    # "is Hidden when"), "Skirmish Rules" (the title), "Charging" (a heading)


def test_a_term_is_quoted_with_every_sentence_that_uses_it(tmp_path: Path) -> None:
    [wound] = [t for t in ruleset(tmp_path).terms if t.name == "Wound"]
    assert [(c.element, c.quote, c.line) for c in wound.citations] == [
        ("term:Wound", "Fighters who fail suffer 1 Wound.", 6)]


def test_only_cited_sentences_are_scanned(tmp_path: Path) -> None:
    assert terms(ruleset(tmp_path, cites=["Roll on the Doom Table."])) == {
        "Doom Table": "proposed"}


def test_undefined_confirms_and_not_a_term_dismisses(tmp_path: Path) -> None:
    r = ruleset(tmp_path, 'undefined:\n  - {name: Doom Tables, cite: "Roll on the Doom Table."}\n'
                          "  - {name: rout tests, cite: \"Any model may take a rout test.\"}\n"
                          "not-a-term: [wound, Shield Bonus, Charge]\n")
    assert terms(r) == {"Charge": "dismissed", "Will check": "proposed",
                        "Wound": "dismissed", "Shield Bonus": "dismissed",
                        "Doom Table": "confirmed", "rout test": "confirmed"}
    found = property_findings.from_properties(r, [])
    assert sorted((f.kind, f.rules, f.states) for f in found) == [
        ("undefined-reference", ("term:Will check",), ("Will check",)),
        ("undefined-reference", ("undefined:Doom Tables",), ("Doom Tables",)),
        ("undefined-reference", ("undefined:rout tests",), ("rout tests",))]
    [proposal] = [f for f in found if f.rules == ("term:Will check",)]
    assert "Will check" in proposal.message and "not-a-term" in proposal.message \
        and "undefined" in proposal.message


def test_not_a_term_the_text_never_uses_is_rp212(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as exc:
        ruleset(tmp_path, "not-a-term: [Wound, Gorgon]\n")
    [d] = exc.value.diagnostics
    assert d.code == "RP220" and "'Gorgon'" in d.message
    assert (d.location.line, d.location.col) == (17, 21)


# ------------------------------------------------------------------------------ the seeds

# candidates per seed, each read against the text and confirmed under `undefined:` in the
# spec (the reasons are in tests/expectations/*.yaml); none was an ordinary word, so no seed
# needs `not-a-term`
SEED_CANDIDATES = {
    "eldfall": 16,    # Petrified (listed before), Normal Action, Regeneration, RCH, ...
    "noctvale": 8,    # Casualty Table, Doom Table, Help, Strike Pool, Summon Result table, ...
    "bushido": 7,     # Tough trait (listed before), Select, Challenge, Challenge Number, ...
}


@pytest.mark.parametrize("name", sorted(SEED_CANDIDATES))
def test_seed_candidates_are_all_settled(name: str) -> None:
    r = load_ruleset(ROOT / "spec" / f"{name}.yaml", f"spec/{name}.yaml")
    assert len(r.terms) == SEED_CANDIDATES[name]
    assert {t.status for t in r.terms} == {"confirmed"}
    assert not [f for f in property_findings.from_properties(r, [])
                if f.rules[0].startswith("term:")]
