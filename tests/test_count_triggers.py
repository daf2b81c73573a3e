"""`on: gains X` / `on: loses X` (issue #16; notes/bushido-gaps.md B3: "When a model gains a
Berserk Marker, it gains an Impetuous Marker."). Expectations written from
docs/spec-language.md "Triggered rules": `gains X` fires once in a step in which X's marker
count went up since the start of the step (a second marker included, which `enters X` does
not see), `loses X` once in a step in which it went down (not only to none); a condition is
not a count (RP206)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from strategies import load_spec

from checker.errors import SpecError
from checker.interpret import Interpreter
from checker.ir import System

pytestmark = pytest.mark.unit

SPEC = """ruleset: t
source: rules.txt
states:
  Berserk: {markers: {max: 2}}
  Impetuous: {markers: {max: 3}}
events:
  - {id: rage, when: count(Berserk) < 2, do: [add Berserk]}
  - {id: calm, when: Berserk, do: [remove 1 Berserk]}
  - {id: wait, do: []}
rules:
  - id: watch
    TRIGGER
    when: count(Impetuous) < 3
    do: [add Impetuous]
"""


def _system(trigger: str) -> System:
    with tempfile.TemporaryDirectory() as folder:
        return load_spec(Path(folder), SPEC.replace("TRIGGER", trigger))


def _impetuous_after(trigger: str, events: list[str]) -> list[int]:
    """Impetuous markers after each event of `events`, in turn, from the start (each event's
    one outcome)."""
    system = _system(trigger)
    interp = Interpreter(system)
    state = next(interp.initial_states())
    out = []
    for ev in events:
        steps = interp.macro_steps(state, ev, ())
        assert len(steps) == 1
        state = steps[0].micro[-1]
        out.append(interp.env(state)["Impetuous"])
    return out


def test_gains_fires_for_every_marker_gained() -> None:
    # 0 → 1 Berserk, 1 → 2, nothing, 2 → 1, 1 → 2: a marker gained three times
    assert _impetuous_after("on: gains Berserk", ["rage", "rage", "wait", "calm", "rage"]) \
        == [1, 2, 2, 2, 3]


def test_enters_fires_only_from_none() -> None:
    # the same events: only the first gain starts from no Berserk marker
    assert _impetuous_after("on: enters Berserk", ["rage", "rage", "wait", "calm", "rage"]) \
        == [1, 1, 1, 1, 1]


def test_loses_fires_for_every_marker_lost() -> None:
    # 2 → 1 and 1 → 0 Berserk markers lost; gaining and waiting lose nothing
    assert _impetuous_after("on: loses Berserk", ["rage", "rage", "calm", "wait", "calm"]) \
        == [0, 0, 1, 1, 2]


def test_a_condition_is_not_a_count() -> None:
    with pytest.raises(SpecError) as info:
        _system("on: gains count(Berserk) >= 1")
    d = info.value.diagnostics[0]
    assert d.code == "RP206"
    assert "'gains' counts a State's markers" in d.message
    assert d.fix == "write 'enters count(Berserk) >= 1' for a condition"
