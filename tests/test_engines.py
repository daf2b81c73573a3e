"""The proof engines on tiny hand-written specs and on docs/example-mini.yaml (issue 3's
acceptance): PROVED only by an unbounded method, VIOLATED with a shortest trace that
replays, UNKNOWN with the reason when a limit stops the engines."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml
from strategies import load_spec

from checker.engines import (
    bmc,
    check_all,
    check_property,
    explicit,
    induction,
    spacer,
    termination,
)
from checker.engines.base import Kind
from checker.interpret import explore
from checker.ir import Property, System
from checker.options import Options
from checker.results import Method, Status, StopReason
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "docs" / "example-mini.yaml"
UNBOUNDED = {Method.K_INDUCTION, Method.SPACER}
# the counted budget (`rlimit`, Options' default) decides; the wall clock is only a safety
# net, generous so that a starved machine cannot turn a verdict into UNKNOWN (at 20 s, a
# run at nice 19 beside four busy processes once timed Spacer out on mini's termination)
OPTIONS = Options(timeout_ms=600_000)


def mini() -> System:
    return load_ruleset(MINI).system


def mini_variant(tmp_path: Path, edit: Any) -> System:
    """A copy of example-mini with `edit(doc)` applied, citing the same rulebook text."""
    doc = yaml.safe_load(MINI.read_text(encoding="utf-8"))
    for rule in doc["rules"]:          # YAML 1.1 reads the key `on` as True
        if True in rule:
            rule["on"] = rule.pop(True)
    doc["source"] = str((MINI.parent / doc["source"]).resolve())
    edit(doc)
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return load_ruleset(path).system


def prop(system: System, ident: str) -> Property:
    return next(p for p in system.properties if p.id == ident)


def shortest_events(system: System, p: Property) -> int:
    ex = explore(system, p)
    assert ex.path is not None
    return len(ex.path)


# ----------------------------------------------------------------------------- acceptance

def test_mini_terminal_and_no_stacking_are_proved_unboundedly() -> None:
    system = mini()
    wanted = ["dead-terminal", *(p.id for p in system.properties if p.kind == "no-stacking")]
    assert len(wanted) == 6
    for ident in wanted:
        result = check_property(system, prop(system, ident), OPTIONS)
        assert result.status is Status.PROVED, result
        assert result.method in UNBOUNDED and result.invariant and result.trace is None


def add_death_and_healing(doc: dict[str, Any]) -> None:
    doc["events"] += [{"id": "die", "when": "hp == 0", "do": ["enter Dead"]},
                      {"id": "heal", "do": ["leave Dead"]}]


def test_healing_that_clears_dead_violates_dead_terminal(tmp_path: Path) -> None:
    system = mini_variant(tmp_path, add_death_and_healing)
    p = prop(system, "dead-terminal")
    result = check_property(system, p, OPTIONS)
    assert result.status is Status.VIOLATED and result.method is Method.BMC
    assert result.trace is not None and result.trace.replayed
    events = [s.event for s in result.trace.steps[1:]]
    assert events[-2:] == ["die", "heal"]
    assert len(events) == shortest_events(system, p) == 4    # wound, wound, die, heal
    # the built-in twin of the user property agrees
    assert check_property(system, prop(system, "state-reachable:Dead"),
                          OPTIONS).status is Status.PROVED


def capped(clamp: bool) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        doc["vars"]["tokens"] = {"range": [0, 5], "init": 0}
        doc["events"].append({"id": "gain-token", "do": ["tokens += 1"]})
        if clamp:
            doc["rules"].append({"id": "token-cap", "when": "tokens > 3", "do": ["tokens = 3"]})
        doc["properties"].append({"id": "tokens-capped", "always": "tokens <= 3"})
    return edit


def test_cap_holds_with_the_clamp_rule(tmp_path: Path) -> None:
    system = mini_variant(tmp_path, capped(clamp=True))
    p = prop(system, "tokens-capped")
    assert p.kind == "cap"
    result = check_property(system, p, OPTIONS)
    assert result.status is Status.PROVED and result.method in UNBOUNDED


def test_cap_fails_without_the_clamp_rule_with_a_shortest_trace(tmp_path: Path) -> None:
    system = mini_variant(tmp_path, capped(clamp=False))
    p = prop(system, "tokens-capped")
    result = check_property(system, p, OPTIONS)
    assert result.status is Status.VIOLATED and result.trace is not None
    events = [s.event for s in result.trace.steps[1:]]
    assert events == ["gain-token"] * 4
    assert len(events) == shortest_events(system, p)
    assert dict(result.trace.steps[-1].changed)["tokens"] == "4"


# ----------------------------------------------------------------------------- reachability

def test_reachability_witness_and_unreachable_state() -> None:
    system = mini()
    seen = check_property(system, prop(system, "state-reachable:Crouched"), OPTIONS)
    assert seen.status is Status.PROVED and seen.method is Method.BMC
    assert seen.trace is not None and seen.trace.replayed
    assert len(seen.trace.steps) - 1 == shortest_events(system,
                                                        prop(system, "state-reachable:Crouched"))
    never = check_property(system, prop(system, "state-reachable:Dead"), OPTIONS)
    assert never.status is Status.VIOLATED and never.trace is None
    assert never.method in UNBOUNDED


# ----------------------------------------------------------------------------- tiny specs

LOOP = """\
ruleset: loop
source: rules.txt
states:
  Burning: {}
  Soaked: {}
events:
  - {id: ignite, do: [enter Burning]}
rules:
  - {id: burning-soaks, when: Burning, do: [enter Soaked, leave Burning]}
  - {id: soaked-reignites, when: Soaked, do: [leave Soaked, enter Burning]}
"""


def test_non_termination_is_found_with_a_stuck_trace(tmp_path: Path) -> None:
    system = load_spec(tmp_path, LOOP)
    result = check_property(system, prop(system, "termination"), OPTIONS)
    assert result.status is Status.VIOLATED and result.trace is not None
    assert [s.event for s in result.trace.steps[1:]] == ["ignite"]
    assert len(result.trace.steps[-1].fired) == system.res_bound


HIDDEN = """\
ruleset: hidden
source: rules.txt
states:
  A: {}
  B: {}
events:
  - {id: go, when: A, do: [enter B]}
properties:
  - {id: never-b, never: B}
"""


def test_houdini_closes_what_plain_induction_cannot(tmp_path: Path) -> None:
    system = load_spec(tmp_path, HIDDEN)
    p = prop(system, "never-b")
    plain = induction.one_induction(system, p, OPTIONS)
    assert plain.kind is Kind.UNKNOWN and plain.stop is StopReason.INCOMPLETE
    strengthened = induction.houdini(system, p, OPTIONS)
    assert strengthened.kind is Kind.UNREACHABLE and "Houdini" in strengthened.detail
    result = check_property(system, p, OPTIONS)
    # composed, the short Spacer run (right after 1-induction) closes it before Houdini
    assert result.status is Status.PROVED and result.method is Method.SPACER


def test_spacer_proves_termination_of_mini_with_a_checked_certificate() -> None:
    system = mini()
    p = prop(system, "termination")
    assert induction.one_induction(system, p, OPTIONS).kind is Kind.UNKNOWN
    out = spacer.prove(system, p, OPTIONS)
    assert out.kind is Kind.UNREACHABLE and out.method is Method.SPACER
    assert out.certificate.startswith("(") and "_res" in out.certificate


def test_every_engine_alone_agrees_with_explicit_search() -> None:
    system = mini()
    for p in system.properties:
        oracle = explicit.run(system, p, OPTIONS)
        assert oracle.status is not Status.UNKNOWN
        for run in (bmc.run, induction.run_one_induction, induction.run_houdini, spacer.run):
            got = run(system, p, OPTIONS)
            assert got.status in (oracle.status, Status.UNKNOWN), (run, p.id, got)
            if got.status is Status.UNKNOWN:
                assert got.method is None and got.reason


# ----------------------------------------------------------------------------- limits

def test_timeout_and_rlimit_give_unknown_never_proved() -> None:
    system = mini()
    p = prop(system, "termination")
    out = spacer.prove(system, p, Options(timeout_ms=1))
    assert out.kind is Kind.UNKNOWN and out.stop is StopReason.TIMEOUT
    out = bmc.search(system, p, Options(rlimit=1))
    assert out.kind is Kind.UNKNOWN and out.stop is StopReason.RESOURCE_LIMIT
    result = check_property(system, p, Options(timeout_ms=1))
    assert result.status is Status.UNKNOWN and result.method is None
    assert result.reason.startswith("timeout")


def test_check_all_reports_progress_and_is_deterministic() -> None:
    system = mini()
    seen: list[tuple[str, int, int]] = []
    first = check_all(system, OPTIONS, progress=lambda *a: seen.append(a))
    assert [r.id for r in first] == [p.id for p in system.properties]
    assert seen[-1] == ("", len(first), len(first))
    assert all(r.status is not Status.UNKNOWN for r in first)
    assert all(r.seconds == 0.0 for r in first)          # no timings unless asked
    assert check_all(system, OPTIONS) == first


@pytest.mark.parametrize("ident", ["hp-bounded", "state-reachable:Bleeding"])
def test_results_carry_the_property_metadata(ident: str) -> None:
    system = mini()
    p = prop(system, ident)
    result = check_property(system, p, OPTIONS)
    assert (result.id, result.kind, result.source, result.text) == (p.id, p.kind, p.source,
                                                                   p.text)


def test_check_property_runs_in_a_worker_process() -> None:
    """Everything a worker needs is picklable (no z3 term crosses), and a fresh process
    gives the same result, certificate included."""
    system = mini()
    p = prop(system, "dead-terminal")
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        remote = pool.submit(check_property, system, p, OPTIONS).result()
    assert remote == check_property(system, p, OPTIONS)


def test_termination_by_a_bound_on_every_resolution(tmp_path: Path) -> None:
    system = mini()
    p = prop(system, "termination")
    out = termination.resolution_bound(system, p, OPTIONS)
    assert out.kind is Kind.UNREACHABLE and "within 4 micro steps" in out.detail
    assert check_property(system, p, OPTIONS).method is Method.K_INDUCTION
    looping = load_spec(tmp_path, LOOP)
    out = termination.resolution_bound(looping, prop(looping, "termination"), OPTIONS)
    assert out.kind is Kind.UNKNOWN and out.stop is StopReason.INCOMPLETE
