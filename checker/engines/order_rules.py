"""Order dependence among triggered rules: two orders of the same simultaneous rules, from
one reachable pre-state, ending in stable results a player can tell apart (finding kind
`order-dependence`; docs/semantics.md "One step", "Spec order carries no meaning").

Resolution is unordered: any rule that may fire fires next. A resolution is a terminating
rewrite system on states; by Newman's lemma it has one result whatever the order iff every
local peak joins. A pair of rules that does not interact (neither writes what the other
reads or writes) commutes; for every other pair the peak is built symbolically from
`post_state`:

    en(r1, s) ∧ en(r2, s) ∧ (r2 after r1)(s) ≠ (r1 after r2)(s)

over the variables a player sees ("r2 after r1" runs r2 only if it is still enabled; a
pair whose two orders differ only in bookkeeping — which rule has fired — is not a
candidate: a limit, see docs/semantics.md). Z3 decides it over the variable domains
(UNSAT: the pair commutes everywhere); otherwise a peak must be reachable mid-resolution
(`Reacher`, `at="all"`, under the unordered semantics, so every order leading there
counts). At the witness state both branches are resolved to the end in EVERY order
(`Interpreter.resolutions`): the pair diverges when some end of "r1 first" and some end of
"r2 first" differ in a variable a player sees (a model lives or dies, a State kept or
lost, a marker count), or one settles and the other never does. A peak whose branches all
end alike is not a finding and the next reachable peak is tried (`MAX_PEAKS`).

Divergent pairs of one moment (the event whose resolution it is, or the setup) that share
a rule are one finding: one per group of interacting rules and moment, not per pair and
model. Both outcomes are shown, each with its own replayed trace (`Finding.outcomes`).

What the text says about the order settles it: a `Precedence` between the two (the
ordering rule, cited) → resolved by it; an `OrderChoice` covering both → resolved, "the
active player chooses", with the consequence of each choice; `meta: resolves:
active-player-orders` → resolved by that entry. Ordering rules that exist but do not
classify the pair leave it open, and the finding says so.

`simultaneous_notice` is the one note per ruleset of the rules the text leaves unordered:
the pairs whose order could matter, all of whose orders are checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from checker.engines.decision import (
    Reacher,
    Scan,
    Undecided,
    Z3Env,
    cited,
    show_state,
    states_of,
    visible,
)
from checker.interpret import Interpreter, State, choices_of, replay, trace_steps
from checker.interpret.resolve import Independence, footprint
from checker.ir import (
    Const,
    LExpr,
    Op,
    Ruleset,
    System,
    Transition,
    V,
    conj,
    disj,
    enabled,
    neg,
    post_state,
    substitute,
)
from checker.results import Finding, Trace

MAX_PEAKS = 6          # reachable peaks tried per rule pair before calling it undecided


def interact(system: System, r1: Transition, r2: Transition) -> bool:
    """One writes what the other reads or writes (otherwise they commute)."""
    (ra, wa), (rb, wb) = footprint(system, r1), footprint(system, r2)
    return bool(wa & (rb | wb) or wb & ra)


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
    """Both rules enabled, and the two orders of the pair end in states a player can tell
    apart."""
    a, b = _then(system, r1, r2), _then(system, r2, r1)
    shown = set(visible(system))
    diff = disj(*(Op("ne", (a.get(n, V(n)), b.get(n, V(n))))
                  for n in sorted((set(a) | set(b)) & shown)))
    return conj(enabled(system, r1), enabled(system, r2), diff)


def candidate_pairs(system: System, env: Z3Env, scan: Scan, keep: set[int] | None = None,
                    part_of: dict[str, int] | None = None
                    ) -> list[tuple[Transition, Transition, LExpr]]:
    """The interacting pairs whose peak is satisfiable over the domains (those of the
    parts in `keep`, by `part_of` a rule's part, when given)."""
    out = []
    for i, r1 in enumerate(system.rules):
        for r2 in system.rules[i + 1:]:
            if keep is not None and part_of is not None and part_of[r1.id] not in keep:
                continue
            if not interact(system, r1, r2):
                continue
            cond = peak(system, r1, r2)
            status, _ = env.check(env.expr(cond))
            if status == "sat":
                out.append((r1, r2, cond))
            elif status != "unsat":
                scan.undecided.append(Undecided("order-dependence",
                                                tuple(sorted({r1.source, r2.source})), status))
    return out


@dataclass(frozen=True)
class Divergence:
    """Two orders of one resolution, from `state`, ending apart."""

    r1: Transition
    r2: Transition
    moment: str                         # the event (without its model; "" for the setup)
    state: State
    ends: tuple[State, State]
    stuck: tuple[bool, bool]
    orders: tuple[tuple[str, ...], tuple[str, ...]]   # the rules fired from `state`
    traces: tuple[Trace, Trace]
    changed: tuple[str, ...]            # the visible variables that differ


def part_of_rules(system: System, parts: int, scan_part: object) -> dict[str, int]:
    """Each rule's part: that of its dependence component (all its interacting pairs, and
    so every group of one finding, are decided in one part)."""
    comp = Independence(system).component
    members: dict[int, set[str]] = {}
    for r in system.rules:
        members.setdefault(comp[r.id], set()).add(r.source)
    assert callable(scan_part)
    return {r.id: int(scan_part(sorted(members[comp[r.id]]))) % parts for r in system.rules}


def divergences(ruleset: Ruleset, reacher: Reacher, scan: Scan,
                pairs: list[tuple[Transition, Transition, LExpr]]) -> list[Divergence]:
    reacher.witness_many([cond for _, _, cond in pairs], at="all")  # batched, then cached
    out = []
    for r1, r2, cond in pairs:
        d = _divergence(ruleset, reacher, scan, r1, r2, cond)
        if d is not None:
            out.append(d)
    return out


def _divergence(ruleset: Ruleset, reacher: Reacher, scan: Scan, r1: Transition,
                r2: Transition, cond: LExpr) -> Divergence | None:
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
        found = _apart(ruleset, interp, w.trace, s, r1, r2)
        if found is not None:
            return found
        # the next peak is another state, whatever its resolution counter (which only
        # numbers the steps: from the same state every order ends the same)
        res = ruleset.system.res_var
        tried = conj(tried, neg(conj(*(Op("eq", (V(n), Const(v)))
                                       for n, v in zip(interp.names, s, strict=True)
                                       if n != res))))
    scan.undecided.append(Undecided("order-dependence", rules, f"the first {MAX_PEAKS} "
                                    "reachable peaks join again; later ones not checked"))
    return None


def _ends(interp: Interpreter, s: State, first: Transition
          ) -> list[tuple[State, tuple[str, ...], bool]]:
    """Fire `first` in `s` (even where an ordering rule would hold it back), then every
    order of the rest: each end with one order reaching it, and whether it is stuck."""
    after = interp.fire(first, s)
    res = interp.resolutions(after)
    out = []
    for end in (*res.finals, *res.stuck):
        _, fired = res.path(end)
        out.append((end, (first.id, *fired), end in res.stuck_set))
    return out


def _apart(ruleset: Ruleset, interp: Interpreter, trace: Trace, s: State,
           r1: Transition, r2: Transition) -> Divergence | None:
    system = ruleset.system
    shown = visible(system)
    index = interp.index

    def seen(end: State, stuck: bool) -> tuple[object, ...]:
        return (stuck, *(end[index[n]] for n in shown))

    one, two = _ends(interp, s, r1), _ends(interp, s, r2)
    pick = next(((a, b) for a in one for b in two if seen(a[0], a[2]) != seen(b[0], b[2])),
                None)
    if pick is None:
        return None
    (end1, order1, stuck1), (end2, order2, stuck2) = pick
    changed = tuple(n for n in shown if len({s[index[n]], end1[index[n]],
                                             end2[index[n]]}) > 1)
    moment, traces = _traces(system, interp, trace, s, (order1, order2))
    return Divergence(r1, r2, moment, s, (end1, end2), (stuck1, stuck2), (order1, order2),
                      traces, changed)


def _traces(system: System, interp: Interpreter, trace: Trace, s: State,
            orders: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[str, tuple[Trace, Trace]]:
    """The event of the resolution `s` is in, and a replayed trace for each order: the
    witness's steps, then its last resolution up to `s`, then the order."""
    start, events = trace_steps(interp, trace)
    fired = choices_of(trace)
    cur = start
    prefix: tuple[str, ...] | None = None
    for k in range(len(fired)):
        if k == 0:
            micro, _ = interp.run_choices(start, fired[0])
        else:
            micro = interp.macro_step(cur, *events[k - 1], fired[k]).micro
        if s in micro:
            prefix = fired[k][:micro.index(s)]
            events = events[:k]
            fired = fired[:k]
            break
        cur = micro[-1]
    if prefix is None:
        raise AssertionError("the peak is not on its witness trace")
    moment = events[-1][0].split("@")[0] if events else ""
    free = dataclasses.replace(system, precedence=())   # an order an ordering rule excludes
    out = []
    for order in orders:
        choices = [*fired, (*prefix, *order)]
        try:
            out.append(replay(system, start, events, fired=choices))
        except Exception:
            out.append(replay(free, start, events, fired=choices))
    return moment, (out[0], out[1])


# ============================================================================ findings

def _settled(system: System, d: Divergence) -> tuple[str, str]:
    """("precedence" | "choice" | "", source) for what the text says about the pair."""
    ids = {d.r1.id, d.r2.id}
    for p in system.precedence:
        if {p.first, p.then} == ids:
            return "precedence", p.source
    for c in system.order_choices:
        if ids <= set(c.rules):
            return "choice", c.source
    return "", ""


def _show(system: System, d: Divergence, k: int) -> str:
    text = show_state(system, d.ends[k], d.changed) or "the same situation"
    return text + (" (never settles)" if d.stuck[k] else "")


def _order_text(system: System, d: Divergence, k: int) -> str:
    fired = d.orders[k]
    other = (d.r2 if k == 0 else d.r1).id
    seq = " → ".join(fired[:6]) + (" → …" if len(fired) > 6 else "")
    if other not in fired:
        seq += f" ({other} no longer applies)"
    return f"{seq}: {_show(system, d, k)}"


def group_findings(ruleset: Ruleset, found: list[Divergence], resolver: str) -> list[Finding]:
    """One finding per moment and group of divergent pairs sharing a rule."""
    groups: list[list[Divergence]] = []
    for d in found:
        mine = {d.r1.source, d.r2.source}
        hit = [g for g in groups if g[0].moment == d.moment and
               mine & {x for e in g for x in (e.r1.source, e.r2.source)}]
        merged = [d] + [e for g in hit for e in g]
        groups = [g for g in groups if g not in hit] + [merged]
    return [_finding(ruleset, g, resolver) for g in groups]


def _finding(ruleset: Ruleset, group: list[Divergence], resolver: str) -> Finding:
    system = ruleset.system
    settled = [_settled(system, d) for d in group]
    open_ = [d for d, st in zip(group, settled, strict=True) if not st[0]]
    d = (open_ or group)[0]
    how, source = _settled(system, d)
    rules = tuple(sorted({x for e in group for x in (e.r1.source, e.r2.source)}))
    written = [V(a.var) for e in group for r in (e.r1, e.r2) for a in r.effects]
    states = states_of(system, [*(r.guard for e in group for r in (e.r1, e.r2)), *written])
    moment = d.moment or "the setup"
    detail = [("order 1", _order_text(system, d, 0)), ("order 2", _order_text(system, d, 1))]
    detail += [(r, cited(ruleset, r)) for r in rules if cited(ruleset, r)]
    names = ", ".join(repr(r) for r in rules)
    message = (f"at {moment}: {names} apply in the same resolution and the result depends "
               f"on their order ({_show(system, d, 0)} vs {_show(system, d, 1)}; trace: "
               f"{len(d.traces[0]) - 1} steps)")
    resolved_by: tuple[str, ...] = ()
    if open_ and resolver:
        resolved_by = (resolver,)
        detail.append(("resolved by", f"{resolver} — {cited(ruleset, resolver)}"))
        message += f"; resolved by {resolver}"
    elif not open_ and how == "precedence":
        resolved_by = tuple(sorted({s for _, s in settled}))
        first = next(p.first for p in system.precedence if p.source == source
                     and {p.first, p.then} == {d.r1.id, d.r2.id})
        detail.append(("resolved by", f"{source} — {cited(ruleset, source)}: {first} "
                       "comes first"))
        message += f"; resolved by the ordering rule {source} ({first} comes first)"
    elif not open_ and how == "choice":
        resolved_by = tuple(sorted({s for _, s in settled}))
        detail.append(("resolved by", f"{source} — the active player chooses — "
                       f"{cited(ruleset, source)}"))
        detail.append((f"if {d.r1.id} first", _show(system, d, 0)))
        detail.append((f"if {d.r2.id} first", _show(system, d, 1)))
        message += f"; resolved by {source}: the active player chooses"
    elif system.precedence:
        message += "; the ordering rule does not say which comes first for these"
        detail.append(("ordering rules", ", ".join(sorted({p.source for p in
                                                           system.precedence}))))
    if len({(e.r1.source, e.r2.source) for e in group}) > 1:
        detail.append(("pairs", "; ".join(sorted({f"{e.r1.source} / {e.r2.source}"
                                                 for e in group}))))
    return Finding("order-dependence", rules, states, message, bool(resolved_by), resolved_by,
                   d.traces[0], tuple(detail),
                   outcomes=(("order 1", d.traces[0]), ("order 2", d.traces[1])))


def notice_message(pairs: Sequence[tuple[str, ...]]) -> str:
    listed = "; ".join(" / ".join(p) for p in pairs[:6]) + (" …" if len(pairs) > 6 else "")
    return (f"{len(pairs)} pair(s) of rules can apply in the same resolution with an order "
            "that could matter, and the text does not order them (their order in the spec "
            f"means nothing) — every order is checked: {listed}")


def simultaneous_notice(ruleset: Ruleset,
                        pairs: list[tuple[Transition, Transition, LExpr]]) -> Finding | None:
    """The one note of the rules the text leaves unordered: the pairs of rules that can be
    enabled together and whose order could matter, not settled by an ordering rule."""
    system = ruleset.system
    loose = []
    for r1, r2, _ in pairs:
        ids = {r1.id, r2.id}
        if any({p.first, p.then} == ids for p in system.precedence) or \
                any(ids <= set(c.rules) for c in system.order_choices):
            continue
        loose.append(tuple(sorted({r1.source, r2.source})))
    shown = sorted({p for p in loose if len(p) == 2})
    if not shown:
        return None
    rules = tuple(sorted({r for p in shown for r in p}))
    message = notice_message(shown)
    detail = (("pairs", "; ".join(f"{a} / {b}" for a, b in shown)),
              *((r, cited(ruleset, r)) for r in rules if cited(ruleset, r)))
    return Finding("simultaneous-rules", rules, (), message, detail=detail)
