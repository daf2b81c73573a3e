"""Restatements compared: `inconsistent-restatement`, two statements of the same rule (a
summary-table cell and a detail sentence, linked by `restates:`) that differ in some
reachable situation (issue #15).

Both statements are in force, as the text states both; a reader of one and a reader of the
other play differently wherever they differ, so a difference is reported even when no
conflict follows from it. For each link the difference is one IR expression, asked of the
reachability engines (`decision.Reacher`: the exact BDD core when it fits its node budget,
else the Z3 engines, else explicit search), which gives a replayed witness trace ending in
a situation where the two differ:

    constraints  in a reachable stable situation, some option of a decision both statements
                 constrain (per model) is allowed by one and not by the other
                 (`ir.allowed_expr` of each statement alone): where both are active with
                 different options, or where one is active and the other not (a decision
                 only one of them speaks of is not compared: a table without an AP column
                 says nothing about AP);
    rules        in a reachable micro state, one statement may fire and the other not
                 (guard and "would change something", the once-per-step `_fired` marks of
                 edge-triggered rules left out), or both may and their effects lead to
                 different states (`ir.post_state`);
    facts        in a reachable stable situation one sets an attribute (that both set
                 somewhere) and the other does not, or sets it to another value;
    modifiers    in a reachable stable situation the stat (that both modify) has other
                 values with one statement's modifiers than with the other's, every other
                 active modifier of the stat applied too, in every order (by value: a cap
                 and a set that give the same number agree).

A link the engines cannot decide is kept in `Scan.undecided`, never dropped.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from checker.engines.base import ProofStore
from checker.engines.decision import (
    At,
    Reacher,
    Scan,
    Undecided,
    cited,
    show_state,
    states_of,
    visible,
)
from checker.interpret import evaluate
from checker.ir import (
    Const,
    Constraint,
    LExpr,
    Modifier,
    Op,
    Ruleset,
    Stat,
    System,
    Transition,
    V,
    allowed_expr,
    changes,
    conj,
    disj,
    lvars,
    neg,
    post_state,
    substitute,
)
from checker.options import Options
from checker.results import Finding
from checker.stats import once_values, restated_groups, same_once, stat_values

Env = dict[str, int]


def restatement_links(ruleset: Ruleset) -> list[tuple[str, str, str]]:
    """(section, element, the element it restates) for every `restates:` link, sorted."""
    out = {(e.section, *sorted((e.id, e.restates))) for e in ruleset.elements.values()
           if e.restates and e.restates in ruleset.elements}
    return sorted((s, a, b) for s, a, b in out)


def scan_restatements(ruleset: Ruleset, options: Options, part: int | None = None,
                      store: ProofStore | None = None) -> Scan:
    """Every `restates:` link whose two statements differ in a reachable situation (module
    doc). `part` is accepted for the plan's uniform scan interface: the scan is one part."""
    del part
    scan = Scan()
    links = restatement_links(ruleset)
    if not links:
        return scan
    reacher = Reacher(ruleset.system, options, store)
    for section, a, b in links:
        diff = _DIFFS[section](ruleset.system, a, b)
        if diff.condition == Const(False):
            continue
        w = reacher.witness(diff.condition, diff.at)
        if w.reachable is None:
            scan.undecided.append(Undecided("inconsistent-restatement", (a, b), w.reason))
            continue
        if not w.reachable or w.trace is None or w.state is None:
            continue
        env = reacher.interp.env(w.state)
        lines = diff.explain(env)
        if not lines:       # the witness must show the difference (confirm() cut it there)
            raise AssertionError(f"restatement witness shows no difference: {a}, {b}")
        system = ruleset.system
        read = lvars(diff.condition)
        shown = [n for n in visible(system) if n in read] + sorted(
            n for n in read if system.var(n).kind == "input")   # the roll the rule reads
        situation = show_state(system, w.state, shown)
        held = sorted({st for n in read if (st := system.var(n).state) and env[n] > 0})
        where = (f"for a model that is {' and '.join(held)}" if held
                 else "in a reachable situation")
        steps = len(w.trace) - 1
        message = (f"{a!r} and {b!r} state the same rule differently {where} "
                   f"({situation + '; ' if situation else ''}trace: {steps} "
                   f"step{'' if steps == 1 else 's'}): " + "; ".join(lines))
        detail = tuple((e, _quotes(ruleset, e)) for e in (a, b))
        scan.findings.append(Finding("inconsistent-restatement", (a, b),
                                     states_of(system, diff.reads), message, False, (),
                                     w.trace, detail + tuple(("differs", x) for x in lines)))
    scan.findings.sort(key=lambda f: (f.kind, f.rules, f.states))
    return scan


def _quotes(ruleset: Ruleset, element: str) -> str:
    quotes = [f"“{c.quote}” (rulebook line {c.line})" for c in ruleset.citations
              if c.element == element]
    return "; ".join(quotes) or cited(ruleset, element) or "(cites nothing)"


@dataclass(frozen=True)
class _Diff:
    condition: LExpr                      # the two statements differ here
    at: At
    reads: tuple[LExpr, ...]              # the conditions whose States the finding names
    explain: Callable[[Env], list[str]]   # what differs, in a state where `condition` holds


def _xor(a: LExpr, b: LExpr) -> LExpr:
    return disj(conj(a, neg(b)), conj(neg(a), b))


def _models(system: System) -> tuple[str | None, ...]:
    return system.models or (None,)


# ============================================================================ constraints

def _constraints(system: System, a: str, b: str) -> _Diff:
    mine = {s: [c for c in system.constraints if c.source == s] for s in (a, b)}
    options = {d.name: d.options for d in system.decisions}
    parts: list[LExpr] = []
    cells: list[tuple[str | None, str, str, LExpr, LExpr]] = []
    for m in _models(system):
        dims = sorted({c.decision for c in mine[a] if c.model == m}
                      & {c.decision for c in mine[b] if c.model == m})   # both speak of it
        for d in dims:
            for o in options.get(d, ()):
                ea = allowed_expr(mine[a], d, o, m)
                eb = allowed_expr(mine[b], d, o, m)
                if ea != eb:
                    parts.append(_xor(ea, eb))
                    cells.append((m, d, o, ea, eb))

    def explain(env: Env) -> list[str]:
        out = []
        for m, d in dict.fromkeys((m, d) for m, d, *_ in cells):
            here = [(o, bool(evaluate(ea, env)), bool(evaluate(eb, env)))
                    for mm, dd, o, ea, eb in cells if (mm, dd) == (m, d)]
            only_a = [o for o, x, y in here if x and not y]
            only_b = [o for o, x, y in here if y and not x]
            if not only_a and not only_b:
                continue
            who = f"model {m!r}, " if m else ""
            allowed = {s: [o for o in options[d] if evaluate(
                allowed_expr(mine[s], d, o, m), env)] for s in (a, b)}
            said = "; ".join(f"{s!r} allows {_set(allowed[s], options[d])}" for s in (a, b))
            gap = []
            if only_a:
                gap.append(f"{', '.join(only_a)} allowed by {a!r} only")
            if only_b:
                gap.append(f"{', '.join(only_b)} allowed by {b!r} only")
            out.append(f"{who}{d}: {said} ({'; '.join(gap)})")
        return out

    return _Diff(disj(*parts), "stable", _whens(mine[a] + mine[b]), explain)


def _set(chosen: list[str], every: tuple[str, ...]) -> str:
    left = [o for o in every if o not in chosen]
    if not left:
        return "every option"
    if not chosen:
        return "no option"
    if len(left) < len(chosen):
        return "every option but " + ", ".join(left)
    return "only " + ", ".join(chosen)


def _whens(items: list[Constraint]) -> tuple[LExpr, ...]:
    return tuple(c.when for c in items)


# ============================================================================ rules

def _rule_core(system: System, rule: Transition) -> tuple[LExpr, dict[str, LExpr]]:
    """May `rule` fire (ignoring its own once-per-step `_fired` mark), and its post-state
    without that mark."""
    fired = f"_fired:{rule.id}"
    guard = substitute(rule.guard, {fired: Const(0)})
    effects = tuple(x for x in rule.effects if x.var != fired)
    ignore = frozenset(v.name for v in system.vars if v.kind in ("res", "seen", "fired"))
    return conj(guard, changes(effects, ignore)), post_state(effects)


def _rules(system: System, a: str, b: str) -> _Diff:
    parts: list[LExpr] = []
    pairs: list[tuple[str | None, LExpr, LExpr, dict[str, LExpr], dict[str, LExpr]]] = []
    book = {v.name for v in system.vars if v.kind in ("res", "seen", "fired")}
    for m in _models(system):
        ra = [r for r in system.rules if r.source == a and r.model == m]
        rb = [r for r in system.rules if r.source == b and r.model == m]
        if not ra or not rb:
            continue
        ga, pa = _rule_core(system, ra[0])
        gb, pb = _rule_core(system, rb[0])
        names = sorted((set(pa) | set(pb)) - book)
        differs = disj(*(Op("ne", (pa.get(n, V(n)), pb.get(n, V(n)))) for n in names
                         if pa.get(n, V(n)) != pb.get(n, V(n))))
        parts.append(disj(_xor(ga, gb), conj(ga, gb, differs)))
        pairs.append((m, ga, gb, pa, pb))

    def explain(env: Env) -> list[str]:
        out = []
        for m, ga, gb, pa, pb in pairs:
            who = f"for model {m!r}, " if m else ""
            fa, fb = bool(evaluate(ga, env)), bool(evaluate(gb, env))
            if fa != fb:
                yes, no = (a, b) if fa else (b, a)
                out.append(f"{who}{yes!r} applies here and {no!r} does not")
            elif fa:
                shown = [f"{n}: {_val(system, pa, n, env)} by {a!r}, "
                         f"{_val(system, pb, n, env)} by {b!r}"
                         for n in sorted((set(pa) | set(pb)) - book)
                         if evaluate(pa.get(n, V(n)), env) != evaluate(pb.get(n, V(n)), env)]
                if shown:
                    out.append(f"{who}both apply with different results ({'; '.join(shown)})")
        return out

    reads = tuple(r.guard for r in system.rules if r.source in (a, b))
    return _Diff(disj(*parts), "all", reads, explain)


def _val(system: System, post: dict[str, LExpr], name: str, env: Env) -> str:
    return system.var(name).show(int(evaluate(post.get(name, V(name)), env)))


# ============================================================================ facts, modifiers

def _keyed(system: System, a: str, b: str, items: list[tuple[str, str | None, str, str, LExpr]],
           noun: str) -> _Diff:
    """Facts and modifiers: items (source, model, key, what, when); per (model, key) the two
    statements differ where one is active and the other not, or both with different
    `what`."""
    parts: list[LExpr] = []
    cells: list[tuple[str | None, str, LExpr, LExpr, str, str]] = []
    for m in _models(system):
        keys = [{k for s, mm, k, _, _ in items if mm == m and s == x} for x in (a, b)]
        for key in sorted(keys[0] & keys[1]):       # what both statements speak of
            got = {s: [(what, when) for s2, mm, k, what, when in items
                       if s2 == s and mm == m and k == key] for s in (a, b)}
            wa = disj(*(w for _, w in got[a]))
            wb = disj(*(w for _, w in got[b]))
            xa = ", ".join(sorted({x for x, _ in got[a]})) or "nothing"
            xb = ", ".join(sorted({x for x, _ in got[b]})) or "nothing"
            parts.append(_xor(wa, wb) if xa == xb else disj(wa, wb))
            cells.append((m, key, wa, wb, xa, xb))

    def explain(env: Env) -> list[str]:
        out = []
        for m, key, wa, wb, xa, xb in cells:
            on_a, on_b = bool(evaluate(wa, env)), bool(evaluate(wb, env))
            if (not on_a and not on_b) or (on_a == on_b and xa == xb):
                continue
            who = f"model {m!r}, " if m else ""
            said_a = xa if on_a else "nothing (it does not apply here)"
            said_b = xb if on_b else "nothing (it does not apply here)"
            out.append(f"{who}{noun} {key}: {a!r} gives {said_a}, {b!r} gives {said_b}")
        return out

    reads = tuple(w for s, _, _, _, w in items)
    return _Diff(disj(*parts), "stable", reads, explain)


def _facts(system: System, a: str, b: str) -> _Diff:
    items = [(f.source, f.model, f.attribute, f"{f.attribute} = {f.value}", f.when)
             for f in system.facts if f.source in (a, b)]
    return _keyed(system, a, b, items, "attribute")


MAX_COMPARED_MODIFIERS = 6   # every subset and order of a stat's modifiers is evaluated


def _show_values(values: frozenset[int]) -> str:
    return " or ".join(str(v) for v in sorted(values))


def _modifiers(system: System, a: str, b: str) -> _Diff:
    """Per (model, stat) both statements modify: the two differ in a situation where the
    stat's values with the modifiers of `a` (and every other modifier of the stat that is
    active) differ from its values with those of `b` instead. Compared by value, not by
    wording: "capped at 1" and "= 1" agree wherever nothing takes the stat below 1. A stat
    with more than MAX_COMPARED_MODIFIERS modifiers is compared by operation."""
    stats = {s.name: s for s in system.stats}
    fallback = [(x.source, x.model, x.stat,
                 x.op if x.op in ("halve", "double") else f"{x.op} {x.arg}", x.when)
                for x in system.modifiers if x.source in (a, b)]
    parts: list[LExpr] = []
    cells: list[tuple[str | None, Stat, list[Modifier], list[Modifier], list[Modifier]]] = []
    for m in _models(system):
        mine = [x for x in system.modifiers if x.model == m]
        keys = [{x.stat for x in mine if x.source == s} for s in (a, b)]
        for key in sorted(keys[0] & keys[1]):
            # the two statements, and the stat's other modifiers (a table cell repeating its
            # detail once); a third statement of the same modifier is left out: the two
            # are compared with each other, not with it
            own = [x for x in mine if x.stat == key]
            kin = {own[i].source for g in restated_groups(own) for i in g
                   if any(own[j].source in (a, b) for j in g)}
            every = [*same_once([x for x in own if x.source not in kin | {a, b}]),
                     *(x for x in own if x.source in (a, b))]
            if key not in stats or len(every) > MAX_COMPARED_MODIFIERS:
                return _keyed(system, a, b, fallback, "stat")
            ma = [x for x in every if x.source == a]
            mb = [x for x in every if x.source == b]
            # one pass over every subset of the stat's modifiers (checker.stats.once_values)
            # per base and rounding the text leaves open (`Stat.cases`); by `a` a subset's
            # value leaves out `b`'s modifiers, by `b` `a`'s
            tables = [once_values(case, every) for case in stats[key].cases()]
            bit_a = sum(1 << i for i, x in enumerate(every) if x.source == a)
            bit_b = sum(1 << i for i, x in enumerate(every) if x.source == b)
            for r in range(len(every) + 1):
                for chosen in itertools.combinations(range(len(every)), r):
                    mask = sum(1 << i for i in chosen)
                    if any(table[mask & ~bit_b].keys() != table[mask & ~bit_a].keys()
                           for table in tables):
                        parts.append(conj(*(x.when if mask >> i & 1 else neg(x.when)
                                            for i, x in enumerate(every))))
            cells.append((m, stats[key], every, ma, mb))

    def explain(env: Env) -> list[str]:
        out = []
        for m, stat, every, ma, mb in cells:
            active = [x for x in every if evaluate(x.when, env)]
            for case in stat.cases():      # the first base and rounding that tells them apart
                va = stat_values(case, [x for x in active if x not in mb])
                vb = stat_values(case, [x for x in active if x not in ma])
                if va != vb:
                    who = f"model {m!r}, " if m else ""
                    out.append(f"{who}stat {stat.name}: by {a!r} it is {_show_values(va)}, "
                               f"by {b!r} {_show_values(vb)} ({case.shown()})")
                    break
        return out

    reads = tuple(x.when for x in system.modifiers if x.source in (a, b))
    return _Diff(disj(*parts), "stable", reads, explain)


_DIFFS: dict[str, Callable[[System, str, str], _Diff]] = {
    "constraints": _constraints, "rules": _rules, "facts": _facts, "modifiers": _modifiers}
