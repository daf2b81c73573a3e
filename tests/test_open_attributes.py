"""An option attribute the text leaves open (`{charge: {complex: [false, true]}}`): which
value it has is fixed for the game but not given, so a restriction by that attribute
restricts the option exactly in the games where its value matches, and a conflict it
causes is found with the value shown in the trace (docs/spec-language.md "Option
attributes"). Expected results are written from that semantics."""

from __future__ import annotations

from pathlib import Path

import pytest
from strategies import corpus_spec
from test_declarations import ATTRS

from checker.engines.conflicts import find_conflicts
from checker.errors import SpecError
from checker.interpret import evaluate
from checker.options import Options

pytestmark = pytest.mark.corpus

# test_declarations' spec with Charge's complexity left open (Sprint stays complex)
OPEN = ATTRS.replace("{charge: {complex: true, moves: true}}",
                     "{charge: {complex: [false, true], moves: true}}")
VAR = "complex(charge)"     # named as a reader says it


def _allowed(system, kind: str, env: dict[str, int]) -> set[str]:
    """The options of `action` the constraints of `kind`'s source permit in `env`."""
    options = {"dodge", "charge", "run"}
    for c in system.constraints:
        if c.source == kind and c.decision == "action" and evaluate(c.when, env):
            options &= set(c.options) if c.kind == "only" else options - set(c.options)
    return options


def test_a_forbid_by_an_open_attribute_forbids_the_option_where_its_value_matches(
        tmp_path: Path) -> None:
    system = corpus_spec(tmp_path, OPEN).system
    var = system.var(VAR)
    assert var.labels == ("false", "true") and var.init == (0, 1) and var.model is None
    assert _allowed(system, "slowed-simple", {"Slowed": 1, VAR: 0}) == {"dodge", "charge",
                                                                        "run"}
    assert _allowed(system, "slowed-simple", {"Slowed": 1, VAR: 1}) == {"dodge", "run"}
    assert _allowed(system, "slowed-simple", {"Slowed": 0, VAR: 1}) == {"dodge", "charge",
                                                                        "run"}


def test_an_only_by_an_open_attribute_permits_the_option_where_its_value_matches(
        tmp_path: Path) -> None:
    system = corpus_spec(tmp_path, OPEN.replace("forbid: {complex: true}",
                                                "only: {complex: false}")).system
    # an option without the attribute (dodge, run) does not match an `only` by it
    assert _allowed(system, "slowed-simple", {"Slowed": 1, VAR: 0}) == {"charge"}
    assert _allowed(system, "slowed-simple", {"Slowed": 1, VAR: 1}) == set()


def test_the_obligation_meets_the_restriction_in_the_games_where_the_option_matches(
        tmp_path: Path) -> None:
    """"must charge" against "forbid complex": a conflict only where Charge is complex; the
    trace's situation says so. With Charge fixed as not complex there is none."""
    found = [f for f in find_conflicts(corpus_spec(tmp_path, OPEN),
                                       Options(timeout_ms=600_000))
             if f.kind == "forbidden-obligation"]
    assert [f.rules for f in found] == [("cornered-charge", "slowed-simple")]
    assert found[0].trace is not None and found[0].trace.replayed
    assert dict(found[0].trace.steps[-1].state)[VAR] == 1
    fixed = OPEN.replace("{charge: {complex: [false, true], moves: true}}",
                         "{charge: {complex: false, moves: true}}")
    assert not [f for f in find_conflicts(corpus_spec(tmp_path, fixed),
                                          Options(timeout_ms=600_000))
                if f.kind == "forbidden-obligation"]


def test_a_grant_by_an_open_attribute_is_an_error(tmp_path: Path) -> None:
    body = OPEN + """may:
  - {id: may-scheme, when: Cornered, grants: {action: [{complex: true}]}}
"""
    with pytest.raises(SpecError) as exc:
        corpus_spec(tmp_path, body)
    (d,) = exc.value.diagnostics
    assert d.code == "RP216" and "leaves open for 'charge'" in d.message


def test_two_decisions_leaving_one_options_attribute_open_get_a_variable_each(
        tmp_path: Path) -> None:
    """Each decision's Charge is its own option, so each has its own complexity: a reader
    tells them apart by the decision (`complex(action=charge)`), and Slowed forbids each
    where its own value is complex."""
    both = OPEN.replace("{sprint: {complex: true}}",
                        "{sprint: {complex: true}}, {charge: {complex: [false, true]}}")
    system = corpus_spec(tmp_path, both).system
    assert "complex(charge)" not in {v.name for v in system.vars}
    action, movement = system.var("complex(action=charge)"), \
        system.var("complex(movement=charge)")
    assert (action.decl, movement.decl) == ("action", "movement")
    got = {(c.decision, c.options, c.when) for c in system.constraints
           if c.source == "slowed-simple" and "charge" in c.options}
    assert {(d, o) for d, o, _ in got} == {("action", ("charge",)), ("movement", ("charge",))}
    for d, _, when in got:
        env = {"Slowed": 1, f"complex({d}=charge)": 1,
               f"complex({'movement' if d == 'action' else 'action'}=charge)": 0}
        assert evaluate(when, env)
        assert not evaluate(when, env | {f"complex({d}=charge)": 0})
