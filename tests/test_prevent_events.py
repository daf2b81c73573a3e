"""`prevents: blocks_events` (issue #15, "no restriction copied into an event guard"):
"A Held model cannot move or be moved" and "Cannot regain HP" restrict what is done to a
model, not what it declares, so they block events. Expectations written from the
semantics: while the prevent's `when` holds the event cannot happen; otherwise it
happens as it would without the prevent."""

from __future__ import annotations

import pytest
from strategies import spec_system

from checker.errors import SpecError
from checker.interpret import Interpreter, reachable_states
from checker.interpret.evaluate import evaluate
from checker.ir import System

pytestmark = pytest.mark.unit

# one model: Held can be gained and lost; being moved leaves a mark
SPEC = """ruleset: t
source: rules.txt
vars:
  moved: {values: ["false", "true"], init: "false"}
states:
  Held: {}
events:
  - {id: grab, when: not Held, do: [enter Held]}
  - {id: release, when: Held, do: [leave Held]}
  - {id: pushed, do: ["moved = true"]}
PREVENTS"""

BLOCK = """prevents:
  - id: held-cannot-be-moved
    when: Held
    blocks_events: [pushed]
"""

# two models, the event global and naming the model it moves
TWO = """ruleset: t
source: rules.txt
models: [a, b]
vars:
  moved: {values: ["false", "true"], init: "false"}
states:
  Held: {}
events:
  - {id: a-grabbed, scope: global, when: not a.Held, do: [enter a.Held]}
  - {id: b-grabbed, scope: global, when: not b.Held, do: [enter b.Held]}
  - {id: a-pushed, scope: global, do: ["a.moved = true"]}
prevents:
  - id: held-cannot-be-moved
    scope: global
    when: a.Held
    blocks_events: [a-pushed]
"""



def _stable(system: System, names: list[str]) -> set[tuple[int, ...]]:
    interp = Interpreter(system)
    states, complete = reachable_states(system)
    assert complete
    return {tuple(s[interp.index[n]] for n in names) for s in states}


def _steps(system: System, state: dict[str, int]) -> list[str]:
    """The events enabled in the initial state changed by `state`."""
    interp = Interpreter(system)
    s = list(next(iter(interp.initial_states())))
    for name, value in state.items():
        s[interp.index[name]] = value
    env = interp.env(tuple(s))
    return sorted(ev.source for ev in system.events if evaluate(ev.guard, env))


def test_a_blocked_event_cannot_happen_while_the_prevent_holds() -> None:
    system = spec_system(SPEC.replace("PREVENTS", BLOCK))
    assert "pushed" not in _steps(system, {"Held": 1})
    assert "pushed" in _steps(system, {"Held": 0})
    # moved only before being Held, or after release: both orders stay reachable
    assert _stable(system, ["Held", "moved"]) == {(0, 0), (1, 0), (0, 1), (1, 1)}


def test_without_the_prevent_the_event_happens_while_held() -> None:
    system = spec_system(SPEC.replace("PREVENTS", ""))
    assert "pushed" in _steps(system, {"Held": 1})


def test_a_global_prevent_blocks_only_the_model_its_condition_names() -> None:
    system = spec_system(TWO)
    assert "a-pushed" not in _steps(system, {"a.Held": 1})
    assert "a-pushed" in _steps(system, {"b.Held": 1})


@pytest.mark.parametrize(("prevent", "needle"), [
    # an unknown event
    ("  - {id: p, when: Held, blocks_events: [shoved]}\n", "unknown event 'shoved'"),
    # neither States nor events
    ("  - {id: p, when: Held}\n", "give 'blocks'"),
    # a global prevent blocking a model event
    ("  - {id: p, scope: global, when: 'true', blocks_events: [pushed]}\n",
     "is a model event but prevent 'p' is a global one"),
    # a global prevent cannot block States
    ("  - {id: p, scope: global, when: 'true', blocks: [Held]}\n", "blocks events only"),
])
def test_bad_blocks_events_is_a_located_error(prevent: str, needle: str) -> None:
    with pytest.raises(SpecError) as info:
        spec_system(SPEC.replace("PREVENTS", "prevents:\n" + prevent))
    text = " ".join(f"{d.code} {d.message}" for d in info.value.diagnostics)
    assert needle in text
    assert all(d.code.startswith("RP2") for d in info.value.diagnostics)


def test_a_model_event_of_a_global_prevent_names_the_fix() -> None:
    spec = TWO.replace("blocks_events: [a-pushed]", "blocks_events: [a-pushed]\n  - id: q\n"
                       "    when: Held\n    blocks_events: [a-pushed]")
    with pytest.raises(SpecError) as info:
        spec_system(spec)
    (d,) = [d for d in info.value.diagnostics if "'q'" in d.message]
    assert d.code == "RP203" and "scope: global" in (d.fix or "")


def test_one_bad_condition_is_one_error_for_states_and_events() -> None:
    prevent = "  - {id: p, when: Hed, blocks: [Held], blocks_events: [pushed]}\n"
    with pytest.raises(SpecError) as info:
        spec_system(SPEC.replace("PREVENTS", "prevents:\n" + prevent))
    assert [d.code for d in info.value.diagnostics] == ["RP203"]
    assert "Hed" in info.value.diagnostics[0].message
