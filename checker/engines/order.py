"""Order dependence: simultaneous triggered rules and stat modifiers whose resolution order
changes the result (DESIGN §4 "Order dependence", finding kind `order-dependence`).

Resolution is unordered (docs/semantics.md "One step"): any rule that may fire fires
next, so both parts ask whether two orders the text leaves open give different results.

Triggered rules — `checker.engines.order_rules`: a critical-pair check (Newman's lemma)
whose reachable peaks are resolved to the end in every order; one finding per group of
interacting rules and moment, both outcomes with their replayed traces, settled where the
text's ordering rules (`Precedence`, `OrderChoice`) say. The pairs are decided in the part
of their dependence component, so a group is never split between parts.

Stat modifiers — per stat and model, whether the orders of a subset of its modifiers (at
most `MAX_MODIFIERS`) disagree involves no state variable: it is decided concretely, every
subset at once, by the values each subset can give in some order
(`checker.stats.order_values`, 2ⁿ·n steps), halves rounded as the stat says; no solver is
asked. A disagreeing subset counts where it is exactly the active set of a reachable
stable state (witness trace); the reported rules are a minimal subset, by deletion, whose
own orders still disagree.
`meta: resolves: active-player-orders` marks every order-dependence as resolved by that meta entry.
"""

from __future__ import annotations

import itertools

import z3  # noqa: TID251  (engines own their z3 contexts, DESIGN §2)

from checker.engines.base import ProofStore
from checker.engines.decision import (
    SCAN_PARTS,
    Reacher,
    Scan,
    Undecided,
    Z3Env,
    cited,
    merge_scans,
    meta_id,
    scan_part,
    states_of,
)
from checker.engines.order_rules import (
    candidate_pairs,
    divergences,
    group_findings,
    part_of_rules,
    simultaneous_notice,
)
from checker.interpret import evaluate
from checker.ir import (
    LExpr,
    Modifier,
    Ruleset,
    Stat,
    conj,
    neg,
    stable,
)
from checker.options import Options
from checker.results import Finding
from checker.stats import (
    apply_modifier,
    counted_once,
    order_values,
    restated_groups,
    same_once,
)

MAX_MODIFIERS = 10     # modifiers of one stat: every subset of them is decided


def find_order_dependence(ruleset: Ruleset, options: Options) -> list[Finding]:
    """Rule pairs and modifier sets whose resolution order changes the result."""
    return scan_order(ruleset, options).findings


def scan_order(ruleset: Ruleset, options: Options, part: int | None = None,
               store: ProofStore | None = None) -> Scan:
    """`find_order_dependence` with the candidates it could not decide; only those of
    `part` (`decision.scan_part`) if given, else every part in turn, merged."""
    if part is None:
        return merge_scans(scan_order(ruleset, options, k, store)
                           for k in range(SCAN_PARTS))
    system = ruleset.system
    reacher = Reacher(system, options, store)
    scan = Scan()
    resolver = (meta_id(ruleset, "active-player-orders")
                if "active-player-orders" in system.meta else "")
    found = [*_rule_pairs(ruleset, reacher, scan, resolver, part),
             *_modifier_sets(ruleset, reacher, scan, resolver, part)]
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for f in found:
        if (f.rules, f.states) not in seen:
            seen.add((f.rules, f.states))
            scan.findings.append(f)
    scan.findings.sort(key=lambda f: (f.kind, f.rules, f.states))
    return scan


# ============================================================================ rule pairs

def _rule_pairs(ruleset: Ruleset, reacher: Reacher, scan: Scan,
                resolver: str, part: int) -> list[Finding]:
    """The order-dependences among triggered rules decided in `part`
    (`checker.engines.order_rules`), and the note that spec order no longer decides for
    the pairs of this part met in a reachable situation (`merge_scans` makes the parts'
    notes one)."""
    system = ruleset.system
    env = Z3Env(system, reacher.options)
    part_of = part_of_rules(system, SCAN_PARTS, lambda srcs: scan_part(srcs))
    pairs = candidate_pairs(system, env, scan, {part}, part_of)
    out = group_findings(ruleset, divergences(ruleset, reacher, scan, pairs), resolver)
    met = [p for p in pairs if reacher.witness(p[2], at="all").reachable]
    note = simultaneous_notice(ruleset, met)      # the parts' notes: one, in merge_scans
    if note is not None:
        out.append(note)
    return out


# ============================================================================ modifiers

def _two_orders(stat: Stat, mods: list[Modifier],
                values: dict[int, tuple[int, ...]]) -> tuple[list[int], list[int]] | None:
    """Two orders of all of `mods` giving different values, if `values` (theirs, from
    `checker.stats.order_values`) has two: the spec's order, and the order giving the smallest other
    value."""
    if len(values) < 2:
        return None
    first = list(range(len(mods)))
    value = stat.base
    for m in mods:
        value = apply_modifier(m, value, stat.rounding)
    other = min(v for v in values if v != value)
    return first, list(values[other])


def _modifier_sets(ruleset: Ruleset, reacher: Reacher, scan: Scan,
                   resolver: str, part: int) -> list[Finding]:
    """Per stat and model: every set of modifiers whose orders disagree (decided
    symbolically per set, arithmetic only) and that can be exactly the active set in a
    stable state (Z3 over the domains, then reachability, batched)."""
    system = ruleset.system
    stats = {s.name: s for s in system.stats}
    groups: dict[tuple[str, str], list[Modifier]] = {}
    for m in system.modifiers:
        groups.setdefault((m.stat, m.model or ""), []).append(m)
    out: list[Finding] = []
    for (name, _), stated in sorted(groups.items()):
        mods = same_once(stated)        # a table cell repeating its detail: one modifier
        if len(mods) < 2 or name not in stats or scan_part(m.source for m in mods) != part:
            continue
        sources = tuple(sorted({m.source for m in mods}))
        if len(mods) > MAX_MODIFIERS:
            scan.undecided.append(Undecided("order-dependence", sources, f"{name}: more "
                                            f"than {MAX_MODIFIERS} modifiers"))
            continue
        env = Z3Env(system, reacher.options)
        steady = env.expr(stable(system))
        active = [env.expr(m.when) for m in mods]
        tables = [order_values(case, mods) for case in stats[name].cases()]
        twice = restated_groups(mods)       # a modifier stated twice applies once
        sets: list[tuple[int, ...]] = []
        for k in range(2, len(mods) + 1):
            for members in itertools.combinations(range(len(mods)), k):
                chosen = [mods[i] for i in members]
                if all(len(table[sub]) < 2 for sub in counted_once(sum(1 << i for i in members),
                                                                   twice)
                       for table in tables):
                    continue
                status, _ = env.check(z3.And(*(a if i in members else z3.Not(a)
                                               for i, a in enumerate(active))), steady)
                if status == "sat":
                    sets.append(members)
                elif status != "unsat":
                    scan.undecided.append(Undecided("order-dependence", tuple(sorted(
                        {m.source for m in chosen})), f"{name}: activity {status}"))
        reacher.witness_many([_exactly(mods, members) for members in sets])
        for members in sets:
            finding = _set_finding(ruleset, reacher, scan, resolver, stats[name], mods,
                                   list(members))
            if finding is not None:
                out.append(finding)
    return out


def _exactly(mods: list[Modifier], members: tuple[int, ...] | list[int]) -> LExpr:
    """Exactly the modifiers `members` are active."""
    return conj(*(m.when if i in members else neg(m.when) for i, m in enumerate(mods)))


def _differing_orders(stat: Stat, mods: list[Modifier]
                      ) -> tuple[Stat, list[Modifier], list[int], list[int]] | None:
    """Two orders of `mods` (all active) giving different values, if there are, with the
    first base and rounding (`Stat.cases`) under which they differ and the modifiers they
    apply: all of `mods`, but of a modifier stated twice (`restates:`) one statement, the
    first choice (`checker.stats.counted_once`) whose orders differ."""
    for sub in counted_once((1 << len(mods)) - 1, restated_groups(mods)):
        kept = [m for i, m in enumerate(mods) if sub >> i & 1]
        for case in stat.cases():
            orders = _two_orders(case, kept, order_values(case, kept)[(1 << len(kept)) - 1])
            if orders is not None:
                return case, kept, *orders
    return None


def _set_finding(ruleset: Ruleset, reacher: Reacher, scan: Scan, resolver: str, stat: Stat,
                 mods: list[Modifier], members: list[int]) -> Finding | None:
    system = ruleset.system
    chosen = [mods[i] for i in members]
    differing = _differing_orders(stat, chosen)
    if differing is None:
        return None
    case, kept, *orders = differing
    core = list(kept)
    for m in list(kept):    # deletion: keep a smallest set whose orders still disagree
        trial = [x for x in core if x is not m]
        if len(trial) >= 2 and _differing_orders(stat, trial) is not None:
            core = trial
    w = reacher.witness(_exactly(mods, members))
    rules = tuple(sorted({m.source for m in core}))
    if w.reachable is None:
        scan.undecided.append(Undecided("order-dependence", rules, w.reason))
        return None
    if not w.reachable or w.trace is None or w.state is None:
        return None
    final = reacher.interp.env(w.state)
    if not all(evaluate(m.when, final) for m in chosen):
        raise AssertionError("witness does not activate the modifiers")
    shown = []
    for order in orders:
        value, steps = case.base, [str(case.base)]
        for i in order:
            value = apply_modifier(kept[i], value, case.rounding)
            steps.append(str(value))
        shown.append((" → ".join(kept[i].id for i in order),
                      f"{stat.name} {' → '.join(steps)}", value))
    if shown[0][2] == shown[1][2]:
        raise AssertionError("the two orders agree")
    detail = [("order 1", f"{shown[0][0]}: {shown[0][1]}"),
              ("order 2", f"{shown[1][0]}: {shown[1][1]}")]
    detail += [(r, cited(ruleset, r)) for r in rules if cited(ruleset, r)]
    message = (f"{stat.name} depends on the order of {', '.join(repr(r) for r in rules)}: "
               f"{shown[0][2]} or {shown[1][2]} ({case.shown()}; trace: "
               f"{len(w.trace) - 1} steps)")
    if resolver:
        detail.append(("resolved by", f"{resolver} — {cited(ruleset, resolver)}"))
        message += f"; resolved by {resolver}"
    states = states_of(system, [m.when for m in core])
    return Finding("order-dependence", rules, states, message, bool(resolver),
                   (resolver,) if resolver else (), w.trace, tuple(detail))
