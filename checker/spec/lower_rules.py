"""Lowering transitions (events, rules), constraints, facts and modifiers."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from checker.ir import (
    FALSE,
    TRUE,
    Assign,
    Const,
    Constraint,
    Fact,
    LExpr,
    Modifier,
    Op,
    PathKey,
    Stat,
    Transition,
    V,
    Var,
    conj,
    disj,
    neg,
)
from checker.spec import expr as ast
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_effects import event_instance, lower_effects, phase_effects
from checker.spec.lower_expr import (
    ExprTypeError,
    check_overrides,
    did_you_mean,
    lower_bool,
    marker_vars,
    split_owner,
    state_ref,
    sum_of,
)
from checker.spec.schema import StatDecl

# ============================================================================ transitions

def lower_events(ctx: Ctx) -> list[Transition]:
    out: list[Transition] = []
    phases = ctx.doc.phases
    for i, ph in enumerate(phases):
        ident = f"{ph}-phase"
        if ctx.events[ident][0] is not None:
            continue  # the user defined this event themselves
        prev = phases[i - 1]
        guard: LExpr = Op("eq", (V("phase"), Const(phases.index(prev))))
        out.append(Transition(ident, "phases", "event", guard,
                              tuple(phase_effects(ctx, ident))))
    for i, ev in enumerate(ctx.doc.events):
        models = ctx.per_model() if ev.scope == "model" else (None,)
        for m in models:
            guard = lower_bool(ctx, ev.when, m, ("events", i, "when"))
            blocked = ctx.event_blocks.get((ev.id, m), [])
            if blocked:                   # `prevents: blocks_events`
                guard = conj(guard, *(neg(b) for b in blocked))
            effects = lower_effects(ctx, ev.do, m, ("events", i, "do"))
            out.append(Transition(ctx.instance(ev.id, m), ev.id, "event", guard,
                                  tuple(effects), m))
    return out


def lower_rules(ctx: Ctx) -> list[Transition]:
    out: list[Transition] = []
    for i, rd in enumerate(ctx.doc.rules):
        ons = [rd.on] if isinstance(rd.on, str) else list(rd.on or [])
        if rd.model is not None and rd.model not in ctx.models:
            ctx.err("RP203", f"unknown model {rd.model!r} in rule {rd.id!r}",
                    ("rules", i, "model"), did_you_mean(rd.model, list(ctx.models)) or
                    ("a rule of one model needs 'models:'" if not ctx.models else None))
        for m in ctx.rule_owners(rd.id):
            ident = ctx.instance(rd.id, m)
            when = lower_bool(ctx, rd.when, m, ("rules", i, "when"))
            ctx.block_log = []
            try:
                effects = lower_effects(ctx, rd.do or [], m, ("rules", i, "do"))
                blocked_log = ctx.block_log
            finally:
                ctx.block_log = None
            on_inst: list[str] = []
            triggers: list[LExpr] = []
            edges: list[str] = []
            for ev in ons:
                edge = _edge_trigger(ctx, ev, m, ("rules", i, "on"))
                if edge is not None:
                    if edge[0]:
                        edges.append(edge[0])
                        triggers.append(edge[1])
                    continue
                if ev not in ctx.events:
                    ctx.err("RP203", f"unknown event {ev!r} in 'on'", ("rules", i, "on"),
                            did_you_mean(ev, list(ctx.events)) or
                            "or 'enters X' / 'leaves X' for a State X gained / lost, 'gains X' / "
                            "'loses X' for one of its markers")
                    continue
                inst = event_instance(ctx, ev, m)
                ctx.happened_needed.add(inst)
                on_inst.append(inst)
                triggers.append(Op("eq", (V(f"_happened:{inst}"), Const(1))))
            if ons:
                happened = disj(*triggers)
                fired = f"_fired:{ident}"
                first = conj(happened, Op("eq", (V(fired), Const(0))), when)
                guard = first
                if rd.repeat_while:
                    again = lower_bool(ctx, rd.repeat_while, m, ("rules", i, "repeat_while"))
                    guard = disj(first, conj(happened, Op("eq", (V(fired), Const(1))), again))
                effects = [*effects, Assign(fired, Const(1))]
            else:
                if rd.repeat_while:
                    ctx.err("RP209", "'repeat_while' needs 'on' (the event that starts the "
                            "loop)", ("rules", i, "repeat_while"))
                guard = when
            out.append(Transition(ident, rd.id, "rule", guard, tuple(effects), m,
                                  tuple(on_inst), edges=tuple(dict.fromkeys(edges))))
            for pid, _owner, state, cond in blocked_log:    # for `blocked-effect`
                ctx.blocked_effects.append((rd.id, ident, pid, state, conj(guard, cond)))
    return out


def _edge_trigger(ctx: Ctx, text: str, model: str | None,
                  path: PathKey) -> tuple[str, LExpr] | None:
    """`enters C` / `leaves C` in `on`: (the `_was` variable, the trigger: C did not hold at
    the start of this step and holds now / held and does not), ("", FALSE) when C is bad
    (reported), None when `text` is an event name. C is a State (`enters Crouched`: the
    model gains it) or any condition (`enters wounds == 0`, `leaves wound_state ==
    stunned`); two rules watching the same condition share its `_was` variable."""
    words = text.split(None, 1)
    if len(words) != 2 or words[0] not in ("enters", "leaves", "gains", "loses"):
        return None
    try:
        ref = ast.parse_expr(words[1])
    except ast.ExprSyntaxError as exc:
        ctx.err("RP205", f"cannot parse {text!r} in 'on': {exc}", path,
                "write 'enters X' or 'leaves X' with X a State or a condition")
        return "", FALSE
    try:
        # a bare name that is no variable is read as a State (so a misspelt State is
        # reported as one, with its did-you-mean)
        is_state = isinstance(ref, ast.Ref) and ref.value is None and (
            (name := split_owner(ctx, ref, model)[1]) in ctx.state_kind
            or name not in {*ctx.model_vars, *ctx.global_vars, *ctx.inputs})
        if is_state:
            assert isinstance(ref, ast.Ref)
            owner, state = state_ref(ctx, ref, model)
    except ExprTypeError as exc:
        ctx.err(exc.code, f"in 'on: {text}': {exc}", path, exc.fix)
        return "", FALSE
    if words[0] in ("gains", "loses"):
        return _count_trigger(ctx, words[0], owner, state, path) if is_state else \
            _not_a_state(ctx, text, path)
    if is_state:
        total = sum_of([V(n) for n in marker_vars(ctx, owner, state)])
        was = f"_was:{ctx.q(owner, state)}"
    else:
        cond = lower_bool(ctx, words[1], model, path)
        total = Op("ite", (cond, Const(1), Const(0)))
        was = next((n for n, t in ctx.was_needed.items() if t == total),
                   f"_was:{model}:({words[1]})" if model else f"_was:({words[1]})")
    ctx.was_needed[was] = total
    if words[0] == "enters":
        return was, conj(Op("eq", (V(was), Const(0))), Op("ge", (total, Const(1))))
    return was, conj(Op("eq", (V(was), Const(1))), Op("eq", (total, Const(0))))


def _count_trigger(ctx: Ctx, word: str, owner: str | None, state: str,
                   path: PathKey) -> tuple[str, LExpr]:
    """`gains X` / `loses X`: X's markers (all values) are more / fewer now than at the start
    of the step, counted in `_had:X` (its count then; one more than the most before the
    first step, when nothing has been gained or lost yet)."""
    names = marker_vars(ctx, owner, state)
    total = sum_of([V(n) for n in names])
    most = sum(ctx.vars[n].hi for n in names)
    had = f"_had:{ctx.q(owner, state)}"
    ctx.had_needed[had] = (total, most)
    if word == "gains":
        return had, Op("gt", (total, V(had)))
    return had, conj(Op("le", (V(had), Const(most))), Op("lt", (total, V(had))))


def _not_a_state(ctx: Ctx, text: str, path: PathKey) -> tuple[str, LExpr]:
    word, what = text.split(None, 1)
    ctx.err("RP206", f"'on: {text}': '{word}' counts a State's markers, and {what!r} is not a "
            "State", path, f"write '{'enters' if word == 'gains' else 'leaves'} {what}' for "
            "a condition")
    return "", FALSE


def add_bookkeeping(ctx: Ctx, rules: list[Transition],
                    monitors: list[tuple[str, LExpr]]) -> None:
    for inst in sorted(ctx.happened_needed):
        ctx.vars[f"_happened:{inst}"] = Var(f"_happened:{inst}", 0, 1, (0,), "happened")
    for r in rules:
        if r.on or r.edges:
            ctx.vars[f"_fired:{r.id}"] = Var(f"_fired:{r.id}", 0, 1, (0,), "fired")
    for name in sorted(ctx.was_needed):   # 0/1: X not held / held at the start of the step,
        ctx.vars[name] = Var(name, 0, 2, (2,), "was")   # 2: no step yet (the start)
    for name, (_, most) in sorted(ctx.had_needed.items()):   # X's count at the start of
        ctx.vars[name] = Var(name, 0, most + 1, (most + 1,), "was")  # the step (most + 1: none)
    for name, _ in monitors:
        ctx.vars[name] = Var(name, 0, 1, (0,), "seen")


def with_resets(ctx: Ctx, ev: Transition) -> Transition:
    resets = [Assign(v.name, Const(0)) for v in ctx.vars.values() if v.kind in ("happened",
                                                                                "fired")]
    resets.append(Assign("_res", Const(0)))
    for name, total in sorted(ctx.was_needed.items()):
        resets.append(Assign(name, Op("ite", (Op("ge", (total, Const(1))), Const(1), Const(0)))))
    for name, (total, _) in sorted(ctx.had_needed.items()):
        resets.append(Assign(name, total))
    inst = f"_happened:{ev.id}"
    if inst in ctx.vars:
        resets.append(Assign(inst, Const(1)))
    return replace(ev, effects=(*resets, *ev.effects))


# ============================================================================ constraints

def lower_constraints(ctx: Ctx) -> list[Constraint]:
    out: list[Constraint] = []
    ids = sorted({c.id for c in ctx.doc.constraints} | {p.id for p in ctx.doc.may} | {
        f"{p.id}.{s.id}" for p in ctx.doc.procedures for s in p.steps} | {
        p.id for p in ctx.doc.procedures})
    for i, cd in enumerate(ctx.doc.constraints):
        check_overrides(ctx, "constraints", i, cd.overrides, ids, "constraint")
        for m in ctx.per_model():
            when = lower_bool(ctx, cd.when, m, ("constraints", i, "when"))
            out.extend(_decision_constraints(ctx, cd.id, cd.id, cd, when, tuple(cd.overrides), m,
                                             ("constraints", i)))
    for i, pd in enumerate(ctx.doc.procedures):
        for m in ctx.per_model():
            when = lower_bool(ctx, pd.when, m, ("procedures", i, "when"))
            earlier: list[LExpr] = []
            for j, st in enumerate(pd.steps):
                cond = lower_bool(ctx, st.if_, m, ("procedures", i, "steps", j, "if"))
                active = conj(when, *(neg(e) for e in earlier), cond)
                earlier.append(cond)
                sid = f"{pd.id}.{st.id}"
                out.extend(_decision_constraints(ctx, sid, sid, st, active, (), m,
                                                 ("procedures", i, "steps", j)))
    return out


def _decision_constraints(ctx: Ctx, ident: str, source: str, decl: Any, when: LExpr,
                          overrides: tuple[str, ...], model: str | None,
                          path: PathKey) -> list[Constraint]:
    out: list[Constraint] = []
    given = False
    kinds: tuple[Literal["only", "forbid", "must"], ...] = ("only", "forbid", "must")
    for kind in kinds:
        spec = getattr(decl, kind)
        if spec is None:
            continue
        given = True
        for dim, opts in spec.items():
            for k, d, options, suffix, cond in _restricted(ctx, kind, dim, opts,
                                                           (*path, kind, dim)):
                out.append(Constraint(f"{ctx.instance(ident, model)}/{d}{suffix}", source,
                                      k, d, options, conj(when, cond), overrides, model))
    for dim, spec in (getattr(decl, "at_least_one", None) or {}).items():
        given = True
        got = _at_least_one(ctx, dim, spec, (*path, "at_least_one", dim))
        if got is not None:
            slots, options = got
            out.append(Constraint(f"{ctx.instance(ident, model)}/{dim}:at_least_one", source,
                                  "some", dim, options, when, overrides, model, slots))
    if not given and not hasattr(decl, "steps"):
        ctx.err("RP209", "a constraint needs one of 'only', 'forbid', 'must', 'at_least_one'",
                path)
    return out


def _at_least_one(ctx: Ctx, key: str, value: Any,
                  path: PathKey) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """`at_least_one: {action: [options]}` or `{action: {attribute: value(s)}}` over a
    slotted decision's name → (its slots, the options selected); the options a mapping
    selects are those whose attributes have all the values given. A decision without
    slots, or one slot, is RP221."""
    if key not in ctx.slots:
        if key in ctx.options:
            base = key.rsplit(".", 1)[0] if "." in key else None
            ctx.err("RP221", f"'at_least_one' names {key!r}, "
                    + (f"one slot of {base!r}: it is said of all the slots of a decision"
                       if base in ctx.slots else "a decision without slots"), path,
                    f"name the decision itself: at_least_one: {{{base}: ...}}"
                    if base in ctx.slots else
                    f"give {key!r} slots (decisions: {{{key}: {{slots: [first, second], "
                    "options: [...]}}), or write 'must' for a single decision")
        else:
            ctx.err("RP203", f"unknown decision {key!r}", path,
                    did_you_mean(key, [*ctx.slots, *ctx.options]))
        return None
    slots = tuple(ctx.slots[key])
    first = slots[0]
    options: tuple[str, ...]
    if isinstance(value, dict):
        got = options_with(ctx, first, value, path, key)
        return None if got is None else (slots, got)
    options = (value,) if isinstance(value, str) else tuple(value)
    for o in options:
        if o not in ctx.options[first]:
            ctx.err("RP203", f"{o!r} is not an option of decision {key!r}", path,
                    did_you_mean(o, ctx.options[first]))
    return slots, tuple(o for o in options if o in ctx.options[first])


# kind, decision, options, id suffix, the condition it adds
Restricted = tuple[Literal["only", "forbid", "must"], str, tuple[str, ...], str, LExpr]


def _restricted(ctx: Ctx, kind: Literal["only", "forbid", "must"], key: str, value: Any,
                path: PathKey) -> list[Restricted]:
    """`{decision: options}` → [(kind, decision, options, "", true)]; `{attribute:
    value(s)}` (only, forbid) → every decision with an option carrying the attribute, with
    the options whose attribute has that value: [(kind, decision, options, ":attribute",
    true)], and per option whose attribute the text leaves open (`_open_pieces`) the
    restriction under the values that make it one. A slotted decision's name (`action`)
    stands for each of its slots (`action.first`, `action.second`)."""
    if key in ctx.slots:
        return [r for slot in ctx.slots[key] for r in _restricted(ctx, kind, slot, value, path)]
    if key in ctx.options:
        if not isinstance(value, list | str):
            ctx.err("RP201", f"decision {key!r} takes a list of its options, got {value!r}",
                    path)
            return []
        options = (value,) if isinstance(value, str) else tuple(value)
        for o in options:
            if o not in ctx.options[key]:
                ctx.err("RP203", f"{o!r} is not an option of decision {key!r}", path,
                        did_you_mean(o, ctx.options[key]))
        return [(kind, key, options, "", TRUE)]
    attrs = sorted({a for dim in ctx.attrs.values() for at in dim.values() for a in at}
                   | {a for _, _, a in ctx.open_attrs})
    if kind != "must" and key not in attrs and not isinstance(value, list):
        ctx.err("RP216", f"no option of any decision declares the attribute {key!r}", path,
                did_you_mean(key, attrs) or "declare it on the options it describes, e.g. "
                "`decisions: {action: [dodge, {charge: {complex: true}}]}`")
        return []
    if kind == "must" or key not in attrs:
        ctx.err("RP203", f"unknown decision {key!r}", path,
                did_you_mean(key, list(ctx.options)))
        return []
    wanted = {scalar(v) for v in (value if isinstance(value, list) else [value])}
    out: list[Restricted] = []
    for dim, by_option in ctx.attrs.items():
        opened = [o for o in ctx.options[dim] if (dim, o, key) in ctx.open_attrs]
        if opened or any(key in at for at in by_option.values()):
            chosen = tuple(o for o in ctx.options[dim] if by_option[o].get(key) in wanted)
            out.append((kind, dim, (*chosen, *opened) if kind == "only" else chosen,
                        f":{key}", TRUE))
            out.extend(_open_pieces(ctx, kind, dim, opened, key, wanted))
    return out


def _open_pieces(ctx: Ctx, kind: Literal["only", "forbid", "must"], dim: str, opened: list[str],
                 key: str,
                 wanted: set[str]) -> list[Restricted]:
    """An option whose attribute `key` the text leaves open is restricted where the
    game's value of it does (`forbid`) or does not (`only`: the option is listed by the
    static part and forbidden here) match `wanted`."""
    out: list[Restricted] = []
    for o in opened:
        var, values, _ = ctx.open_attrs[(dim, o, key)]
        hits = [i for i, v in enumerate(values) if (v in wanted) == (kind == "forbid")]
        if hits:
            cond = disj(*(Op("eq", (V(var), Const(i))) for i in hits))
            out.append(("forbid", dim, (o,), f":{key}:{o}", cond))
    return out


def options_with(ctx: Ctx, dim: str, wanted: dict[str, Any], path: PathKey,
                 name: str | None = None) -> tuple[str, ...] | None:
    """The options of decision `dim` whose attributes have every value of `wanted` (a list
    of values matches any of them); RP216 (None) for an attribute no option declares."""
    attrs = ctx.attrs.get(dim, {})
    declared = sorted({a for at in attrs.values() for a in at})
    for attr in wanted:
        opened = [o for o in ctx.options[dim] if (dim, o, attr) in ctx.open_attrs]
        if opened:
            ctx.err("RP216", f"options are selected here by the attribute {attr!r}, which the "
                    f"text leaves open for {opened[0]!r}: only a constraint's 'only' or "
                    "'forbid' can restrict by it", path, "name the options instead")
            return None
        if attr not in declared:
            ctx.err("RP216", f"no option of decision {name or dim!r} declares the attribute "
                    f"{attr!r}", path, did_you_mean(attr, declared))
            return None
    values = {a: {scalar(v) for v in (vs if isinstance(vs, list) else [vs])}
              for a, vs in wanted.items()}
    return tuple(o for o in ctx.options[dim]
                 if all(attrs[o].get(a) in ws for a, ws in values.items()))


def scalar(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def lower_facts(ctx: Ctx) -> list[Fact]:
    out: list[Fact] = []
    ids = [f.id for f in ctx.doc.facts]
    for i, fd in enumerate(ctx.doc.facts):
        check_overrides(ctx, "facts", i, fd.overrides, ids, "fact")
        for m in ctx.per_model():
            when = lower_bool(ctx, fd.when, m, ("facts", i, "when"))
            for attr, value in (fd.set or {}).items():
                out.append(Fact(f"{ctx.instance(fd.id, m)}/{attr}", fd.id, attr, str(value), when,
                                tuple(fd.overrides), m))
    return out


def lower_modifiers(ctx: Ctx) -> tuple[list[Stat], list[Modifier]]:
    stats = [_stat(n, s) for n, s in ctx.doc.stats.items()]
    out: list[Modifier] = []
    for i, md in enumerate(ctx.doc.modifiers):
        if md.stat not in ctx.doc.stats:
            ctx.err("RP203", f"unknown stat {md.stat!r}", ("modifiers", i, "stat"),
                    did_you_mean(md.stat, list(ctx.doc.stats)))
        words = md.op.split()
        op = words[0] if words else ""
        arg = 0
        ok = op in ("halve", "double") and len(words) == 1
        if op in ("add", "set", "cap", "floor") and len(words) == 2:
            try:
                arg = int(words[1])
                ok = True
            except ValueError:
                ok = False
        if not ok:
            ctx.err("RP205", f"modifier op {md.op!r} is not one of: halve, double, add N, set N,"
                    " cap N, floor N", ("modifiers", i, "op"))
            continue
        for m in ctx.per_model():
            when = lower_bool(ctx, md.when, m, ("modifiers", i, "when"))
            out.append(Modifier(ctx.instance(md.id, m), md.id, md.stat, op, arg, when, m,
                                md.restates or ""))
    ctx.stats = {s.name: s for s in stats}
    ctx.modifiers = out
    return stats, out


def _stat(name: str, decl: StatDecl) -> Stat:
    """A stat's base (one, or every base of a range) and its rounding (one, or "either"
    when both are listed)."""
    lo, hi = (decl.base, None) if isinstance(decl.base, int) else decl.base.range
    rounds = [decl.round] if isinstance(decl.round, str) else sorted(set(decl.round))
    rounding = "either" if len(rounds) > 1 else rounds[0]
    return Stat(name, lo, rounding, hi)
