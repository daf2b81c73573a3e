"""Order dependence (issue 4): simultaneous triggers (critical pairs) and stat modifiers."""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import corpus_spec, every_order

from checker.engines import decision, order
from checker.engines.order import (
    _differing_orders,
    apply_modifier,
    find_order_dependence,
    scan_order,
)
from checker.engines.order_rules import interact
from checker.interpret import Interpreter, choices_of, evaluate, replay, trace_steps
from checker.ir import TRUE, Modifier, Ruleset, Stat
from checker.options import Options
from checker.results import Finding, Trace
from checker.spec.load import load_ruleset
from checker.spec.source import load_spec
from checker.stats import order_values, stat_values

pytestmark = pytest.mark.unit

CORPUS = Path(__file__).parent / "corpus" / "findings"
OPTIONS = Options(timeout_ms=600_000)   # a safety net: the counted rlimit decides
SPECS = sorted(p.stem for p in CORPUS.glob("*.yaml"))
STUN = ("order-dependence", ("end-clears-stun", "stunned-loses-hp"), ("Stunned",), False, ())
STRENGTH = ("order-dependence", ("poison-halves-strength", "rage-doubles-strength"),
            ("Enraged", "Poisoned"), False, ())
# the once-per-ruleset note: these two used to be ordered by their place in the spec
NOTE = ("simultaneous-rules", ("end-clears-stun", "stunned-loses-hp"), (), False, ())


def summary(found: list[Finding]) -> set[tuple[object, ...]]:
    return {(f.kind, f.rules, f.states, f.resolved, f.resolved_by) for f in found}


def dependences(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.kind == "order-dependence"]


def spec_file(tmp_path: Path, name: str, edit: dict[str, str]) -> Path:
    text = (CORPUS / f"{name}.yaml").read_text(encoding="utf-8")
    for old, new in edit.items():
        assert old in text
        text = text.replace(old, new)
    shutil.copy(CORPUS / "rules.txt", tmp_path / "rules.txt")
    out = tmp_path / f"{name}.yaml"
    out.write_text(text, encoding="utf-8")
    return out


def micro_states(ruleset: Ruleset, trace: Trace) -> tuple[list[tuple[int, ...]], dict[str, int]]:
    """Replay `trace` from scratch: the states of its last resolution, and its end state."""
    system = ruleset.system
    interp = Interpreter(system)
    start, events = trace_steps(interp, trace)
    fired = choices_of(trace)
    again = replay(system, start, events, fired=fired)
    assert [s.state for s in again.steps] == [s.state for s in trace.steps]
    cur, last = start, [start]
    for (event, inputs), rules in zip(events, fired[1:], strict=True):
        m = interp.macro_step(cur, event, inputs, rules)
        cur, last = m.micro[-1], list(m.micro)
    return last, dict(again.steps[-1].state)


# ============================================================================ the corpus

@pytest.mark.parametrize("name", SPECS)
def test_order_reports_exactly_the_planted_ones(name: str) -> None:
    ruleset = load_ruleset(CORPUS / f"{name}.yaml")
    scan = scan_order(ruleset, OPTIONS)
    # order-dependence-ordered: its ordering rule settles STUN, so the finding is resolved
    # by it
    planted = {"order-dependence": {STUN, STRENGTH, NOTE},
               "order-dependence-ordered": {(*STUN[:3], True, ("removal-before-hp",))}}
    assert summary(scan.findings) == planted.get(name, set())
    assert scan.undecided == []


def test_planted_triggers_show_two_orders_and_a_replaying_trace() -> None:
    ruleset = load_ruleset(CORPUS / "order-dependence.yaml")
    found = {f.rules: f for f in dependences(find_order_dependence(ruleset, OPTIONS))}
    f = found[STUN[1]]
    detail = dict(f.detail)
    assert detail["order 1"].endswith("hp=2") and detail["order 2"].endswith("hp=3")
    assert "no longer applies" in detail["order 2"]
    assert f.trace is not None and f.trace.replayed
    micro, _ = micro_states(ruleset, f.trace)
    interp = Interpreter(ruleset.system)
    rules = [r for r in ruleset.system.rules if r.source in f.rules]
    # the last resolution passes through a state where both triggers are pending
    assert any(all(interp.is_enabled(r, s) for r in rules) for s in micro)


def test_planted_modifiers_show_both_values_and_a_replaying_trace() -> None:
    ruleset = load_ruleset(CORPUS / "order-dependence.yaml")
    found = {f.rules: f for f in find_order_dependence(ruleset, OPTIONS)}
    f = found[STRENGTH[1]]
    detail = dict(f.detail)
    assert {detail["order 1"].split(": ")[1], detail["order 2"].split(": ")[1]} == {
        "strength 5 → 2 → 4", "strength 5 → 10 → 5"}
    assert f.trace is not None
    _, final = micro_states(ruleset, f.trace)
    assert all(evaluate(m.when, final) for m in ruleset.system.modifiers)


def test_active_player_orders_resolves_them(tmp_path: Path) -> None:
    meta = ('  - {id: active-orders, resolves: active-player-orders, cite: "The active player '
            'decides the order of simultaneous effects."}\n')
    path = spec_file(tmp_path, "order-dependence", {"phases:": meta.lstrip("\n") + "phases:"})
    found = dependences(find_order_dependence(load_ruleset(path), OPTIONS))
    assert {(f.rules, f.resolved, f.resolved_by) for f in found} == {
        (STUN[1], True, ("active-orders",)), (STRENGTH[1], True, ("active-orders",))}


def test_rounding_up_makes_halve_and_add_order_dependent(tmp_path: Path) -> None:
    path = spec_file(tmp_path, "order-dependence-ok", {"round: down": "round: up"})
    found = find_order_dependence(load_ruleset(path), OPTIONS)
    assert summary(found) == {("order-dependence", ("horn-adds-strength",
                                                    "poison-halves-strength"),
                               ("Inspired", "Poisoned"), False, ())}


def test_a_modifier_the_rules_never_activate_is_no_finding(tmp_path: Path) -> None:
    path = spec_file(tmp_path, "order-dependence", {
        "- {id: lose-friend, do: [enter Enraged]}": "- {id: lose-friend, when: not Poisoned, "
        "do: [enter Enraged]}",
        "- {id: spider-bite, do: [enter Poisoned]}": "- {id: spider-bite, when: not Enraged, "
        "do: [enter Poisoned]}"})
    assert summary(find_order_dependence(load_ruleset(path), OPTIONS)) == {STUN, NOTE}


@pytest.mark.parametrize("seed", range(3))
def test_fingerprints_survive_shuffling_and_reindenting(seed: int, tmp_path: Path) -> None:
    ruleset = load_ruleset(CORPUS / "order-dependence.yaml")
    data = load_spec(CORPUS / "order-dependence.yaml").data  # the project's YAML (`on:`)
    rng = random.Random(seed)
    for key in ("rules", "events", "modifiers", "meta"):
        rng.shuffle(data[key])
    keys = list(data)
    rng.shuffle(keys)
    shutil.copy(CORPUS / "rules.txt", tmp_path / "rules.txt")
    moved = tmp_path / "moved.yaml"
    moved.write_text("# moved\n" * (seed + 2) + yaml.safe_dump(
        {k: data[k] for k in keys}, indent=4, sort_keys=False, allow_unicode=True, width=4096),
        encoding="utf-8")
    again = load_ruleset(moved)
    assert {f.fingerprint(again.id) for f in find_order_dependence(again, OPTIONS)} == {
        f.fingerprint(ruleset.id) for f in find_order_dependence(ruleset, OPTIONS)}


# ============================================================================ rule pairs

JOINS = """
meta:
  - {id: no-stacking, stacking: none}
states: {Alarmed: {}, Burning: {}, Smoke: {}}
events:
  - {id: alarm, do: [enter Alarmed]}
  - {id: fire, do: [enter Burning]}
rules:
  - {id: alarm-douses, when: Alarmed, do: [leave Burning]}
  - {id: fire-smokes, when: Burning, do: [enter Smoke]}
  - {id: smoke-clears, when: not Burning, do: [leave Smoke]}
"""


def test_a_peak_that_the_resolution_joins_again_is_no_finding(tmp_path: Path) -> None:
    scan = scan_order(corpus_spec(tmp_path, JOINS, "joins"), OPTIONS)
    assert dependences(scan.findings) == []
    # the peak (alarm-douses vs fire-smokes) is reachable, then smoke-clears joins it
    assert scan.undecided == []


def test_rules_that_share_no_variable_are_not_paired() -> None:
    ruleset = load_ruleset(CORPUS / "order-dependence-ok.yaml")
    bleeding, clears = ruleset.system.rules
    assert not interact(ruleset.system, bleeding, clears)
    stun = load_ruleset(CORPUS / "order-dependence.yaml").system
    assert interact(stun, stun.rules[0], stun.rules[1])


def test_unknown_reachability_is_kept_not_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decision, "_reach", lambda *a, **k: (None, None))
    scan = order.scan_order(load_ruleset(CORPUS / "order-dependence.yaml"), OPTIONS)
    assert dependences(scan.findings) == []
    assert {u.rules for u in scan.undecided} == {STUN[1], STRENGTH[1]}


# ============================================================================ modifiers

OPS = st.sampled_from(["halve", "double", "add", "set", "cap", "floor"])
MODS = st.lists(st.tuples(OPS, st.integers(-3, 6)), min_size=2, max_size=4)



def mods_of(spec: list[tuple[str, int]]) -> list[Modifier]:
    return [Modifier(f"m{i}", f"m{i}", "s", op, arg, TRUE) for i, (op, arg) in enumerate(spec)]


@settings(max_examples=50, deadline=None, derandomize=True)
@given(MODS, st.integers(-3, 9), st.sampled_from(["down", "up"]))
def test_concrete_order_check_agrees_with_all_permutations(spec: list[tuple[str, int]],
                                                           base: int, rounding: str) -> None:
    mods = mods_of(spec)
    stat = Stat("s", base, rounding)  # type: ignore[arg-type]
    results = every_order(mods, base, rounding)
    differing = _differing_orders(stat, mods)
    assert (differing is not None) == (len(results) > 1)
    if differing is not None:
        case, kept, *orders = differing
        assert case == stat
        assert kept == mods                 # no modifier restates another
        values = []
        for o in orders:
            value = base
            for i in o:
                value = apply_modifier(mods[i], value, rounding)
            values.append(value)
        assert values[0] != values[1]


def _statements(spec: list[tuple[str, int]], links: list[int]) -> list[Modifier]:
    """Modifiers m0.. where m{i} restates m{links[i]} when links[i] < i."""
    return [Modifier(f"m{i}", f"m{i}", "s", op, arg, TRUE,
                     restates=f"m{links[i]}" if links[i] < i else "")
            for i, (op, arg) in enumerate(spec)]


def _choices(mods: list[Modifier]) -> list[list[Modifier]]:
    """Every way to keep one statement of each modifier stated twice: the components of
    the `restates` links, written out here by a search of their own."""
    index = {m.source: i for i, m in enumerate(mods)}
    near: dict[int, set[int]] = {i: set() for i in range(len(mods))}
    for i, m in enumerate(mods):
        if m.restates:
            near[i].add(index[m.restates])
            near[index[m.restates]].add(i)
    seen: set[int] = set()
    parts: list[list[int]] = []
    for i in range(len(mods)):
        if i in seen:
            continue
        todo, part = [i], []
        while todo:
            j = todo.pop()
            if j not in seen:
                seen.add(j)
                part.append(j)
                todo.extend(near[j])
        parts.append(part)
    return [[mods[i] for i in sorted(pick)] for pick in itertools.product(*parts)]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(MODS, st.lists(st.integers(0, 3), min_size=4, max_size=4), st.integers(-3, 9),
       st.sampled_from(["down", "up"]))
def test_a_modifier_stated_twice_is_counted_once(spec: list[tuple[str, int]],
                                                 links: list[int], base: int,
                                                 rounding: str) -> None:
    # "Speed is halved." and the table's "SPD halved" are one modifier: the stat takes the
    # value of one statement or the other, in every order of the modifiers, never of both
    mods = _statements(spec, links)
    stat = Stat("s", base, rounding)  # type: ignore[arg-type]
    every: set[int] = set()
    ordered = False                          # some choice whose own orders disagree
    for kept in _choices(mods):
        results = every_order(kept, base, rounding)
        every |= results
        ordered = ordered or len(results) > 1
    assert stat_values(stat, mods) == frozenset(every)
    differing = _differing_orders(stat, mods)
    assert (differing is not None) == ordered
    if differing is not None:
        _, kept, *orders = differing
        assert any(kept == choice for choice in _choices(mods))
        values = set()
        for o in orders:
            value = base
            for i in o:
                value = apply_modifier(kept[i], value, rounding)
            values.add(value)
        assert len(values) == 2


def test_two_halvings_stated_once_halve_once() -> None:
    detail = Modifier("spd", "spd", "s", "halve", 0, TRUE)
    cell = Modifier("spd-table", "spd-table", "s", "halve", 0, TRUE, restates="spd")
    other = Modifier("slowed", "slowed", "s", "halve", 0, TRUE)
    stat = Stat("s", 8, "down")  # type: ignore[arg-type]
    assert stat_values(stat, [detail, cell]) == {4}
    assert stat_values(stat, [detail, cell, other]) == {2}
    assert stat_values(stat, [detail, other]) == {2}


@settings(max_examples=50, deadline=None, derandomize=True)
@given(st.lists(st.tuples(OPS, st.integers(-3, 6)), min_size=1, max_size=5),
       st.integers(-3, 9), st.sampled_from(["down", "up"]))
def test_every_subsets_values_are_those_of_its_permutations(spec: list[tuple[str, int]],
                                                           base: int, rounding: str) -> None:
    """`order_values` (shared by the order scan, the restatement comparison and `stat()` in
    properties) gives, for each subset, exactly the values of its n! orders, and each
    value's order really gives it; `stat_values` is the whole set's."""
    mods = mods_of(spec)
    stat = Stat("s", base, rounding)  # type: ignore[arg-type]
    values = order_values(stat, mods)
    for k in range(len(mods) + 1):
        for members in itertools.combinations(range(len(mods)), k):
            expected = set()
            for perm in itertools.permutations(members):
                value = base
                for i in perm:
                    value = apply_modifier(mods[i], value, rounding)
                expected.add(value)
            got = values[sum(1 << i for i in members)]
            assert set(got) == expected
            assert stat_values(stat, [mods[i] for i in members]) == expected
            for value, perm in got.items():
                assert sorted(perm) == list(members)
                v = base
                for i in perm:
                    v = apply_modifier(mods[i], v, rounding)
                assert v == value


@settings(max_examples=60, deadline=None, derandomize=True)
@given(MODS, st.integers(0, 3), st.integers(-3, 9), st.sampled_from(["down", "up"]))
def test_a_table_cell_repeating_its_detail_changes_nothing(spec: list[tuple[str, int]],
                                                           which: int, base: int,
                                                           rounding: str) -> None:
    # a copy of one modifier, in the same terms, restating it: the values, and whether
    # orders disagree, are those without it; `same_once` drops exactly the copy
    from checker.stats import same_once
    mods = mods_of(spec)
    original = mods[which % len(mods)]
    copy = Modifier("cell", "cell", "s", original.op, original.arg, TRUE,
                    restates=original.source)
    stat = Stat("s", base, rounding)  # type: ignore[arg-type]
    assert stat_values(stat, [*mods, copy]) == stat_values(stat, mods)
    assert (_differing_orders(stat, [*mods, copy]) is None) == (
        _differing_orders(stat, mods) is None)
    assert same_once([*mods, copy]) == mods
    assert same_once([copy, *mods]) == mods          # the restated statement is kept
    other = Modifier("cell", "cell", "s", "add", 7, TRUE, restates=original.source)
    assert same_once([*mods, other]) == [*mods, other]   # different terms: both kept
