"""Stat values: what a stat is worth under its active modifiers, over every order the text
leaves open and every base and rounding it does not give (`checker.ir.Stat.cases`). The
one place the order engine, the restatement comparison and `stat()` in properties take a
stat's values from; concrete arithmetic, no solver.

Two statements of one modifier (a table cell and its detail sentence, linked by
`restates:`) are one modifier stated twice, not two: where both are active, the stat takes
the value of either statement, never of both applied (`counted_once`). Where the two
statements differ, the stat can take both values (a reader of the table and a reader of the
detail), and the restatement comparison reports the difference."""

from __future__ import annotations

from collections.abc import Sequence

from checker.ir import Modifier, Stat


def apply_modifier(m: Modifier, value: int, rounding: str) -> int:
    """One modifier on a concrete stat value (the reference for the order engine's Z3 terms
    and for `stat()` in properties)."""
    if m.op == "halve":
        return value // 2 if rounding == "down" else -((-value) // 2)
    return {"double": value * 2, "add": value + m.arg, "set": m.arg,
            "cap": min(value, m.arg), "floor": max(value, m.arg)}[m.op]


def order_values(stat: Stat, mods: Sequence[Modifier]) -> dict[int, dict[int, tuple[int, ...]]]:
    """For each subset of `mods` (a bit mask over their indices): every value the stat
    (a concrete one: one base and rounding, `Stat.cases`) takes when exactly that subset
    applies, in some order, each value with one order (a tuple of indices) giving it. The
    text leaves the order of modifiers open unless an ordering rule fixes it, so every
    order counts. Exact and concrete: the value after a
    set S in some order is a modifier i of S applied to a value of S without i in some
    order, so one pass over the subsets by size covers every permutation (2ⁿ·n steps per
    value, not n!). The one place the order engine, the restatement comparison and `stat()`
    in properties take a stat's values from."""
    assert stat.top is None and stat.rounding != "either", "order_values takes one case"
    n = len(mods)
    values: dict[int, dict[int, tuple[int, ...]]] = {0: {stat.base: ()}}
    for mask in range(1 << n):                # a subset's subsets come before it
        for value, order in sorted(values.get(mask, {}).items()):
            for i in range(n):
                if not mask & (1 << i):
                    nxt = apply_modifier(mods[i], value, stat.rounding)
                    values.setdefault(mask | (1 << i), {}).setdefault(nxt, (*order, i))
    return values


def restated_groups(mods: Sequence[Modifier]) -> list[list[int]]:
    """The indices of `mods` that state one modifier (linked by `restates:`, transitively),
    each group of two or more, the statement that restates nothing first."""
    parent = list(range(len(mods)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, m in enumerate(mods):
        for j, x in enumerate(mods):
            if m.restates and x.source == m.restates:
                parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(mods)):
        groups.setdefault(root(i), []).append(i)
    return [sorted(g, key=lambda i: (bool(mods[i].restates), i))
            for _, g in sorted(groups.items()) if len(g) > 1]


def same_once(mods: Sequence[Modifier]) -> list[Modifier]:
    """`mods` with each modifier stated twice in the same terms (linked by `restates:`, with
    the same operation, argument and condition) kept once, as the first of its statements:
    the choice between them changes nothing, and a table that repeats every detail sentence
    does not multiply the subsets the order engine and `stat()` enumerate."""
    drop: set[int] = set()
    for group in restated_groups(mods):
        kept: list[int] = []
        for i in group:
            m = mods[i]
            if any((m.op, m.arg, m.when) == (mods[j].op, mods[j].arg, mods[j].when)
                   for j in kept):
                drop.add(i)
            else:
                kept.append(i)
    return [m for i, m in enumerate(mods) if i not in drop]


def counted_once(mask: int, groups: list[list[int]]) -> list[int]:
    """The subsets of `mask` (a bit mask over a stat's modifiers) that apply one statement of
    each modifier stated twice (`restated_groups`): every choice, the one keeping each
    group's first statement first."""
    out = [mask]
    for group in groups:
        present = [i for i in group if mask >> i & 1]
        if len(present) < 2:
            continue
        drop = sum(1 << i for i in present)
        out = [m & ~drop | 1 << keep for m in out for keep in present]
    return out


def once_values(stat: Stat, mods: Sequence[Modifier]) -> dict[int, dict[int, tuple[int, ...]]]:
    """`order_values`, with each modifier stated twice counted once: per subset of `mods`,
    every value of every choice of statement (`counted_once`), each with one order of the
    modifiers it applies."""
    plain = order_values(stat, mods)
    groups = restated_groups(mods)
    if not groups:
        return plain
    out: dict[int, dict[int, tuple[int, ...]]] = {}
    for mask in range(1 << len(mods)):
        for sub in counted_once(mask, groups):
            for value, order in sorted(plain[sub].items()):
                out.setdefault(mask, {}).setdefault(value, order)
    return out


def stat_values(stat: Stat, mods: Sequence[Modifier]) -> frozenset[int]:
    """The values the stat can take with exactly `mods` active, over every order, base and
    rounding the text leaves open (a modifier stated twice counted once)."""
    return frozenset(v for case in stat.cases()
                     for v in once_values(case, mods)[(1 << len(mods)) - 1])


def open_values(stat: Stat, mods: Sequence[Modifier]) -> dict[int, frozenset[int]]:
    """`once_values` without the orders, over every base and rounding the text leaves
    open: per subset of `mods`, every value the stat can take."""
    out: dict[int, set[int]] = {}
    for case in stat.cases():
        for mask, values in once_values(case, mods).items():
            out.setdefault(mask, set()).update(values)
    return {mask: frozenset(values) for mask, values in out.items()}
