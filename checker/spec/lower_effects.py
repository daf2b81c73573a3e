"""Lowering effects: `do:` lines (enter, add, remove, assign, emit) to IR `Assign`s."""

from __future__ import annotations

import re

from checker.ir import (
    FALSE,
    Assign,
    Const,
    LExpr,
    Op,
    PathKey,
    V,
    conj,
    disj,
    lvars,
    neg,
    post_state,
    substitute,
)
from checker.spec import expr as ast
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_expr import (
    ExprTypeError,
    as_bool,
    as_int,
    did_you_mean,
    lower_bool,
    marker_vars,
    split_owner,
    state_ref,
    sum_of,
    type_call,
    type_expr,
    type_ref,
    unknown_label,
)

# ============================================================================ effects

_IF = re.compile(r"^if\s+(?P<cond>.+?):\s+(?P<effect>.+)$")


def lower_effects(ctx: Ctx, texts: list[str], model: str | None, path: PathKey) -> list[Assign]:
    """The effects `texts`, in order (each sees the previous ones' results). Inside a rule,
    the `blocked-effect` cases logged by an effect are rewritten over the state before
    `texts` (through the effects before it), so that they read the rule's pre-state."""
    out: list[Assign] = []
    for i, text in enumerate(texts):
        logged = len(ctx.block_log) if ctx.block_log is not None else 0
        done = len(out)
        out.extend(_one_effect(ctx, text, model, (*path, i)))
        if ctx.block_log is not None and done and len(ctx.block_log) > logged:
            before = post_state(tuple(out[:done]))
            ctx.block_log[logged:] = [(pid, owner, state, substitute(cond, before))
                                      for pid, owner, state, cond in ctx.block_log[logged:]]
    return out


def _one_effect(ctx: Ctx, text: str, model: str | None, p: PathKey) -> list[Assign]:
    guarded = _IF.match(text.strip())
    if guarded is not None:
        return _conditional(ctx, guarded["cond"], guarded["effect"], model, p)
    try:
        eff = ast.parse_effect(text)
    except ast.ExprSyntaxError as exc:
        ctx.err("RP205", f"cannot parse effect {text!r}: {exc}", p,
                "effects: enter X, leave X, add [N] X, remove [N|all|highest] X [-> var], "
                "var = expr, var += expr, var -= expr, emit event")
        return []
    try:
        return _effect(ctx, eff, model, p)
    except ExprTypeError as exc:
        ctx.err(exc.code, f"in effect {text!r}: {exc}", p, exc.fix)
        return []


def _conditional(ctx: Ctx, cond_text: str, text: str, model: str | None,
                 path: PathKey) -> list[Assign]:
    """`if COND: EFFECT`: the effect happens only when COND holds (each assignment keeps
    the old value otherwise). COND may not read what the effect changes, so that it means
    the same before and after every assignment of the effect."""
    cond = lower_bool(ctx, cond_text, model, path)
    ctx.effect_conds.append(cond)
    try:
        inner = lower_effects(ctx, [text], model, path)
    finally:
        ctx.effect_conds.pop()
    clash = sorted(lvars(cond) & {a.var for a in inner})
    if clash:
        ctx.err("RP206", f"in effect {text!r}: the condition {cond_text!r} reads {clash[0]!r}, "
                "which the effect changes", path, "split it into two effects")
        return []
    return [Assign(a.var, Op("ite", (cond, a.value, V(a.var)))) for a in inner]


def _clamp(e: LExpr, lo: int, hi: int) -> LExpr:
    return Op("min", (Op("max", (e, Const(lo))), Const(hi)))


def _blocked(ctx: Ctx, owner: str | None, state: str, current: LExpr,
             changed: LExpr) -> LExpr:
    """When the `enter`/`add` of `state` does nothing: a prevent blocks it, or the State
    does not stack and is there. Inside a rule (`ctx.block_log`), each prevent's case is
    logged with `changed` (the effect would change the variable) for `blocked-effect`."""
    prevents = ctx.prevents.get((owner, state), [])
    stacked = Op("ge", (current, Const(1))) if state in ctx.stacking_none else FALSE
    if ctx.block_log is not None:
        for pid, cond in prevents:
            ctx.block_log.append((pid, owner, state,
                                  conj(*ctx.effect_conds, cond, changed, neg(stacked))))
    return disj(*(c for _, c in prevents), stacked)


def _effect(ctx: Ctx, eff: ast.Effect, model: str | None, path: PathKey) -> list[Assign]:
    match eff:
        case ast.Enter(target) | ast.Add(target):
            owner, state = state_ref(ctx, target, model)
            kind = ctx.state_kind[state]
            n = eff.count if isinstance(eff, ast.Add) else 1
            if isinstance(eff, ast.Enter) and kind != "flag":
                raise ExprTypeError("RP206", f"{state!r} is a marker State; use 'add {state}'")
            if kind == "valued":
                if target.value is None:
                    raise ExprTypeError("RP206", f"say which value: 'add {state}:"
                                        f"{ctx.state_values[state][0]}'")
                name = ctx.q(owner, f"{state}:{target.value}")
                total = sum_of([V(x) for x in marker_vars(ctx, owner, state)])
            else:
                name = ctx.q(owner, state)
                total = V(name)
            var = ctx.vars[name]
            new = _clamp(Op("add", (V(name), Const(n))), var.lo, var.hi)
            blocked = _blocked(ctx, owner, state, total, Op("ne", (new, V(name))))
            return [Assign(name, Op("ite", (blocked, V(name), new)) if blocked != FALSE else new)]
        case ast.Leave(target):
            owner, state = state_ref(ctx, target, model)
            return [Assign(n, Const(0)) for n in marker_vars(ctx, owner, state)]
        case ast.Remove(target, amount, into):
            return _remove(ctx, target, amount, into, model)
        case ast.Assign(target, op, value):
            tv = type_ref(ctx, target, model)
            unknown_label(tv)
            if not isinstance(tv.expr, V) and tv.sort != "bool":
                raise ExprTypeError("RP206", f"{target} cannot be assigned")
            var_name = _assignable(ctx, target, model)
            var = ctx.vars[var_name]
            if var.kind == "input":
                raise ExprTypeError("RP206", f"{target} is an input (rolled each step); it cannot "
                                    "be assigned")
            val = type_expr(ctx, value, model)
            if var.labels and var.labels != ("false", "true"):
                if op != "=":
                    raise ExprTypeError("RP206", f"{target} takes one of {list(var.labels)}; "
                                        "use '='")
                if val.sort == "label":
                    if val.label not in var.labels:
                        raise ExprTypeError("RP206", f"{val.label!r} is not one of "
                                            f"{list(var.labels)}",
                                            did_you_mean(val.label, list(var.labels)))
                    return [Assign(var_name, Const(var.labels.index(val.label)))]
                if val.sort == "enum" and val.labels == var.labels:
                    return [Assign(var_name, val.expr)]
                raise ExprTypeError("RP206", f"{target} takes one of {list(var.labels)}")
            if var.labels == ("false", "true") or (tv.sort == "bool" and var.kind in ("state",)):
                b = as_bool(val, f"'{target} ='")
                return [Assign(var_name, Op("ite", (b, Const(1), Const(0))))]
            rhs = as_int(val, f"'{op}'")
            if op == "+=":
                rhs = Op("add", (V(var_name), rhs))
            elif op == "-=":
                rhs = Op("sub", (V(var_name), rhs))
            return [Assign(var_name, _clamp(rhs, var.lo, var.hi))]
        case ast.Emit(event):
            return _emit(ctx, event, model)
    raise AssertionError(eff)


def _assignable(ctx: Ctx, target: ast.Ref, model: str | None) -> str:
    owner, name = split_owner(ctx, target, model)
    if name in ctx.state_kind:
        owner, name = state_ref(ctx, target, model)
        if ctx.state_kind[name] == "valued":
            if target.value is None:
                raise ExprTypeError("RP206", f"say which value of {name!r}")
            return ctx.q(owner, f"{name}:{target.value}")
        return ctx.q(owner, name)
    if name in ctx.global_vars or name in ctx.inputs:
        return name
    if name not in ctx.model_vars:
        raise ExprTypeError("RP203", f"unknown variable {name!r}",
                            did_you_mean(name, [*ctx.model_vars, *ctx.global_vars]))
    if owner is None and ctx.models:
        raise ExprTypeError("RP203", f"{name!r} belongs to a model; say which one",
                            f"write '{ctx.models[0]}.{name}'")
    return ctx.q(owner, name)


def _remove(ctx: Ctx, target: ast.Ref, amount: int | str, into: ast.Ref | None,
            model: str | None) -> list[Assign]:
    owner, state = state_ref(ctx, target, model)
    kind = ctx.state_kind[state]
    if kind == "flag":
        raise ExprTypeError("RP206", f"{state!r} is a flag State; use 'leave {state}'")
    names = marker_vars(ctx, owner, state)
    out: list[Assign] = []
    if amount == "highest":
        if kind != "valued":
            raise ExprTypeError("RP206", f"'remove highest' needs valued markers; {state!r} "
                                "has none")
        values = ctx.state_values[state]
        if into is not None:
            dest = _assignable(ctx, into, model)
            dv = ctx.vars.get(dest)
            if dv is None or dv.labels:
                raise ExprTypeError("RP206", f"'-> {into}' needs a number variable")
            got = type_call(ctx, "highest", (target,), model).expr
            out.append(Assign(dest, _clamp(Op("add", (V(dest), got)), dv.lo, dv.hi)))
        # lowest value first: each test reads the higher values before they change
        for i, (val, name) in enumerate(zip(values, names, strict=True)):
            higher_empty = conj(*(Op("eq", (V(h), Const(0))) for h in names[i + 1:]))
            cond = conj(higher_empty, Op("gt", (V(name), Const(0))))
            out.append(Assign(name, Op("ite", (cond, Op("sub", (V(name), Const(1))), V(name)))))
            del val
        return out
    if into is not None:
        raise ExprTypeError("RP206", "'->' only follows 'remove highest'")
    if amount == "all":
        return [Assign(n, Const(0)) for n in names]
    if kind == "valued" and target.value is None:
        raise ExprTypeError("RP206", f"say which value of {state!r}, or 'remove all'/'highest'")
    name = ctx.q(owner, f"{state}:{target.value}") if kind == "valued" else names[0]
    assert isinstance(amount, int)
    return [Assign(name, Op("max", (Op("sub", (V(name), Const(amount))), Const(0))))]


def event_instance(ctx: Ctx, event: str, model: str | None) -> str:
    ev, _ = ctx.events[event]
    scope = ev.scope if ev is not None else "global"
    return ctx.instance(event, model if scope == "model" else None)


def _emit(ctx: Ctx, event: str, model: str | None) -> list[Assign]:
    if event not in ctx.events:
        raise ExprTypeError("RP203", f"unknown event {event!r}",
                            did_you_mean(event, list(ctx.events)))
    if event in ctx.emitting:
        chain = " → ".join([*ctx.emitting, event])
        raise ExprTypeError("RP210", f"events emit each other in a cycle: {chain}")
    ev, path = ctx.events[event]
    inst = event_instance(ctx, event, model)
    ctx.happened_needed.add(inst)
    out: list[Assign] = []
    if ev is not None:
        ctx.emitting.append(event)
        try:
            out = lower_effects(ctx, ev.do, model if ev.scope == "model" else None, (*path, "do"))
        finally:
            ctx.emitting.pop()
    else:
        out = phase_effects(ctx, event)
    return [*out, Assign(f"_happened:{inst}", Const(1))]


def phase_effects(ctx: Ctx, event: str) -> list[Assign]:
    phase = event.removesuffix("-phase")
    return [Assign("phase", Const(ctx.doc.phases.index(phase)))]
