"""Lowering declarations tied to events (`declares:`) and permissions (`may:`).

An event that declares options (`declares: {action: dodge}`) is enabled only where the
constraints in force permit every option it declares: lowering conjoins
`checker.ir.allowed_expr` of each into the event's guard, so no restriction is ever copied
into a guard by hand. The guard as written is kept (`Transition.unrestricted`) for the
decision-point engine (`checker.engines.declarations`).
"""

from __future__ import annotations

from typing import Any

from checker.ir import Constraint, Permission, Transition, allowed_expr, conj
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_expr import check_overrides, did_you_mean, lower_bool
from checker.spec.lower_rules import options_with


def lower_permissions(ctx: Ctx) -> list[Permission]:
    """Every `may:` entry, once per model."""
    out: list[Permission] = []
    ids = sorted({c.id for c in ctx.doc.constraints} | {
        p.id for p in ctx.doc.procedures} | {
        f"{p.id}.{s.id}" for p in ctx.doc.procedures for s in p.steps})
    for i, pd in enumerate(ctx.doc.may):
        check_overrides(ctx, "may", i, pd.overrides, ids, "constraint")
        for m in ctx.per_model():
            when = lower_bool(ctx, pd.when, m, ("may", i, "when"))
            for key, opts in (pd.grants or {}).items():   # given by a reading if not here
                items: list[str | dict[str, Any]] = [opts] if isinstance(opts, str) else [*opts]
                path = ("may", i, "grants", key)
                # a slotted decision's own name grants on each of its slots (the slots
                # share their options and attributes: resolved once, errors said once)
                dims = ctx.slots.get(key, [key])
                groups = _groups(ctx, dims[0], items, path)
                if groups is None:
                    continue
                for dim in dims:
                    options = tuple(dict.fromkeys(o for g in groups for o in g))
                    out.append(Permission(f"{ctx.instance(pd.id, m)}/{dim}", pd.id, dim,
                                          options, when, tuple(pd.overrides), m,
                                          groups if any(len(g) != 1 for g in groups) else ()))
    return out


def _groups(ctx: Ctx, dim: str, items: list[str | dict[str, Any]],
            path: tuple[str | int, ...]) -> tuple[tuple[str, ...], ...] | None:
    """The grants of one decision: a plain option is granted on its own, an attribute
    mapping (`{kind: crawl}`) grants the options whose attributes have every value given
    (a list of values matches any of them), as one grant. None after an error."""
    plain = tuple(o for o in items if isinstance(o, str))
    if not _known(ctx, dim, plain, path):
        return None
    groups: list[tuple[str, ...]] = []
    for item in items:
        if isinstance(item, str):
            groups.append((item,))
            continue
        chosen = options_with(ctx, dim, item, path)
        if chosen is None:
            return None
        if not chosen:
            ctx.err("RP215", f"no option of decision {dim!r} has {item!r}", path)
            return None
        groups.append(chosen)
    return tuple(groups)


def lower_declares(ctx: Ctx, events: list[Transition], constraints: list[Constraint],
                   permissions: list[Permission]) -> list[Transition]:
    """`events` with each declaring event's guard restricted to where the constraints in
    force (overrides and permissions' overrides respected) permit what it declares."""
    out: list[Transition] = []
    for ev in events:
        entry = ctx.events.get(ev.source, (None, None))
        decl, base = entry
        if decl is None or not decl.declares:
            out.append(ev)
            continue
        declared: list[tuple[str, str, str | None]] = []
        for key, option in decl.declares.items():
            path = (*base, "declares", key)
            dim, model = key, ev.model
            if "." in key and key not in ctx.options:
                owner, dim = key.split(".", 1)
                if ev.model is not None or owner not in ctx.models:
                    ctx.err("RP203", f"'declares' names {key!r}, but {owner!r} is not a model"
                            " of this global event", path,
                            did_you_mean(owner, list(ctx.models)) or
                            "name the decision alone in a model event")
                    continue
                model = owner
            elif model is None and ctx.models:
                ctx.err("RP203", f"this global event declares {key!r} but names no model",
                        path, f"write {ctx.models[0]}.{key}")
                continue
            if _known(ctx, dim, (option,), path):
                declared.append((dim, option, model))
        perms = tuple(permissions)
        guard = conj(ev.guard, *(allowed_expr(constraints, d, o, m, perms)
                                 for d, o, m in declared))
        out.append(Transition(ev.id, ev.source, ev.kind, guard, ev.effects, ev.model, ev.on,
                              tuple(declared), ev.guard))
    return out


def _known(ctx: Ctx, dim: str, options: tuple[str, ...], path: tuple[str | int, ...]) -> bool:
    """`dim` is a decision and every option is one of its options (else RP203 / RP215)."""
    if dim not in ctx.options:
        ctx.err("RP203", f"unknown decision {dim!r}", path, did_you_mean(dim, list(ctx.options)))
        return False
    ok = True
    for o in options:
        if o not in ctx.options[dim]:
            ctx.err("RP215", f"{o!r} is not an option of decision {dim!r} (its options: "
                    f"{', '.join(ctx.options[dim])})", path,
                    did_you_mean(o, ctx.options[dim]) or f"add {o!r} to decisions.{dim}")
            ok = False
    return ok
