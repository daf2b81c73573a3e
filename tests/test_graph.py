"""The ruleset graph (`checker.graph.build`), its structural facts and cone-of-influence
slicing (`checker.graph.analyze`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from strategies import load_spec

from checker.graph import ANY, analyze, build, cone, cone_vars, rule_graph, trigger_cycles
from checker.ir import System
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent


def mini() -> System:
    return load_ruleset(ROOT / "docs" / "example-mini.yaml").system


def edges(system: System) -> set[tuple[str, str, str, str]]:
    return {(a, b, d["kind"], d["transition"]) for a, b, d in build(system).edges(data=True)}


def test_mini_graph_edges() -> None:
    got = edges(mini())
    assert ("Incapacitated", "Crouched", "implies", "incapacitated-crouches") in got
    assert ("Crouched", "Flying", "cancels", "crouched-cancels-flying") in got
    assert ("Dead", "Incapacitated", "implies", "incapacitated-at-0") in got
    assert (ANY, "Bleeding", "enter", "become-bleeding") in got
    assert ("phase:end", "phase:strategic", "phase", "strategic-phase") in got
    g = build(mini())
    assert g.nodes["Dead"]["terminal"] and not g.nodes["Crouched"]["terminal"]
    assert {n for n, d in g.nodes(data=True) if d["kind"] == "phase"} == {
        "phase:strategic", "phase:activation", "phase:end"}


def test_mini_structural_facts() -> None:
    facts = analyze(mini())
    assert facts.unenterable == ("Dead",)
    assert facts.trigger_cycles == ()
    assert facts.terminal_exits == ()


LOOP = """\
ruleset: loop
source: rules.txt
models: [a, b]
states:
  Burning: {}
  Soaked: {}
  Dead: {terminal: true}
events:
  - {id: ignite, do: [enter Burning]}
  - {id: die, do: [enter Dead]}
  - {id: revive, do: [leave Dead]}
rules:
  - {id: burning-soaks, when: Burning, do: [enter Soaked, leave Burning]}
  - {id: soaked-reignites, when: Soaked, do: [leave Soaked, enter Burning]}
"""


def test_cycles_exits_and_per_model_nodes(tmp_path: Path) -> None:
    system = load_spec(tmp_path, LOOP)
    facts = analyze(system)
    assert ("burning-soaks@a", "soaked-reignites@a") in facts.trigger_cycles
    assert ("a.Dead", "revive@a") in facts.terminal_exits
    assert ("b.Dead", "revive@b") in facts.terminal_exits
    assert facts.unenterable == ()
    assert trigger_cycles(system) == facts.trigger_cycles
    assert rule_graph(system).has_edge("burning-soaks@b", "soaked-reignites@b")
    assert not rule_graph(system).has_edge("burning-soaks@a", "soaked-reignites@b")


SEPARATE = """\
ruleset: separate
source: rules.txt
vars:
  x: {range: [0, 3], init: 0}
  y: {range: [0, 3], init: 0}
inputs:
  roll: [low, high]
states:
  A: {}
  B: {}
events:
  - {id: bump-x, do: ["x += 1"]}
  - {id: bump-y, do: ["y += 1"]}
  - {id: mark, do: [enter A]}
rules:
  - {id: x-cap, when: "x > 2", do: ["x = 2"]}
  - {id: y-marks-b, when: "y > 1 and roll == high", do: [enter B]}
properties:
  - {id: x-capped, always: "x <= 2"}
  - {id: b-terminal, terminal: B}
"""


def test_cone_keeps_only_what_influences_the_property(tmp_path: Path) -> None:
    system = load_spec(tmp_path, SEPARATE)
    p = next(q for q in system.properties if q.id == "x-capped")
    sliced = cone(system, p)
    assert {v.name for v in sliced.vars} == {"x"} == cone_vars(system, p)
    assert [r.id for r in sliced.rules] == ["x-cap"]
    assert [e.id for e in sliced.events] == ["bump-x"]     # the others change nothing in C
    assert sliced.properties == (p,)
    assert cone(system, p) is sliced                        # memoized: one slice per property


def test_cone_merges_events_and_keeps_inputs_and_monitors(tmp_path: Path) -> None:
    system = load_spec(tmp_path, SEPARATE)
    p = next(q for q in system.properties if q.id == "b-terminal")
    sliced = cone(system, p)
    names = {v.name for v in sliced.vars}
    assert {"B", "y", "roll", "_seen:B"} <= names and "x" not in names and "A" not in names
    assert [r.id for r in sliced.rules] == ["y-marks-b"]
    assert sliced.monitors == system.monitors
    # bump-x and mark change nothing in the cone but still re-roll the input: merged
    assert [e.id for e in sliced.events] == ["bump-y", "bump-x|mark"]


def test_termination_is_never_sliced() -> None:
    system = mini()
    p = next(q for q in system.properties if q.id == "termination")
    assert cone(system, p) is system
