"""Lowering properties, rulings and the built-in properties."""

from __future__ import annotations

from checker.ir import (
    Const,
    Constraint,
    LExpr,
    Op,
    PathKey,
    Property,
    System,
    Transition,
    V,
    allowed_expr,
    conj,
    disj,
    enabled,
    lvars,
    neg,
    stable,
    substitute,
)
from checker.spec import expr as ast
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_effects import event_instance
from checker.spec.lower_expr import (
    STAT_PREFIX,
    did_you_mean,
    lower_bool,
    marker_vars,
    sum_of,
    type_ref,
)
from checker.stats import open_values, same_once

# ============================================================================ properties

def _states_in(ctx: Ctx, text: str) -> tuple[str, ...]:
    try:
        tree = ast.parse_expr(text)
    except ast.ExprSyntaxError:
        return ()
    names = {r.parts[-1] for r in ast.refs(tree)}
    return tuple(sorted(n for n in names if n in ctx.state_kind))


def lower_properties(ctx: Ctx, monitors: list[tuple[str, LExpr]]) -> list[Property]:
    out: list[Property] = []
    for i, pd in enumerate(ctx.doc.properties):
        for kind in ("always", "never", "reachable"):
            text = getattr(pd, kind)
            if text is None:
                continue
            path = ("properties", i, kind)
            ctx.allow_stat = True
            per = [lower_bool(ctx, text, m, path) for m in ctx.per_model()]
            ctx.allow_stat = False

            def every(e: LExpr, path: PathKey = path) -> LExpr:   # every order of modifiers
                return expand_stats(ctx, e, some=False, path=path)

            def some(e: LExpr, path: PathKey = path) -> LExpr:
                return expand_stats(ctx, e, some=True, path=path)

            states = _states_in(ctx, text)
            if pd.after is not None:
                after = _after(ctx, pd.after, ("properties", i, "after"))
                if after is None:
                    continue
                body = conj(*(Op("implies", (h, every(p if kind == "always" else neg(p))))
                              for h, p in zip(after, per, strict=True)))
                out.append(Property(pd.id, pd.id, kind, "invariant", body, states=states,
                                    text=f"after {pd.after}: {kind} {text}"))
                out.append(Property(f"vacuity:{pd.id}", pd.id, "vacuity", "reachable",
                                    disj(*after), states=states,
                                    text=f"{pd.after!r} can happen"))
                continue
            if kind == "reachable":
                out.append(Property(pd.id, pd.id, "reachable", "reachable",
                                    disj(*(some(p) for p in per)), states=states, text=text))
                continue
            body = conj(*(every(p) for p in per)) if kind == "always" else \
                conj(*(every(neg(p)) for p in per))
            pkind = "cap" if kind == "always" and _is_cap(text) else kind
            out.append(Property(pd.id, pd.id, pkind, "invariant", body,  # type: ignore[arg-type]
                                states=states, text=f"{kind} {text}"))
            if kind == "always" and len(per) and all(isinstance(p, Op) and p.op == "implies"
                                                     for p in per):
                premise = disj(*(some(p.args[0]) for p in per if isinstance(p, Op)))
                out.append(Property(f"vacuity:{pd.id}", pd.id, "vacuity", "reachable", premise,
                                    states=states, text=f"the premise of {pd.id!r} can hold"))
        if pd.terminal is not None:
            name = pd.terminal
            if name not in ctx.state_kind:
                ctx.err("RP203", f"unknown State {name!r}", ("properties", i, "terminal"),
                        did_you_mean(name, list(ctx.state_kind)))
                continue
            out.append(_terminal_property(ctx, pd.id, pd.id, name, monitors))
    return out


MAX_STAT_MODIFIERS = 6     # stat(): every subset and every order of its modifiers is listed


def expand_stats(ctx: Ctx, e: LExpr, *, some: bool, path: PathKey) -> LExpr:
    """`e` with each `stat(x)` placeholder replaced by the stat's values. Which modifiers
    apply is part of the situation; the order they apply in is left open by the text unless
    an ordering rule says otherwise, so every order counts (and every base and rounding
    the text leaves open, `Stat.cases`): with `some=False` (always,
    never) `e` must hold for every value an order can give, with `some=True` (reachable,
    a premise) for one of them. A stat of a model has that model's modifiers."""
    uses = sorted(v for v in lvars(e) if v.startswith(STAT_PREFIX))
    if not uses:
        return e
    name, _, owner = uses[0].removeprefix(STAT_PREFIX).partition("@")
    stat = ctx.stats[name]
    mods = same_once([m for m in ctx.modifiers if m.stat == name and m.model == (owner or None)])
    if len(mods) > MAX_STAT_MODIFIERS:
        ctx.err("RP211", f"stat {name!r} has {len(mods)} modifiers; stat() in a property "
                f"lists every order of at most {MAX_STAT_MODIFIERS}", path)
        return e
    parts: list[LExpr] = []
    for mask, values in sorted(open_values(stat, mods).items()):
        guard = conj(*(m.when if mask & (1 << i) else neg(m.when) for i, m in enumerate(mods)))
        each = [expand_stats(ctx, substitute(e, {uses[0]: Const(v)}), some=some, path=path)
                for v in sorted(values)]
        parts.append(conj(guard, disj(*each)) if some else
                     Op("implies", (guard, conj(*each))))
    return disj(*parts) if some else conj(*parts)


def _after(ctx: Ctx, event: str, path: PathKey) -> list[LExpr] | None:
    """Per model, "event `event` happened in this step" (`_happened`, which stays set until
    the next event): the premise of an `after:` property."""
    if event not in ctx.events:
        ctx.err("RP203", f"unknown event {event!r} in 'after'", path,
                did_you_mean(event, list(ctx.events)))
        return None
    out: list[LExpr] = []
    for m in ctx.per_model():
        inst = event_instance(ctx, event, m)
        ctx.happened_needed.add(inst)
        out.append(Op("eq", (V(f"_happened:{inst}"), Const(1))))
    return out


def lower_rulings(ctx: Ctx, constraints: list[Constraint]) -> list[Property]:
    """A ruling `when → expect` becomes an invariant over the effective permissions: in every
    reachable stable state where `when` holds, each expected option is allowed and every other
    option of that decision is not. A constraint counts unless an active constraint overrides
    it; `must o` allows only o, `only S` allows S, `forbid S` allows the rest."""
    out: list[Property] = []
    for i, rd in enumerate(ctx.doc.rulings):
        parts: list[LExpr] = []
        premises: list[LExpr] = []
        for m in ctx.per_model():
            when = lower_bool(ctx, rd.when, m, ("rulings", i, "when"))
            premises.append(when)
            checks: list[LExpr] = []
            for dim, want in rd.expect.items():
                options = ctx.options.get(dim)
                if options is None:
                    ctx.err("RP203", f"unknown decision {dim!r}", ("rulings", i, "expect", dim),
                            did_you_mean(dim, list(ctx.options)))
                    continue
                if want not in options:
                    ctx.err("RP203", f"{want!r} is not an option of decision {dim!r}",
                            ("rulings", i, "expect", dim), did_you_mean(want, options))
                    continue
                for o in options:
                    allowed = allowed_expr(constraints, dim, o, m)
                    checks.append(allowed if o == want else neg(allowed))
            parts.append(Op("implies", (when, conj(*checks))))
        states = _states_in(ctx, rd.when)
        shown = ", ".join(f"{k} {v}" for k, v in rd.expect.items())
        out.append(Property(rd.id, rd.id, "ruling", "invariant", conj(*parts), states=states,
                            text=f"when {rd.when}: the model declares {shown}"))
        out.append(Property(f"vacuity:{rd.id}", rd.id, "vacuity", "reachable",
                            disj(*premises), states=states,
                            text=f"the situation of ruling {rd.id!r} can occur"))
    return out


def _is_cap(text: str) -> bool:
    try:
        tree = ast.parse_expr(text)
    except ast.ExprSyntaxError:
        return False
    return isinstance(tree, ast.BinOp) and tree.op in ("<=", "<") and isinstance(tree.right,
                                                                                ast.Num)


def _terminal_property(ctx: Ctx, ident: str, source: str, state: str,
                       monitors: list[tuple[str, LExpr]]) -> Property:
    parts: list[LExpr] = []
    for m in ctx.per_model():
        owner = ctx.doc.states[state].model or m
        here = type_ref(ctx, ast.Ref((state,)), owner).expr
        seen = f"_seen:{ctx.q(owner, state)}"
        if all(n != seen for n, _ in monitors):
            monitors.append((seen, here))
        parts.append(Op("implies", (Op("eq", (V(seen), Const(1))), here)))
    return Property(ident, source, "terminal", "invariant", conj(*parts), at="all",
                    states=(state,), text=f"once {state}, always {state}")


def with_builtin_properties(ctx: Ctx, system: System, user: list[Property]) -> System:
    props = list(user)
    for name, sd in ctx.doc.states.items():
        owners = ctx.owners(sd.model)
        if name in ctx.stacking_none:
            parts = [Op("le", (sum_of([V(n) for n in marker_vars(ctx, o, name)]), Const(1)))
                     for o in owners]
            props.append(Property(f"no-stacking:{name}", f"states:{name}", "no-stacking",
                                  "invariant", conj(*parts), at="all", states=(name,),
                                  text=f"{name} never stacks"))
        present = disj(*(Op("ge", (sum_of([V(n) for n in marker_vars(ctx, o, name)]), Const(1)))
                         for o in owners))
        props.append(Property(f"state-reachable:{name}", f"states:{name}", "state-reachable",
                              "reachable", present, at="all", states=(name,),
                              text=f"some model can be {name}"))
    sources: dict[str, list[Transition]] = {}
    for r in system.rules:
        sources.setdefault(r.source, []).append(r)
    for source, insts in sources.items():
        props.append(Property(f"rule-fires:{source}", source, "rule-fires", "reachable",
                              disj(*(enabled(system, r) for r in insts)), at="all",
                              text=f"rule {source!r} can fire"))
    blocked: dict[tuple[str, str, str], list[LExpr]] = {}
    for rule, _inst, pid, state, cond in ctx.blocked_effects:
        blocked.setdefault((rule, pid, state), []).append(cond)
    for (rule, pid, state), conds in blocked.items():
        # violated (a trace to the clash) is the finding, as for the other built-ins
        props.append(Property(f"blocked-effect:{pid}:{rule}:{state}", rule, "blocked-effect",
                              "invariant", neg(disj(*conds)), at="all", states=(state,),
                              text=f"prevent {pid!r} never meets rule {rule!r} making a "
                                   f"model {state}"))
    res = V(system.res_var)
    props.append(Property("termination", "rules", "termination", "invariant",
                          disj(Op("lt", (res, Const(system.res_bound))), stable(system)),
                          at="all", text="every resolution of triggered rules ends"))
    return System(**{**system.__dict__, "properties": tuple(props)})


def terminal_builtins(ctx: Ctx, user: list[Property],
                      monitors: list[tuple[str, LExpr]]) -> list[Property]:
    done = {p.states[0] for p in user if p.kind == "terminal"}
    return [_terminal_property(ctx, f"terminal:{name}", f"states:{name}", name, monitors)
            for name, sd in ctx.doc.states.items() if sd.terminal and name not in done]
