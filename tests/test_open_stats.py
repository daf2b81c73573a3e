"""A stat whose base or rounding the text does not give (`base: {range: [lo, hi]}`,
`round: [down, up]`): every base and rounding is checked, by the order scan, the
restatement comparison and `stat()` in properties (docs/spec-language.md "Stats and
modifiers"). Expected values are worked out by hand below, from the arithmetic."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import SOURCE, every_order, spec_system
from test_order import CORPUS, OPTIONS, dependences, mods_of, spec_file
from test_restate import HEADER

from checker.engines.order import _differing_orders, find_order_dependence
from checker.engines.restate import scan_restatements
from checker.interpret import evaluate
from checker.ir import Stat
from checker.spec.load import load_ruleset
from checker.stats import apply_modifier, stat_values

pytestmark = pytest.mark.unit

OK = "  strength: {base: 5, round: down, "


def _order_found(tmp_path: Path, stat_line: str) -> list[str]:
    """The order-dependence messages of the corpus twin (halve and add 1 on Strength, which
    commute for base 5 rounded down) with its stat declared as `stat_line`."""
    path = spec_file(tmp_path, "order-dependence-ok", {OK: stat_line})
    return [f.message for f in dependences(find_order_dependence(load_ruleset(path),
                                                                 OPTIONS))]


def test_a_base_range_finds_the_base_where_the_orders_differ(tmp_path: Path) -> None:
    """Base 4, down: halve then add 1 gives 2 + 1 = 3, add 1 then halve 5 // 2 = 2."""
    [message] = _order_found(tmp_path, "  strength: {base: {range: [4, 5]}, round: down, ")
    assert "3 or 2 (base 4, halves round down;" in message


def test_both_roundings_find_the_rounding_where_the_orders_differ(tmp_path: Path) -> None:
    """Base 5, up: halve then add 1 gives 3 + 1 = 4, add 1 then halve 6 / 2 = 3 (down gives
    3 both ways, the twin's point)."""
    [message] = _order_found(tmp_path, "  strength: {base: 5, round: [down, up], ")
    assert "4 or 3 (base 5, halves round up;" in message


def test_one_base_and_rounding_where_they_commute_is_no_finding(tmp_path: Path) -> None:
    assert _order_found(tmp_path, "  strength: {base: {range: [5, 5]}, round: [down], ") == []


def _restated(tmp_path: Path, base: str) -> list[str]:
    (tmp_path / "rules.txt").write_text(SOURCE, encoding="utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(HEADER + f"""stats:
  STK: {{base: {base}}}
modifiers:
  - {{id: stk-detail, when: A, stat: STK, op: cap 1}}
  - {{id: stk-table, when: A, stat: STK, op: set 1, restates: stk-detail}}
""", encoding="utf-8")
    return [f.message for f in scan_restatements(load_ruleset(path), OPTIONS).findings]


def test_capped_and_set_differ_only_for_a_base_below_the_cap(tmp_path: Path) -> None:
    """"capped at 1" and "= 1" agree for every base from 1 up; with base 0 the cap leaves 0
    and the set gives 1."""
    assert _restated(tmp_path, "{range: [1, 9]}") == []
    [message] = _restated(tmp_path, "{range: [0, 9]}")
    assert "by 'stk-detail' it is 0, by 'stk-table' 1 (base 0, halves round down)" in message


def test_stat_in_a_property_holds_for_every_base() -> None:
    """`A implies stat(s) >= 2` with `halve` while A: base 4 or 5 gives 2 (down); base 3
    gives 1; rounded up, base 3 gives 2."""
    def holds(base: str, rounding: str) -> bool:
        system = spec_system(HEADER + f"""stats:
  s: {{base: {base}, round: {rounding}}}
modifiers:
  - {{id: halved, when: A, stat: s, op: halve}}
properties:
  - {{id: p, always: "A implies stat(s) >= 2"}}
""")
        [prop] = [p for p in system.properties if p.id == "p"]
        return bool(evaluate(prop.expr, {"A": 1}))
    assert holds("{range: [4, 5]}", "down")
    assert not holds("{range: [3, 5]}", "down")
    assert holds("3", "up")
    assert not holds("3", "[down, up]")


@pytest.mark.parametrize(("stat", "message"), [
    ("{base: {range: [5, 3]}}", "at most 64 values"),
    ("{base: {range: [0, 64]}}", "at most 64 values"),
    ("{base: 5, round: []}", "'round' is down, up, or [down, up]"),
    ("{base: 5, round: [down, sideways]}", "'round' is down, up, or [down, up]"),
])
def test_a_bad_base_or_rounding_is_a_located_error(tmp_path: Path, stat: str,
                                                     message: str) -> None:
    (tmp_path / "rules.txt").write_text(SOURCE, encoding="utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(HEADER + f"stats:\n  s: {stat}\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "checker", "check", str(path), "--json",
                          str(tmp_path / "out.json")], capture_output=True, text=True,
                         cwd=tmp_path, check=False)
    assert run.returncode == 2, run.stderr
    assert "spec.yaml:" in run.stderr and message in run.stderr, run.stderr
    assert not (tmp_path / "out.json").exists()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(["halve", "double", "add", "set", "cap", "floor"]),
                          st.integers(-3, 6)), min_size=2, max_size=4),
       st.integers(-3, 6), st.integers(0, 5), st.sampled_from(["down", "up", "either"]))
def test_the_open_stat_is_every_case_by_brute_force(spec: list[tuple[str, int]], lo: int,
                                                     width: int, rounding: str) -> None:
    """Over every base of the range and every rounding: the values are those of some
    permutation, and the orders differ exactly when they differ for some case, the case
    reported being one where they do."""
    mods = mods_of(spec)
    stat = Stat("s", lo, rounding, lo + width)  # type: ignore[arg-type]
    roundings = ["down", "up"] if rounding == "either" else [rounding]
    every: set[int] = set()
    differ = False
    for base, r in itertools.product(range(lo, lo + width + 1), roundings):
        results = every_order(mods, base, r)
        every |= results
        differ = differ or len(results) > 1
    assert stat_values(stat, mods) == every
    found = _differing_orders(stat, mods)
    assert (found is not None) == differ
    if found is not None:
        case, kept, first, second = found
        assert kept == mods                 # no modifier restates another
        assert lo <= case.base <= lo + width and case.rounding in roundings
        ends = []
        for order in (first, second):
            value = case.base
            for i in order:
                value = apply_modifier(mods[i], value, case.rounding)
            ends.append(value)
        assert ends[0] != ends[1]


def test_the_corpus_twin_still_commutes_as_written() -> None:
    """Unchanged specs are read as before: one base, one rounding."""
    ruleset = load_ruleset(CORPUS / "order-dependence-ok.yaml")
    [stat] = ruleset.system.stats
    assert stat.cases() == [Stat("strength", 5, "down")]
