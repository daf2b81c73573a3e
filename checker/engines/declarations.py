"""Declarations tied to events: `unmet-obligation`, `no-legal-action` over the declaring
events, `deadlock`, `unusable-permission` and `permission-conflict` (docs/semantics.md
"Decision points and conflicts").

A decision is *tied to events* for a model once some event declares one of its options for
that model (`declares:`); lowering makes such an event enabled only where the constraints in
force permit what it declares (`Transition.unrestricted` keeps the guard as written). Every
question is a reachable stable situation, asked through `decision.Reacher` (the exact
reachability core, with its Z3 and explicit fallbacks), its witness replayed:

- `unmet-obligation`: a `must` in force, the constraints permit the obliged option, and no
  event that declares it is enabled (or none exists). Where the constraints themselves
  forbid it, the clash is the conflict scan's `forbidden-obligation`. An `at_least_one`
  in force is unmet where some selected option is permitted on some slot and no enabled
  event declares a selected option on any slot.
- `no-legal-action`: the model is at the decision point (the written guard of one of its
  declaring events holds), no `must` on the decision is in force (that is an obligation's
  finding), none of its declaring events is enabled and every option no event declares
  (an option taken without an event, such as not revealing) is forbidden too. Up to
  `MAX_SITUATIONS` distinct sets of blocking constraints are reported per decision.
- `deadlock`: in a ruleset with declaring events, a stable situation where no event at
  all is enabled, for every value of the rolled inputs, and some model holds no terminal
  State (the game has not ended).
- `unusable-permission`: a `may:` applies in some reachable situation but in none of them
  do the constraints in force permit any option it grants.
- `permission-conflict`: a `may:` applies while a constraint in force forbids something it
  grants (an option, or every option of a grant by attribute: "may use Crawl" meets a
  prohibition only where no crawl option is left, not where crawling closer is); resolved
  by an `overrides` between the two or by `meta: resolves: prohibition-beats-permission`.
Inputs (the rolled dice) are part of a situation, as for the conflict scan: an obligation
read on "that Activation's roll" meets the declarations made with the same roll.
"""

from __future__ import annotations

import itertools

from checker.engines.decision import (
    Reacher,
    Scan,
    Undecided,
    Witness,
    cited,
    meta_id,
    scan_part,
    show_state,
    states_of,
    visible,
)
from checker.interpret import evaluate
from checker.ir import (
    Const,
    Constraint,
    LExpr,
    Op,
    Permission,
    Ruleset,
    System,
    Transition,
    V,
    allowed_expr,
    conj,
    disj,
    effective_expr,
    lvars,
    neg,
    substitute,
)
from checker.results import Finding

MAX_SITUATIONS = 6     # distinct no-legal-action situations reported per decision
MAX_INPUT_COMBOS = 64  # deadlock: inputs quantified universally up to this many values


def scan_declarations(ruleset: Ruleset, reacher: Reacher, part: int) -> Scan:
    """The findings of this module's kinds whose rules hash to `part` (`scan_part`)."""
    system = ruleset.system
    scan = Scan()
    tied = _tied(system)
    if not tied and not system.permissions:
        return scan
    for c in system.constraints:
        if c.kind == "must" and (c.decision, c.model) in tied and \
                scan_part([c.source]) == part:
            _obligation(ruleset, reacher, c, scan)
        elif c.kind == "some" and any((s, c.model) in tied for s in c.slots) and \
                scan_part([c.source]) == part:
            _some_obligation(ruleset, reacher, c, scan)
    for (dim, model), events in sorted(tied.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        if scan_part([f"decision:{dim}"]) == part:
            _no_legal_action(ruleset, reacher, dim, model, events, scan)
    if tied and scan_part(["deadlock"]) == part:
        _deadlock(ruleset, reacher, scan)
    for p in system.permissions:
        if scan_part([p.source]) == part:
            _permission(ruleset, reacher, p, scan)
    return scan


def _tied(system: System) -> dict[tuple[str, str | None], list[Transition]]:
    """(decision, model) → the events that declare one of its options for that model."""
    out: dict[tuple[str, str | None], list[Transition]] = {}
    for ev in system.events:
        for dim, _, model in ev.declares:
            out.setdefault((dim, model), [])
            if ev not in out[(dim, model)]:
                out[(dim, model)].append(ev)
    return out


def _perms(system: System) -> tuple[Permission, ...]:
    return system.permissions


# ============================================================================ obligations

def _obligation(ruleset: Ruleset, reacher: Reacher, c: Constraint, scan: Scan) -> None:
    system = ruleset.system
    option = c.options[0]
    meets = [e for e in system.events if (c.decision, option, c.model) in e.declares]
    permitted = allowed_expr(system.constraints, c.decision, option, c.model, _perms(system))
    _unmet_obligation(ruleset, reacher, c, scan, meets, permitted, "it",
                      f"{c.decision} {option}")


def _some_obligation(ruleset: Ruleset, reacher: Reacher, c: Constraint, scan: Scan) -> None:
    """`at_least_one`: in force, some selected option permitted on some slot, and no
    enabled event declares a selected option on any slot."""
    system = ruleset.system
    wanted = {(s, o, c.model) for s in c.slots for o in c.options}
    meets = [e for e in system.events if wanted & set(e.declares)]
    permitted = disj(*(allowed_expr(system.constraints, s, o, c.model, _perms(system))
                       for s in c.slots for o in c.options))
    _unmet_obligation(ruleset, reacher, c, scan, meets, permitted, "one",
                      f"{' or '.join(c.options)} as at least one of {', '.join(c.slots)}")


def _unmet_obligation(ruleset: Ruleset, reacher: Reacher, c: Constraint, scan: Scan,
                      meets: list[Transition], permitted: LExpr, what: str,
                      obliged: str) -> None:
    """What both kinds of obligation share: `c` in force, `permitted` (the constraints
    permit what it obliges) and none of the events that would meet it (`meets`) enabled;
    the finding's message says it is obliged to declare `obliged` and that no event
    declares `what` ("it", "one")."""
    system = ruleset.system
    cond = conj(effective_expr(c, system.constraints, _perms(system)), permitted,
                neg(disj(*(e.guard for e in meets))))
    w = _ask(reacher, cond, "unmet-obligation", (c.source,), scan)
    if w is None or w.state is None or w.trace is None:
        return
    names = ", ".join(sorted({e.source for e in meets}))
    how = f"no event that declares {what} can happen here ({names})" if meets else \
        f"no event declares {what}"
    message = (f"{_where(system, w, [c.when], c.model)}: the rules oblige it to declare "
               f"{obliged} ({c.source!r}) and nothing forbids it, but {how}")
    scan.findings.append(Finding("unmet-obligation", (c.source,), states_of(system, [c.when]),
                                 message, False, (), w.trace, _detail(ruleset, [c.source])))


# ============================================================================ no legal action

def _blockers(system: System, env: dict[str, int], events: list[Transition],
              dim: str | None = None) -> list[str]:
    """The constraints in force in `env` that forbid an option declared by an event whose
    written guard holds there (what keeps the model from declaring it); only those on
    decision `dim` (and only events at its decision point) when given."""
    out: set[str] = set()
    for e in events:
        if e.unrestricted is None or not evaluate(e.unrestricted if dim is None else
                                                  _at_point(system, e, dim), env):
            continue
        for d, option, model in e.declares:
            if dim is not None and d != dim:
                continue
            for c in system.constraints:
                if c.decision != d or c.model != model or c.kind == "some":
                    continue
                permits = option not in c.options if c.kind == "forbid" else \
                    option in c.options
                if not permits and evaluate(effective_expr(c, system.constraints,
                                                           _perms(system)), env):
                    out.add(c.source)
    return sorted(out)


def _at_point(system: System, e: Transition, dim: str) -> LExpr:
    """Event `e` would declare `dim` here but for the restrictions on `dim` itself: its
    written guard holds and the constraints permit the other options it declares (a model
    that may not activate is at no decision point of its Activation)."""
    written = e.unrestricted if e.unrestricted is not None else e.guard
    return conj(written, *(allowed_expr(system.constraints, d, o, m, _perms(system))
                           for d, o, m in e.declares if d != dim))


def _no_legal_action(ruleset: Ruleset, reacher: Reacher, dim: str, model: str | None,
                     events: list[Transition], scan: Scan) -> None:
    system = ruleset.system
    at_point = disj(*(_at_point(system, e, dim) for e in events))
    obliged = disj(*(effective_expr(c, system.constraints, _perms(system))
                     for c in system.constraints
                     if c.kind == "must" and c.decision == dim and c.model == model))
    options = next((d.options for d in system.decisions if d.name == dim), ())
    declared = {o for e in events for d, o, m in e.declares if d == dim and m == model}
    silent = [allowed_expr(system.constraints, dim, o, model, _perms(system))
              for o in options if o not in declared]   # taken without an event
    cond = conj(at_point, neg(disj(*(e.guard for e in events))), neg(obliged),
                *(neg(x) for x in silent))
    for _ in range(MAX_SITUATIONS):
        w = _ask(reacher, cond, "no-legal-action", (f"decision:{dim}",), scan)
        if w is None or w.state is None or w.trace is None:
            return
        env = reacher.interp.env(w.state)
        rules = _blockers(system, env, events, dim)
        whens = [c.when for c in system.constraints if c.source in rules and c.model == model]
        said = ", ".join(repr(r) for r in rules) or "the events' own conditions"
        message = (f"{_where(system, w, whens, model)}: it is to declare its {dim}, but "
                   f"every {dim} it could declare is forbidden ({said}); no event that "
                   f"declares one can happen")
        scan.findings.append(Finding("no-legal-action", tuple(rules) or (events[0].source,),
                                     states_of(system, whens), message, False, (), w.trace,
                                     _detail(ruleset, rules)))
        if not rules:
            return
        force = [effective_expr(c, system.constraints, _perms(system))
                 for c in system.constraints if c.source in rules and c.model == model]
        cond = conj(cond, neg(conj(*force)))


# ============================================================================ deadlock

def _terminal(ruleset: Ruleset) -> set[str]:
    doc = ruleset.doc
    return {n for n, sd in doc.states.items() if sd.terminal} if doc is not None else set()


def _deadlock(ruleset: Ruleset, reacher: Reacher, scan: Scan) -> None:
    system = ruleset.system
    inputs = [v for v in system.vars if v.kind == "input"]
    combos = list(itertools.islice(itertools.product(
        *(range(v.lo, v.hi + 1) for v in inputs)), MAX_INPUT_COMBOS + 1))
    any_event = disj(*(e.guard for e in system.events))
    if len(combos) <= MAX_INPUT_COMBOS:
        nothing = conj(*(neg(substitute(any_event, {v.name: Const(x)
                                                    for v, x in zip(inputs, combo, strict=True)}))
                         for combo in combos))
    else:
        nothing = neg(any_event)
    ended = _ended(system, _terminal(ruleset))
    w = _ask(reacher, conj(nothing, neg(ended)), "deadlock", ("deadlock",), scan)
    if w is None or w.state is None or w.trace is None:
        return
    env = reacher.interp.env(w.state)
    declaring = [e for e in system.events if e.declares]
    rules = _blockers(system, env, declaring)
    held = sorted({v.state for v in system.vars if v.state and v.kind == "state" and env[v.name]})
    said = (f"the restrictions in force ({', '.join(repr(r) for r in rules)}) forbid every "
            "declaration whose own condition holds" if rules else
            "no event's condition holds")
    message = (f"{_where(system, w, [], None)}: nothing can happen any more — no event is "
               f"enabled, whatever is rolled, and the game has not ended; {said}")
    scan.findings.append(Finding("deadlock", tuple(rules) or (declaring[0].source,),
                                 tuple(held), message, False, (), w.trace,
                                 _detail(ruleset, rules)))


def _ended(system: System, terminal: set[str]) -> LExpr:
    """Every model holds a terminal State (no terminal States: never)."""
    if not terminal:
        return Const(False)
    per: dict[str | None, list[LExpr]] = {}
    for v in system.vars:
        if v.kind == "state" and v.state in terminal:
            per.setdefault(v.model, []).append(Op("gt", (V(v.name), Const(0))))
    owners = system.models or (None,)
    return conj(*(disj(*per.get(m, [Const(False)])) for m in owners))


# ============================================================================ permissions

def _permission(ruleset: Ruleset, reacher: Reacher, p: Permission, scan: Scan) -> None:
    system = ruleset.system
    applies = _ask(reacher, p.when, "unusable-permission", (p.source,), scan)
    if applies is None or applies.state is None:
        return
    usable = disj(*(allowed_expr(system.constraints, p.decision, o, p.model, _perms(system))
                    for o in p.options))
    used = _ask(reacher, conj(p.when, usable), "unusable-permission", (p.source,), scan)
    if used is None:
        return
    if used.reachable is False and applies.trace is not None:
        env = reacher.interp.env(applies.state)
        rules = _forbidding(system, p, env)
        message = (f"{_where(system, applies, [p.when], p.model)}: the text grants "
                   f"{p.decision} {', '.join(p.options)} ({p.source!r}), but in every "
                   "reachable situation where it applies the restrictions forbid it"
                   + (f" ({', '.join(repr(r) for r in rules)})" if rules else ""))
        scan.findings.append(Finding("unusable-permission", tuple(sorted({p.source, *rules})),
                                     states_of(system, [p.when]), message, False, (),
                                     applies.trace, _detail(ruleset, [p.source, *rules])))
        return
    for c in system.constraints:
        if c.decision != p.decision or c.model != p.model or c.kind == "some":
            continue
        banned = [o for g in p.granted()
                  if all((o in c.options) == (c.kind == "forbid") for o in g) for o in g]
        if not banned:   # some option of every grant stays permitted by `c`
            continue
        clash = conj(p.when, effective_expr(c, system.constraints))
        w = _ask(reacher, clash, "permission-conflict", (p.source, c.source), scan)
        if w is None or w.state is None or w.trace is None:
            continue
        resolvers = []
        if c.source in p.overrides:
            resolvers.append(p.source)
        if p.source in c.overrides:
            resolvers.append(c.source)
        if not resolvers and "prohibition-beats-permission" in system.meta:
            resolvers.append(meta_id(ruleset, "prohibition-beats-permission"))
        message = (f"{_where(system, w, [p.when, c.when], p.model)}: the text grants "
                   f"{p.decision} {', '.join(banned)} ({p.source!r}) while {c.source!r} "
                   f"forbids it" + (f"; resolved by {', '.join(resolvers)}" if resolvers
                                    else "; nothing says which wins"))
        pair = tuple(sorted({p.source, c.source}))
        scan.findings.append(Finding("permission-conflict", pair,
                                     states_of(system, [p.when, c.when]), message,
                                     bool(resolvers), tuple(resolvers), w.trace,
                                     _detail(ruleset, [*pair, *resolvers])))


def _forbidding(system: System, p: Permission, env: dict[str, int]) -> list[str]:
    out = set()
    for c in system.constraints:
        if c.decision == p.decision and c.model == p.model and c.kind != "some" and \
                evaluate(effective_expr(c, system.constraints, _perms(system)), env) and \
                any((o in c.options) == (c.kind == "forbid") for o in p.options):
            out.add(c.source)
    return sorted(out)


# ============================================================================ helpers

def _ask(reacher: Reacher, cond: LExpr, kind: str, rules: tuple[str, ...],
         scan: Scan) -> Witness | None:
    """The witness of `cond` at a stable state; None (recorded as undecided) when unknown."""
    w = reacher.witness(cond)
    if w.reachable is None:
        scan.undecided.append(Undecided(kind, rules, w.reason))
        return None
    return w


def _where(system: System, w: Witness, whens: list[LExpr], model: str | None) -> str:
    assert w.state is not None and w.trace is not None
    read = set().union(*(lvars(e) for e in whens)) if whens else set(visible(system))
    shown = show_state(system, w.state, [n for n in visible(system) if n in read])
    who = f"model {model!r}" if model else "a model"
    steps = len(w.trace.steps) - 1
    return f"{who} can reach this situation ({shown + '; ' if shown else ''}trace: {steps} steps)"


def _detail(ruleset: Ruleset, rules: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for r in dict.fromkeys(rules):
        quote = cited(ruleset, r)
        out.append((r, quote or r))
    return tuple(out)

