"""Order dependence: simultaneous triggered rules and stat modifiers whose resolution order
changes the result (DESIGN §4 "Order dependence", finding kind `order-dependence`).

The interpreter resolves in spec order, but the text rarely fixes an order, so both parts
ask whether *any* order could give another result.

Triggered rules — a critical-pair check. A resolution is a terminating rewrite system on
states; by Newman's lemma it has one result whatever the order iff every local peak
joins. For every pair of rules that interact (one writes what the other reads or writes;
pairs that do not interact commute) the peak is built symbolically from `post_state`:

    en(r1, s) ∧ en(r2, s) ∧ (r2 after r1)(s) ≠ (r1 after r2)(s)

where "r2 after r1" runs r2 only if it is still enabled (a rule that disables the other
counts). Z3 decides it over the variable domains (UNSAT: the pair commutes everywhere);
otherwise the peak must be reachable mid-resolution (`Reacher`, `at="all"`), which gives
the witness trace. At the witness state both branches are then resolved to the end in the
interpreter; a peak the resolution joins again is not a finding and the next reachable
peak is tried (`MAX_PEAKS`). Limit: after the first divergence the continuation is the
spec order, so peaks only reachable through other orders are not visited.

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
    show_state,
    states_of,
    visible,
)
from checker.interpret import Interpreter, State, evaluate
from checker.ir import (
    Const,
    LExpr,
    Modifier,
    Op,
    Ruleset,
    Stat,
    System,
    Transition,
    V,
    apply_modifier,
    conj,
    disj,
    enabled,
    lvars,
    neg,
    post_state,
    stable,
    substitute,
)
from checker.options import Options
from checker.results import Finding

MAX_PEAKS = 4          # reachable peaks tried per rule pair before calling it undecided
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

def _reads(r: Transition) -> set[str]:
    out = set(lvars(r.guard))
    for a in r.effects:
        out |= lvars(a.value)
    return out


def _writes(r: Transition) -> set[str]:
    return {a.var for a in r.effects}


def _interact(r1: Transition, r2: Transition) -> bool:
    w1, w2 = _writes(r1), _writes(r2)
    return bool(w1 & (_reads(r2) | w2) or w2 & _reads(r1))


def _then(system: System, first: Transition, second: Transition) -> dict[str, LExpr]:
    """The state after `first`, then `second` if it is still enabled, over the pre-state."""
    post1 = post_state(first.effects)
    post2 = post_state(second.effects)
    still = substitute(enabled(system, second), post1)
    out: dict[str, LExpr] = {}
    for n in sorted(set(post1) | set(post2)):
        after1 = post1.get(n, V(n))
        both = substitute(post2[n], post1) if n in post2 else after1
        out[n] = both if both == after1 else Op("ite", (still, both, after1))
    return out


def peak(system: System, r1: Transition, r2: Transition) -> LExpr:
    """Both rules enabled, and the two orders of the pair end in different visible states."""
    a, b = _then(system, r1, r2), _then(system, r2, r1)
    shown = set(visible(system))
    diff = disj(*(Op("ne", (a.get(n, V(n)), b.get(n, V(n))))
                  for n in sorted((set(a) | set(b)) & shown)))
    return conj(enabled(system, r1), enabled(system, r2), diff)


def _rule_pairs(ruleset: Ruleset, reacher: Reacher, scan: Scan,
                resolver: str, part: int) -> list[Finding]:
    system = ruleset.system
    env = Z3Env(system, reacher.options)
    peaks: list[tuple[Transition, Transition, LExpr]] = []
    for i, r1 in enumerate(system.rules):
        for r2 in system.rules[i + 1:]:
            if scan_part((r1.source, r2.source)) != part or not _interact(r1, r2):
                continue
            cond = peak(system, r1, r2)
            status, _ = env.check(env.expr(cond))
            if status == "sat":
                peaks.append((r1, r2, cond))
            elif status != "unsat":
                scan.undecided.append(Undecided("order-dependence",
                                                tuple(sorted({r1.source, r2.source})), status))
    reacher.witness_many([cond for _, _, cond in peaks], at="all")  # batched, then cached
    out: list[Finding] = []
    for r1, r2, cond in peaks:
        finding = _pair_finding(ruleset, reacher, scan, resolver, r1, r2, cond)
        if finding is not None:
            out.append(finding)
    return out


def _pair_finding(ruleset: Ruleset, reacher: Reacher, scan: Scan, resolver: str,
                  r1: Transition, r2: Transition, cond: LExpr) -> Finding | None:
    system = ruleset.system
    interp = reacher.interp
    rules = tuple(sorted({r1.source, r2.source}))
    tried = cond
    for _ in range(MAX_PEAKS):
        w = reacher.witness(tried, at="all")
        if w.reachable is None:
            scan.undecided.append(Undecided("order-dependence", rules, w.reason))
            return None
        if not w.reachable or w.state is None or w.trace is None:
            return None
        s = w.state
        if not (interp.is_enabled(r1, s) and interp.is_enabled(r2, s)):
            raise AssertionError("peak witness does not enable both rules")
        one, two = _branch(interp, s, r1), _branch(interp, s, r2)
        shown = visible(system)
        index = {n: k for k, n in enumerate(interp.names)}
        differ = [n for n in shown if one[0][index[n]] != two[0][index[n]]] \
            or one[2] != two[2]
        if differ:
            changed = [n for n in shown if len({s[index[n]], one[0][index[n]],
                                                two[0][index[n]]}) > 1]
            written = [V(n) for n in sorted(_writes(r1) | _writes(r2))]
            states = states_of(system, [r1.guard, r2.guard, *written])
            detail = [("order 1", _outcome(system, one, r2, changed)),
                      ("order 2", _outcome(system, two, r1, changed))]
            detail += [(r, cited(ruleset, r)) for r in rules if cited(ruleset, r)]
            if resolver:
                detail.append(("resolved by", f"{resolver} — {cited(ruleset, resolver)}"))
            message = (f"{r1.id!r} and {r2.id!r} apply in the same resolution and the "
                       f"result depends on their order ({_short(system, one, changed)} vs "
                       f"{_short(system, two, changed)}; trace: {len(w.trace) - 1} steps)")
            if resolver:
                message += f"; resolved by {resolver}"
            return Finding("order-dependence", rules, states, message, bool(resolver),
                           (resolver,) if resolver else (), w.trace, tuple(detail))
        tried = conj(tried, neg(conj(*(Op("eq", (V(n), Const(v)))
                                       for n, v in zip(interp.names, s, strict=True)))))
    scan.undecided.append(Undecided("order-dependence", rules, f"the first {MAX_PEAKS} "
                                    "reachable peaks join again; later ones not checked"))
    return None


def _branch(interp: Interpreter, s: State, first: Transition) -> tuple[State, list[str], bool]:
    """Fire `first` in `s`, then resolve in spec order: (end state, fired ids, stuck)."""
    res = interp.index[interp.system.res_var]

    def fire(rule: Transition, cur: State) -> State:
        nxt = list(interp.run_effects(rule, cur))
        nxt[res] = min(cur[res] + 1, interp.system.res_bound)
        return tuple(nxt)

    cur, fired = fire(first, s), [first.id]
    while (rule := interp.first_enabled(cur)) is not None:
        if cur[res] >= interp.system.res_bound:
            return cur, fired, True
        cur = fire(rule, cur)
        fired.append(rule.id)
    return cur, fired, False


def _short(system: System, branch: tuple[State, list[str], bool], names: list[str]) -> str:
    return show_state(system, branch[0], names) + (" (never settles)" if branch[2] else "")


def _outcome(system: System, branch: tuple[State, list[str], bool], other: Transition,
             names: list[str]) -> str:
    _, fired, _ = branch
    seq = " → ".join(fired[:6]) + (" → …" if len(fired) > 6 else "")
    if other.id not in fired:
        seq += f" ({other.id} no longer applies)"
    return f"{seq}: {_short(system, branch, names)}"


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
