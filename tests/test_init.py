"""`ruleproof init`: a draft spec of a rules text validates at once and accounts for every
sentence (issue #18). The States expected below are read from the seed texts' headings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from checker.spec.coverage import coverage
from checker.spec.draft import draft, propose_states, ruleset_id, state_name
from checker.spec.load import load_ruleset
from checker.text import SourceText

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
SEEDS = sorted((ROOT / "seeds").glob("*.txt"))

# from the texts: the headings under "Model States", "Detailed Rules Per State",
# "Wound States" / "Permanent Conditions", and those a sentence uses as a State
EXPECTED_STATES = {
    "bushido-model-states": {"Berserk", "Bleeding", "Blind", "Controlled", "DeathSentence",
                             "Diseased", "Disguised", "Frightened", "Held", "Immobilised",
                             "Impetuous", "OnFire", "Poisoned", "Prone", "Reloading",
                             "SpiritBlock", "Stunned"},
    "eldfall-states": {"Bleeding", "Blinded", "Confused", "Crippled", "Crouched", "Dead",
                       "Engaged", "Fatigued", "Flying", "Immobilized", "Incapacitated",
                       "Panicked", "Poisoned", "Shrouded", "Slowed", "Weakened"},
    "noctvale-conditions": {"Active", "Downed", "Stunned", "OutOfAction", "Bleeding",
                            "Blinded", "Broken", "Damned"},
}


def _draft_into(folder: Path, text: Path) -> Path:
    ident = ruleset_id(text)
    spec = folder / "spec" / f"{ident}.yaml"
    spec.parent.mkdir(parents=True, exist_ok=True)
    ref = os.path.relpath(text, spec.parent)
    spec.write_text(draft(SourceText(text.read_text(encoding="utf-8"), str(text)), ident, ref),
                    encoding="utf-8")
    return spec


@pytest.mark.parametrize("text", SEEDS, ids=lambda p: p.stem)
def test_draft_validates_with_every_sentence_accounted_for(text: Path, tmp_path: Path) -> None:
    spec = _draft_into(tmp_path, text)
    ruleset = load_ruleset(spec, str(spec))
    cov = coverage(ruleset)
    assert cov.uncovered == 0
    body = [s for s in ruleset.source.sentences if s.kind != "heading"]
    assert ruleset.doc is not None
    assert len(ruleset.doc.informal) == len(body)
    assert set(ruleset.doc.states) == EXPECTED_STATES[ruleset.id]


def test_repeated_sentences_are_cited_by_occurrence(tmp_path: Path) -> None:
    text = tmp_path / "rules.txt"
    text.write_text("Prone\nA model becomes Prone when hit. Roll a die.\n"
                    "Held\nRoll a die.\n", encoding="utf-8")
    spec = _draft_into(tmp_path, text)
    written = spec.read_text(encoding="utf-8")
    assert '{quote: "Roll a die.", occurrence: 1}' in written
    assert '{quote: "Roll a die.", occurrence: 2}' in written
    assert coverage(load_ruleset(spec, str(spec))).uncovered == 0


def test_state_names_and_ids() -> None:
    assert state_name("Out of Action") == "OutOfAction"
    assert state_name("On Fire") == "OnFire"
    assert ruleset_id(Path("Noctvale Conditions.txt")) == "noctvale-conditions"
    assert ruleset_id(Path("2024 rules.txt")) == "rules-2024-rules"


def test_a_repeated_heading_is_not_a_state() -> None:
    src = SourceText("Model States\nProne\nLink to original\nA Prone model cannot move.\n"
                     "Held\nLink to original\nA Held model is held.\n", "t.txt")
    assert [s.name for s in propose_states(src)] == ["Prone", "Held"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_cli_init_writes_a_valid_draft_and_never_overwrites(tmp_path: Path) -> None:
    text = ROOT / "seeds" / "noctvale-conditions.txt"
    out = _cli("init", str(text), cwd=tmp_path)
    spec = tmp_path / "spec" / "noctvale-conditions.yaml"
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"wrote {Path('spec') / 'noctvale-conditions.yaml'}: 8 States")
    first = spec.read_text(encoding="utf-8")
    valid = _cli("validate", str(spec), cwd=tmp_path)
    assert valid.returncode == 0 and "uncovered 0 ·" in valid.stdout
    again = _cli("init", str(text), cwd=tmp_path)
    assert again.returncode == 2 and "pass --force" in again.stderr
    assert spec.read_text(encoding="utf-8") == first
    forced = _cli("init", str(text), "--id", "nv", "-o", str(spec), "--force", cwd=tmp_path)
    assert forced.returncode == 0 and "ruleset: nv\n" in spec.read_text(encoding="utf-8")


def test_cli_init_bad_input(tmp_path: Path) -> None:
    missing = _cli("init", "no-such.txt", cwd=tmp_path)
    assert missing.returncode == 2 and "RP101" in missing.stderr
    bad_id = _cli("init", str(ROOT / "seeds" / "eldfall-states.txt"), "--id", "Eld Fall",
                  cwd=tmp_path)
    assert bad_id.returncode == 2 and "is not a ruleset id" in bad_id.stderr
    assert not (tmp_path / "spec").exists()
