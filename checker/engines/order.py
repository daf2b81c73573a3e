"""Order dependence: simultaneous triggered rules and stat modifiers whose resolution order
changes the result (DESIGN §4 "Order dependence", finding kind `order-dependence`).

Resolution is unordered (docs/semantics.md "One step"): any rule that may fire fires
next, so both parts ask whether two orders the text leaves open give different results.

Triggered rules — `checker.engines.order_rules`: a critical-pair check (Newman's lemma)
whose reachable peaks are resolved to the end in every order; one finding per group of
interacting rules and moment, both outcomes with their replayed traces, settled where the
text's ordering rules (`Precedence`, `OrderChoice`) say. The pairs are decided in the part
of their dependence component, so a group is never split between parts.

Stat modifiers — per stat and model, each subset of its modifiers (at most
`MAX_MODIFIERS`) is decided by one Z3 query over two permutations π, σ of the subset
(position variables, `Distinct`): `apply_π(base) ≠ apply_σ(base)`, halves rounded as the
stat says; no permutation is enumerated. A disagreeing subset counts where it is exactly
the active set of a reachable stable state (witness trace); the reported rules are a
minimal subset, by deletion, whose own orders still disagree. `meta: resolves:
active-player-orders` marks every order-dependence as resolved by that meta entry.
"""

from __future__ import annotations

import itertools
from typing import Any

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
    System,
    apply_modifier,
    conj,
    neg,
    stable,
)
from checker.options import Options
from checker.results import Finding

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

def _z3_apply(m: Modifier, v: Any, rounding: str, ctx: z3.Context) -> Any:
    arg = z3.IntVal(m.arg, ctx)
    if m.op == "halve":
        return v / 2 if rounding == "down" else -((-v) / 2)
    return {"double": lambda: v * 2, "add": lambda: v + arg, "set": lambda: arg,
            "cap": lambda: z3.If(v > arg, arg, v),
            "floor": lambda: z3.If(v < arg, arg, v)}[m.op]()


def _result(stat: Stat, mods: list[Modifier], active: list[Any], pos: list[Any],
            ctx: z3.Context) -> Any:
    """The stat after the active modifiers, applied in the order the positions give."""
    value: Any = z3.IntVal(stat.base, ctx)
    for k in range(len(mods)):
        nxt = value
        for i in reversed(range(len(mods))):
            nxt = z3.If(z3.And(active[i], pos[i] == k),
                        _z3_apply(mods[i], value, stat.rounding, ctx), nxt)
        value = nxt
    return value


def _two_orders(env: Z3Env, stat: Stat, mods: list[Modifier],
                active: list[Any]) -> tuple[z3.Solver, list[Any], list[Any]]:
    ctx = env.ctx
    n = len(mods)
    p = [z3.Int(f"p{i}", ctx) for i in range(n)]
    q = [z3.Int(f"q{i}", ctx) for i in range(n)]
    s = env.solver()
    for pos in (p, q):
        s.add(*(z3.And(x >= 0, x < n) for x in pos))
        if n > 1:
            s.add(z3.Distinct(*pos))
    s.add(_result(stat, mods, active, p, ctx) != _result(stat, mods, active, q, ctx))
    return s, p, q


def _order(model: z3.ModelRef, pos: list[Any], members: list[int]) -> list[int]:
    return sorted(members, key=lambda i: model.eval(pos[i], model_completion=True).as_long())


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
    for (name, _), mods in sorted(groups.items()):
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
        sets: list[tuple[int, ...]] = []
        for k in range(2, len(mods) + 1):
            for members in itertools.combinations(range(len(mods)), k):
                chosen = [mods[i] for i in members]
                if _differing_orders(stats[name], chosen, reacher.options, system) is None:
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


def _differing_orders(stat: Stat, mods: list[Modifier],
                      options: Options, system: System) -> tuple[list[int], list[int]] | None:
    """Two orders of all of `mods` (all active) giving different values, if there are."""
    env = Z3Env(system, options)
    solver, p, q = _two_orders(env, stat, mods, [z3.BoolVal(True, env.ctx)] * len(mods))
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    every = list(range(len(mods)))
    return _order(model, p, every), _order(model, q, every)


def _set_finding(ruleset: Ruleset, reacher: Reacher, scan: Scan, resolver: str, stat: Stat,
                 mods: list[Modifier], members: list[int]) -> Finding | None:
    system = ruleset.system
    chosen = [mods[i] for i in members]
    orders = _differing_orders(stat, chosen, reacher.options, system)
    if orders is None:
        return None
    core = list(chosen)
    for m in list(chosen):  # deletion: keep a smallest set whose orders still disagree
        trial = [x for x in core if x is not m]
        if len(trial) >= 2 and _differing_orders(stat, trial, reacher.options,
                                                 system) is not None:
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
        value, steps = stat.base, [str(stat.base)]
        for i in order:
            value = apply_modifier(chosen[i], value, stat.rounding)
            steps.append(str(value))
        shown.append((" → ".join(chosen[i].id for i in order),
                      f"{stat.name} {' → '.join(steps)}", value))
    if shown[0][2] == shown[1][2]:
        raise AssertionError("the solver's two orders agree")
    detail = [("order 1", f"{shown[0][0]}: {shown[0][1]}"),
              ("order 2", f"{shown[1][0]}: {shown[1][1]}")]
    detail += [(r, cited(ruleset, r)) for r in rules if cited(ruleset, r)]
    message = (f"{stat.name} depends on the order of {', '.join(repr(r) for r in rules)}: "
               f"{shown[0][2]} or {shown[1][2]} (base {stat.base}, halves round "
               f"{stat.rounding}; trace: {len(w.trace) - 1} steps)")
    if resolver:
        detail.append(("resolved by", f"{resolver} — {cited(ruleset, resolver)}"))
        message += f"; resolved by {resolver}"
    states = states_of(system, [m.when for m in core])
    return Finding("order-dependence", rules, states, message, bool(resolver),
                   (resolver,) if resolver else (), w.trace, tuple(detail))
