"""Stage `validate` + `lower`: a `SpecDoc` → `Ruleset` (the `System` IR plus citations).

Every name is resolved, every expression type-checked, every quote looked up in the source
text; all problems are collected and raised together as one `SpecError` (RP2xx). The
result carries the ids that connect IR objects back to spec elements (`elements`), whose
locations the source map knows.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from checker.errors import SpecError
from checker.ir import Decision, Element, LExpr, PathKey, Ruleset, System, Var, VarKind
from checker.spec.cite import cite_all
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_decisions import lower_declares, lower_permissions
from checker.spec.lower_expr import check_conditions, check_overrides, did_you_mean, lower_bool
from checker.spec.lower_order import lower_ordering
from checker.spec.lower_props import (
    lower_properties,
    lower_rulings,
    terminal_builtins,
    with_builtin_properties,
)
from checker.spec.lower_rules import (
    add_bookkeeping,
    lower_constraints,
    lower_events,
    lower_facts,
    lower_modifiers,
    lower_rules,
    with_resets,
)
from checker.spec.schema import PreventDecl, SpecDoc
from checker.spec.source import SpecTree, read_text_file
from checker.spec.terms import propose
from checker.text import SourceText

MAX_SOURCE_BYTES = 1024 * 1024
STATE_BOUND = 2  # a flag State is a count 0..2, so that stacking is observable


# ============================================================================ entry point

def lower(tree: SpecTree, doc: SpecDoc) -> Ruleset:
    """Validate `doc` (parsed from `tree`) and lower it to a `Ruleset`."""
    ctx = Ctx(doc, tree)
    source = _load_source(ctx)
    _check_unique_ids(ctx)
    _check_exact(ctx)
    _declare(ctx)
    elements: dict[str, Element] = {}
    citations = cite_all(ctx, source, elements) if source else []
    _restatements(ctx, elements)
    terms = propose(ctx, source, citations) if source else ()
    events = lower_events(ctx)
    rules = lower_rules(ctx)
    precedence, order_choices = lower_ordering(ctx)
    decisions = tuple(Decision(k, tuple(v), tuple(
        (o, tuple(sorted(ctx.attrs[k][o].items()))) for o in v if ctx.attrs[k][o]))
        for k, v in ctx.options.items())
    constraints = lower_constraints(ctx)
    permissions = lower_permissions(ctx)
    events = lower_declares(ctx, events, constraints, permissions)
    facts = lower_facts(ctx)
    stats, modifiers = lower_modifiers(ctx)
    monitors: list[tuple[str, LExpr]] = []
    properties = lower_properties(ctx, monitors)
    properties += terminal_builtins(ctx, properties, monitors)
    properties += lower_rulings(ctx, constraints)
    undefined = tuple((u.name, f"undefined:{u.name}") for u in doc.undefined)
    if ctx.diags or source is None:
        raise SpecError(ctx.diags)
    add_bookkeeping(ctx, rules, monitors)
    res_bound = doc.res_bound or max(8, 2 * len(rules) + 2)
    ctx.vars["_res"] = Var("_res", 0, res_bound, (0,), "res")
    events = [with_resets(ctx, e) for e in events]
    system = System(
        ruleset=doc.ruleset, vars=tuple(ctx.vars.values()), events=tuple(events),
        rules=tuple(rules), res_bound=res_bound, decisions=decisions,
        constraints=tuple(constraints), facts=tuple(facts), stats=tuple(stats),
        modifiers=tuple(modifiers), models=ctx.models, permissions=tuple(permissions),
        meta=frozenset(m.resolves for m in doc.meta if m.resolves), monitors=tuple(monitors),
        precedence=precedence, order_choices=order_choices)
    system = with_builtin_properties(ctx, system, properties)
    return Ruleset(doc.ruleset, doc.title, tree.display, _source_display(tree, doc), source,
                   system, elements, tuple(citations), undefined, tree.text, doc,
                   tree=tree, terms=terms, conditions_used=frozenset(ctx.used))


def _source_display(tree: SpecTree, doc: SpecDoc) -> str:
    base = Path(tree.display).parent
    return str(base / doc.source)


def _load_source(ctx: Ctx) -> SourceText | None:
    path = ctx.tree.path.parent / ctx.doc.source
    shown = _source_display(ctx.tree, ctx.doc)
    try:
        text = read_text_file(path, shown, code_missing="RP106", max_bytes=MAX_SOURCE_BYTES)
    except SpecError as exc:
        for d in exc.diagnostics:
            ctx.err(d.code, d.message + " (the ruleset's 'source')", ("source",))
        return None
    return SourceText(text, shown)


# ============================================================================ restatements

RESTATABLE = ("rules", "constraints", "facts", "modifiers")   # the kinds a check can compare


def _restatements(ctx: Ctx, elements: dict[str, Element]) -> None:
    """`restates: ID`: ID names another element of the same kind (rule ↔ rule, constraint ↔
    constraint, fact ↔ fact, modifier ↔ modifier), which the restate scan compares; the
    link is kept on the element (`Element.restates`)."""
    kinds = {item.id: section for section in RESTATABLE for item in getattr(ctx.doc, section)}
    for section in RESTATABLE:
        for i, item in enumerate(getattr(ctx.doc, section)):
            other = item.restates
            if other is None:
                continue
            path = (section, i, "restates")
            if other == item.id:
                ctx.err("RP218", f"{item.id!r} restates itself", path,
                        "name the other statement of the same rule (the table cell or the "
                        "detail sentence)")
            elif other not in kinds:
                ctx.err("RP203", f"'restates' names unknown element {other!r}", path,
                        did_you_mean(other, sorted(kinds)) or
                        f"restates links two {section} that state the same rule")
            elif kinds[other] != section:
                ctx.err("RP218", f"{item.id!r} (one of the {section}) cannot restate "
                        f"{other!r} (one of the {kinds[other]}): only statements of the same "
                        "kind can be compared", path,
                        f"formalize both statements as {section}, or drop 'restates'")
            elif section == "constraints" and any(
                    c.id in (item.id, other) and _has_at_least_one(c)
                    for c in ctx.doc.constraints):
                ctx.err("RP218", f"{item.id!r} restates {other!r}, but 'at_least_one' "
                        "statements cannot be compared yet (the restatement check compares "
                        "the options each statement allows, and 'at_least_one' allows them "
                        "all)", path, "drop 'restates' from this pair")
            elif item.id in elements:
                elements[item.id] = replace(elements[item.id], restates=other)


def _has_at_least_one(c: Any) -> bool:
    return bool(c.at_least_one) or any(r.at_least_one for r in c.readings)


# ============================================================================ declarations

def _check_unique_ids(ctx: Ctx) -> None:
    seen: dict[str, PathKey] = {}
    d = ctx.doc
    sections: list[tuple[str, list[Any]]] = [
        ("meta", d.meta), ("events", d.events), ("rules", d.rules), ("ordering", d.ordering),
        ("prevents", d.prevents), ("constraints", d.constraints), ("may", d.may),
        ("facts", d.facts), ("modifiers", d.modifiers), ("procedures", d.procedures),
        ("properties", d.properties), ("rulings", d.rulings)]
    for section, items in sections:
        for i, item in enumerate(items):
            path = (section, i, "id")
            if ":" in item.id:
                ctx.err("RP211", f"id {item.id!r} contains ':', which marks the built-in "
                        "checks (no-stacking:Prone)", path, "use letters, digits, '-' or '_'")
            if item.id in seen:
                first = ctx.tree.source_map.at(seen[item.id])
                ctx.err("RP204", f"id {item.id!r} is already used (first at line {first.line})",
                        path)
            else:
                seen[item.id] = path
    for i, proc in enumerate(d.procedures):
        steps: set[str] = set()
        for j, st in enumerate(proc.steps):
            if st.id in steps:
                ctx.err("RP204", f"step id {st.id!r} is used twice in procedure {proc.id!r}",
                        ("procedures", i, "steps", j, "id"))
            steps.add(st.id)
    undefined: set[str] = set()
    for i, u in enumerate(d.undefined):
        if u.name in undefined:
            ctx.err("RP204", f"{u.name!r} is listed twice under 'undefined'",
                    ("undefined", i, "name"))
        undefined.add(u.name)
    names: dict[str, str] = {}
    for section, keys in (("states", d.states), ("vars", d.vars), ("inputs", d.inputs),
                          ("stats", d.stats), ("decisions", d.decisions),
                          ("conditions", d.conditions)):
        for key in keys:
            if key in names:
                ctx.err("RP204", f"name {key!r} is declared in both {names[key]!r} and "
                        f"{section!r}", (section, key, "<key>"))
            names[key] = section
    _check_names_are_not_values(ctx, names)
    for m in ctx.models:
        if m in names or m in ("other", "any", "all"):
            ctx.err("RP204", f"model name {m!r} clashes with another name", ("models",))
    if len(set(ctx.models)) != len(ctx.models):
        ctx.err("RP204", "a model name is listed twice", ("models",))


_NOUN = {"states": "a State", "vars": "a variable", "inputs": "an input",
         "conditions": "a named condition"}


def _check_names_are_not_values(ctx: Ctx, names: dict[str, str]) -> None:
    """A declared name that is also a value of an enumeration (a phase, a `values:` label
    of a variable or an input) would make an expression mean one or the other silently:
    an error at both places."""
    d = ctx.doc
    values: dict[str, tuple[PathKey, str]] = {}
    for i, ph in enumerate(d.phases):
        values.setdefault(ph, (("phases", i), "a phase"))
    for name, vd in d.vars.items():
        for j, label in enumerate(vd.values or []):
            values.setdefault(label, (("vars", name, "values", j), f"a value of {name!r}"))
    for name, dom in d.inputs.items():
        if isinstance(dom, list):
            for j, label in enumerate(dom):
                values.setdefault(label, (("inputs", name, j), f"a value of input {name!r}"))
    for label, (path, what) in values.items():
        section = names.get(label)
        if section not in _NOUN:                           # the names expressions use
            continue
        noun = _NOUN[section]
        ctx.err("RP204", f"{label!r} is both {noun} ({section}: {label}) and {what}; in an "
                "expression the two cannot be told apart", (section, label, "<key>"),
                "rename one of them")
        ctx.err("RP204", f"{label!r} is both {what} and {noun} ({section}: {label}); in an "
                "expression the two cannot be told apart", path, "rename one of them")


def _declare(ctx: Ctx) -> None:
    d = ctx.doc
    if any(m.stacking == "none" for m in d.meta):  # markers are counted: they stack unless
        ctx.stacking_none |= {s for s, decl in d.states.items()  # the State itself says not
                              if decl.stacking != "stack" and decl.markers is None}
    ctx.stacking_none |= {s for s, decl in d.states.items() if decl.stacking == "none"}
    if d.phases:
        ctx.vars["phase"] = Var("phase", 0, len(d.phases) - 1, (0,), "enum", tuple(d.phases),
                                decl="phases")
        ctx.global_vars.add("phase")
        if len(set(d.phases)) != len(d.phases):
            ctx.err("RP204", "a phase is listed twice", ("phases",))
    for name, sd in d.states.items():
        owners = ctx.owners(sd.model)
        if sd.model and sd.model not in ctx.models:
            ctx.err("RP203", f"unknown model {sd.model!r}", ("states", name, "model"),
                    did_you_mean(sd.model, list(ctx.models)))
        init = _state_init(ctx, name, sd)
        if sd.markers and sd.markers.values:
            ctx.state_kind[name] = "valued"
            ctx.state_values[name] = tuple(sorted(set(sd.markers.values)))
            for m in owners:
                for val in ctx.state_values[name]:
                    n = ctx.q(m, f"{name}:{val}")
                    ctx.vars[n] = Var(n, 0, sd.markers.max, (0,), "marker", (), m, name, name)
        else:
            ctx.state_kind[name] = "marker" if sd.markers else "flag"
            hi = sd.markers.max if sd.markers else STATE_BOUND
            kind: VarKind = "marker" if sd.markers else "state"
            for m in owners:
                n = ctx.q(m, name)
                ctx.vars[n] = Var(n, 0, hi, init, kind, (), m, name, name)
    for name, vd in d.vars.items():
        scope = (None,) if vd.scope == "global" or not ctx.models else ctx.models
        (ctx.global_vars if vd.scope == "global" else ctx.model_vars).add(name)
        lo, hi, labels = _domain(ctx, vd, ("vars", name))
        init = _init_values(ctx, vd.init, lo, hi, labels, ("vars", name, "init"))
        for m in scope:
            n = ctx.q(m, name)
            ctx.vars[n] = Var(n, lo, hi, init, "enum" if labels else "int", labels, m,
                              decl=name)
    for name, values, base in dict.fromkeys(ctx.open_attrs.values()):   # fixed for the game
        ctx.vars[name] = Var(name, 0, len(values) - 1, tuple(range(len(values))), "enum",
                             values, decl=base)
    for name, dom in d.inputs.items():
        ctx.inputs.add(name)
        if dom == "bool":
            lo, hi, labels = 0, 1, ("false", "true")
        elif isinstance(dom, list):
            lo, hi, labels = 0, len(dom) - 1, tuple(dom)
            if not dom:
                ctx.err("RP211", f"input {name!r} has no values", ("inputs", name))
        else:
            lo, hi, labels = _domain(ctx, dom, ("inputs", name))
        ctx.vars[name] = Var(name, lo, hi, tuple(range(lo, hi + 1)), "input", labels,
                             decl=name)
    for i, ev in enumerate(d.events):
        ctx.events[ev.id] = (ev, ("events", i))
    for i, ph in enumerate(d.phases):
        ctx.events.setdefault(f"{ph}-phase", (None, ("phases",)))
        del i
    check_conditions(ctx)
    for i, pv in enumerate(d.prevents):
        models = (None,) if pv.scope == "global" else ctx.per_model()
        conds = {m: lower_bool(ctx, pv.when, m, ("prevents", i, "when")) for m in models}
        _event_blocks(ctx, i, pv, conds)
        check_overrides(ctx, "prevents", i, pv.overrides, [r.id for r in d.rules], "rule")
        for m in models if pv.blocks else ():
            cond = conds[m]
            for st in pv.blocks:
                if st not in ctx.state_kind:
                    ctx.err("RP203", f"unknown State {st!r} in 'blocks'",
                            ("prevents", i, "blocks"), did_you_mean(st, list(ctx.state_kind)))
                    continue
                ctx.prevents.setdefault((m, st), []).append((pv.id, cond))


def _event_blocks(ctx: Ctx, i: int, pv: PreventDecl, conds: dict[str | None, LExpr]) -> None:
    """`blocks_events`: while `when` (lowered per model: `conds`) holds the event cannot
    happen. A model prevent blocks that model's instance of a model event; a global event
    (which names its models: `a.`) is blocked by a global prevent whose `when` names them
    too."""
    declared = {ev.id: ev for ev in ctx.doc.events}
    for name in pv.blocks_events:
        path: PathKey = ("prevents", i, "blocks_events")
        ev = declared.get(name)
        if ev is None:
            ctx.err("RP203", f"unknown event {name!r} in 'blocks_events'", path,
                    did_you_mean(name, list(declared)) or "name an event of 'events:'")
            continue
        if ev.scope != pv.scope:
            ctx.err("RP203", f"event {name!r} is a {ev.scope} event but prevent {pv.id!r} is "
                    f"a {pv.scope} one", path,
                    "give the prevent 'scope: global' and name the model in 'when' (a.Held)"
                    if ev.scope == "global" else "block it from a model prevent (no 'scope')")
            continue
        for m, cond in conds.items():
            ctx.event_blocks.setdefault((name, m), []).append(cond)


def _check_exact(ctx: Ctx) -> None:
    """`exact: true` pins a range against the scope re-check (`checker.spec.widen`); only a
    sentence of the text can do that, so it needs a `cite` on the same declaration."""
    d = ctx.doc
    pinned: list[tuple[PathKey, str]] = [
        (("vars", n), f"variable {n!r} is") for n, v in d.vars.items()
        if v.exact and v.cite is None]
    pinned += [(("inputs", n), f"input {n!r} is") for n, v in d.inputs.items()
               if not isinstance(v, list | str) and v.exact and v.cite is None]
    pinned += [(("states", n, "markers"), f"the markers of {n!r} are")
               for n, sd in d.states.items()
               if sd.markers is not None and sd.markers.exact and sd.markers.cite is None]
    for path, what in pinned:
        ctx.err("RP217", f"{what} pinned 'exact: true' without a 'cite' of the sentence "
                "that fixes the range", (*path, "exact"),
                "add 'cite:' quoting the sentence that gives the number (e.g. \"a model "
                "has 3 Wounds\"), or drop 'exact' so the scope re-check widens it")


def _domain(ctx: Ctx, vd: Any, path: PathKey) -> tuple[int, int, tuple[str, ...]]:
    if vd.values is not None:
        if not vd.values:
            ctx.err("RP211", "'values' is empty", path)
            return 0, 0, ("?",)
        if len(set(vd.values)) != len(vd.values):
            ctx.err("RP204", "a value is listed twice in 'values'", path)
        return 0, len(vd.values) - 1, tuple(vd.values)
    lo, hi = vd.range
    if lo > hi or hi - lo > 64:
        ctx.err("RP211", f"range [{lo}, {hi}] must be increasing and span at most 64 values",
                (*path, "range"))
        return 0, 0, ()
    return lo, hi, ()


def _state_init(ctx: Ctx, name: str, sd: Any) -> tuple[int, ...]:
    """The initial count(s) of State `name`: `init: true` (has it), `false`, a number of
    markers, or a list of counts to choose from (every choice is checked)."""
    if sd.init is None:
        return (0,)
    path = ("states", name, "init")
    if sd.markers and sd.markers.values:
        ctx.err("RP211", f"valued markers {name!r} cannot have an initial value", path,
                "start with none and add them with an event")
        return (0,)
    if isinstance(sd.init, bool):
        return (int(sd.init),)
    hi = sd.markers.max if sd.markers else 1
    return _init_values(ctx, sd.init, 0, hi, (), path)


def _init_values(ctx: Ctx, init: Any, lo: int, hi: int, labels: tuple[str, ...],
                 path: PathKey) -> tuple[int, ...]:
    if init is None:
        return (lo,)
    items = init if isinstance(init, list) else [init]
    out: list[int] = []
    for it in items:
        if labels:
            if it not in labels:
                ctx.err("RP211", f"initial value {it!r} is not one of {list(labels)}", path,
                        did_you_mean(str(it), list(labels)))
                continue
            out.append(labels.index(it))
        elif isinstance(it, int) and not isinstance(it, bool) and lo <= it <= hi:
            out.append(it)
        else:
            ctx.err("RP211", f"initial value {it!r} is outside the range [{lo}, {hi}]", path)
    return tuple(sorted(set(out))) or (lo,)
