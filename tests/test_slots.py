"""`at_least_one` across the slots of a decision (docs/spec-language.md "Several decisions in
one activation (slots)"), against brute-force enumeration of slot assignments.

- MARCO over a group of slot variables finds exactly the minimal unsatisfiable subsets that
  enumerating every assignment of the slots finds;
- on generated specs (each rule active while a State of its own is held, every combination of
  States reachable) the conflict scan reports exactly the minimal sets of rules that leave no
  assignment of the slots, and the declaration scan reports an `unmet-obligation` exactly
  where, for some reachable combination of States, the obligation is in force, one of its
  options is permitted on some slot, and no enabled event declares one of them on any slot.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import minimal_subsets

from checker.engines.conflicts import _Item, _muses, confirm_clash, find_conflicts
from checker.errors import SpecError
from checker.ir import TRUE
from checker.options import Options
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.differential

CORPUS = Path(__file__).parent / "corpus" / "findings"
OPTIONS = Options(timeout_ms=600_000)   # a safety net: the counted rlimit decides
OPTS = ["move", "retreat", "shoot"]
SLOTS = ["first", "second"]


# ============================================================================ MARCO alone

def brute_muses(items: list[_Item]) -> list[tuple[int, ...]]:
    size, width = items[0].size, items[0].width

    def unsat(sub: tuple[int, ...]) -> bool:
        return not any(all(any(a[k] in items[i].allowed for k in items[i].slots) for i in sub)
                       for a in itertools.product(range(size), repeat=width))

    return minimal_subsets(len(items), unsat)


@st.composite
def slot_items(draw: st.DrawFn) -> list[_Item]:
    size = draw(st.integers(1, 3))
    width = draw(st.integers(2, 3))
    n = draw(st.integers(1, 6))
    out = []
    for i in range(n):
        allowed = draw(st.frozensets(st.integers(0, size - 1)))
        if draw(st.booleans()):   # an at_least_one: reads every slot
            slots = tuple(range(width))
            kind = "some"
        else:
            slots = (draw(st.integers(0, width - 1)),)
            kind = "only"
        out.append(_Item(f"c{i}", f"c{i}", kind, "decision:action", size, allowed, TRUE, (),
                         None, "", slots, width))
    return out


@settings(max_examples=60, deadline=None, derandomize=True)
@given(slot_items())
def test_marco_over_slots_equals_brute_force(items: list[_Item]) -> None:
    found, reason = _muses(items, OPTIONS)
    assert reason == ""
    assert found == brute_muses(items)
    for mus in found:
        confirm_clash([items[i] for i in mus])    # the independent check agrees


def test_the_confirmation_enumerates_the_slots() -> None:
    from checker.errors import InternalError

    def item(i: int, kind: str, allowed: set[int], slots: tuple[int, ...]) -> _Item:
        return _Item(f"c{i}", f"c{i}", kind, "decision:action", 3, frozenset(allowed), TRUE,
                     (), None, "", slots, 2)

    some = item(0, "some", {0, 1}, (0, 1))
    first, second = item(1, "only", {2}, (0,)), item(2, "only", {2}, (1,))
    confirm_clash([some, first, second])
    with pytest.raises(InternalError, match="not confirmed"):
        confirm_clash([some, first])               # the second slot can still move


# ============================================================================ generated specs

# a rule: (kind, slot or None for the decision's name, options)
Rule = tuple[str, str | None, tuple[str, ...]]


@st.composite
def rules(draw: st.DrawFn) -> list[Rule]:
    out: list[Rule] = [("at_least_one", None, tuple(draw(st.lists(
        st.sampled_from(OPTS), min_size=1, max_size=2, unique=True))))]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["only", "forbid", "must", "at_least_one"]))
        if kind == "at_least_one":
            slot = None
        else:
            slot = draw(st.sampled_from([None, *SLOTS])) if kind != "must" else \
                draw(st.sampled_from(SLOTS))
        if kind == "must":
            opts: tuple[str, ...] = (draw(st.sampled_from(OPTS)),)
        else:
            opts = tuple(draw(st.lists(st.sampled_from(OPTS), min_size=1, max_size=2,
                                       unique=True)))
        out.append((kind, slot, opts))
    return out


def _spec(tmp_path: Path, rs: list[Rule], declared: list[tuple[str, str]]) -> Path:
    states = {f"S{i}": {} for i in range(len(rs))}
    constraints = []
    for i, (kind, slot, opts) in enumerate(rs):
        key = "action" if slot is None else f"action.{slot}"
        value: object = opts[0] if kind == "must" else list(opts)
        constraints.append({"id": f"r{i}", "when": f"S{i}", kind: {key: value}})
    events: list[dict[str, object]] = [{"id": f"enter-{s}", "do": [f"enter {s}"]}
                                       for s in states]
    events += [{"id": f"declare-{slot}-{o}", "declares": {f"action.{slot}": o}}
               for slot, o in declared]
    doc = {"ruleset": "g", "source": "rules.txt",
           "meta": [{"id": "no-stacking", "stacking": "none"}],
           "states": states, "events": events,
           "decisions": {"action": {"slots": SLOTS, "options": OPTS}},
           "constraints": constraints}
    shutil.copy(CORPUS / "rules.txt", tmp_path / "rules.txt")
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _holds(rule: Rule, a: dict[str, str]) -> bool:
    kind, slot, opts = rule
    slots = SLOTS if slot is None else [slot]
    if kind == "at_least_one":
        return any(a[s] in opts for s in SLOTS)
    if kind == "forbid":
        return all(a[s] not in opts for s in slots)
    return all(a[s] in opts for s in slots)        # only, must


def _sat(rs: list[Rule]) -> bool:
    return any(all(_holds(r, dict(zip(SLOTS, vals, strict=True))) for r in rs)
               for vals in itertools.product(OPTS, repeat=len(SLOTS)))


def _minimal_clashes(rs: list[Rule]) -> set[tuple[str, ...]]:
    out = minimal_subsets(len(rs), lambda sub: not _sat([rs[i] for i in sub]))
    return {tuple(sorted(f"r{i}" for i in m)) for m in out}


def _kind(rs: list[Rule], clash: tuple[str, ...]) -> str:
    kinds = {rs[int(r[1:])][0] for r in clash}
    return "forbidden-obligation" if kinds & {"must", "at_least_one"} else "no-legal-action"


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rs=rules())
def test_conflict_scan_equals_brute_force_over_slot_assignments(
        rs: list[Rule], tmp_path: Path) -> None:
    ruleset = load_ruleset(_spec(tmp_path, rs, []))
    found = {(f.kind, f.rules) for f in find_conflicts(ruleset, OPTIONS)}
    expected = {(_kind(rs, c), c) for c in _minimal_clashes(rs)}
    assert found == expected


def _allowed(rs: list[Rule], active: set[int], slot: str, option: str) -> bool:
    """No active restriction forbids `option` on `slot` (`at_least_one` forbids nothing)."""
    for i in active:
        kind, s, opts = rs[i]
        if kind == "at_least_one" or (s is not None and s != slot):
            continue
        if (option in opts) == (kind == "forbid"):
            return False
    return True


def _unmet(rs: list[Rule], declared: list[tuple[str, str]]) -> set[str]:
    out = set()
    for i, (kind, _, opts) in enumerate(rs):
        if kind != "at_least_one":
            continue
        for k in range(len(rs) + 1):
            for combo in itertools.combinations(range(len(rs)), k):
                active = set(combo)
                if i not in active:
                    continue
                permitted = any(_allowed(rs, active, s, o) for s in SLOTS for o in opts)
                met = any(o in opts and _allowed(rs, active, s, o) for s, o in declared)
                if permitted and not met:
                    out.add(f"r{i}")
    return out


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rs=rules(), declared=st.lists(st.tuples(st.sampled_from(SLOTS), st.sampled_from(OPTS)),
                                     min_size=1, max_size=3, unique=True))
def test_unmet_obligation_equals_brute_force(rs: list[Rule], declared: list[tuple[str, str]],
                                              tmp_path: Path) -> None:
    ruleset = load_ruleset(_spec(tmp_path, rs, declared))
    found = {f.rules[0] for f in find_conflicts(ruleset, OPTIONS)
             if f.kind == "unmet-obligation" and rs[int(f.rules[0][1:])][0] == "at_least_one"}
    assert found == _unmet(rs, declared)


# ============================================================================ lowering

def _load(tmp_path: Path, constraint: str, decisions: str = "") -> object:
    shutil.copy(CORPUS / "rules.txt", tmp_path / "rules.txt")
    path = tmp_path / "s.yaml"
    path.write_text("ruleset: s\nsource: rules.txt\nstates: {Feared: {}}\ndecisions:\n"
                    "  action: {slots: [first, second], options: [{move: {moves: true}}, "
                    "{retreat: {moves: true, safe: true}}, shoot]}\n"
                    f"{decisions}constraints:\n  - {{id: c, when: Feared, {constraint}}}\n",
                    encoding="utf-8")
    return load_ruleset(path)


def test_at_least_one_lowers_to_one_constraint_over_the_slots(tmp_path: Path) -> None:
    ruleset = _load(tmp_path, "at_least_one: {action: {moves: true, safe: true}}")
    [c] = ruleset.system.constraints       # type: ignore[attr-defined]
    assert (c.kind, c.decision, c.options, c.slots) == (
        "some", "action", ("retreat",), ("action.first", "action.second"))
    ruleset = _load(tmp_path, "at_least_one: {action: move}")
    [c] = ruleset.system.constraints       # type: ignore[attr-defined]
    assert c.options == ("move",)


@pytest.mark.parametrize(("constraint", "code"), [
    ("at_least_one: {action.first: [move]}", "RP221"),
    ("at_least_one: {movement: [run]}", "RP221"),
    ("at_least_one: {action: [mvoe]}", "RP203"),
    ("at_least_one: {action: {safe: yes, fast: true}}", "RP216"),
])
def test_at_least_one_errors_are_coded(tmp_path: Path, constraint: str, code: str) -> None:
    with pytest.raises(SpecError) as exc:
        _load(tmp_path, constraint, "  movement: [idle, run]\n")
    assert [d.code for d in exc.value.diagnostics] == [code]


def test_a_restatement_of_an_at_least_one_is_refused(tmp_path: Path) -> None:
    shutil.copy(CORPUS / "rules.txt", tmp_path / "rules.txt")
    path = tmp_path / "s.yaml"
    path.write_text("ruleset: s\nsource: rules.txt\nstates: {Feared: {}}\ndecisions:\n"
                    "  action: {slots: [first, second], options: [move, shoot]}\n"
                    "constraints:\n"
                    "  - {id: a, when: Feared, at_least_one: {action: [move]}}\n"
                    "  - {id: b, when: Feared, at_least_one: {action: [move]}, restates: a}\n",
                    encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load_ruleset(path)
    assert [d.code for d in exc.value.diagnostics] == ["RP218"]


def test_a_permission_on_a_slotted_decision_grants_on_each_slot(tmp_path: Path) -> None:
    ruleset = _load(tmp_path, "forbid: {action: [shoot]}",
                    "may:\n  - {id: p, when: Feared, grants: {action: retreat}}\n")
    perms = ruleset.system.permissions     # type: ignore[attr-defined]
    assert sorted((p.decision, p.options) for p in perms) == [
        ("action.first", ("retreat",)), ("action.second", ("retreat",))]
