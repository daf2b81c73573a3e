"""Stage `validate` + `lower`: a `SpecDoc` → `Ruleset` (the `System` IR plus citations).

Every name is resolved, every expression type-checked, every quote looked up in the source
text; all problems are collected and raised together as one `SpecError` (RP2xx). The
result carries the ids that connect IR objects back to spec elements (`elements`), whose
locations the source map knows.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker.diagnostics import Diagnostic
from checker.errors import SpecError
from checker.ir import (
    FALSE,
    Assign,
    Citation,
    Const,
    Constraint,
    Decision,
    Element,
    Fact,
    LExpr,
    Modifier,
    Op,
    PathKey,
    Property,
    Ruleset,
    Stat,
    System,
    Transition,
    V,
    Var,
    VarKind,
    allowed_expr,
    conj,
    disj,
    enabled,
    neg,
    stable,
)
from checker.spec import expr as ast
from checker.spec.schema import Cite, CiteRef, SpecDoc
from checker.spec.source import SpecTree, read_text_file
from checker.text import Match, SourceText

MAX_SOURCE_BYTES = 1024 * 1024
STATE_BOUND = 2  # a flag State is a count 0..2, so that stacking is observable


class _Ctx:
    """Name tables and the diagnostics collected while lowering one spec."""

    def __init__(self, doc: SpecDoc, tree: SpecTree) -> None:
        self.doc = doc
        self.tree = tree
        self.diags: list[Diagnostic] = []
        self.models: tuple[str, ...] = tuple(doc.models)
        self.vars: dict[str, Var] = {}
        self.state_kind: dict[str, str] = {}        # State → flag | marker | valued
        self.state_values: dict[str, tuple[int, ...]] = {}
        self.global_vars: set[str] = set()
        self.model_vars: set[str] = set()
        self.inputs: set[str] = set()
        self.events: dict[str, Any] = {}
        self.prevents: dict[tuple[str | None, str], list[LExpr]] = {}
        self.stacking_none: set[str] = set()
        self.happened_needed: set[str] = set()
        self.emitting: list[str] = []

    def err(self, code: str, message: str, path: PathKey, fix: str | None = None) -> None:
        d = Diagnostic(code, message, self.tree.source_map.at(path), fix)
        if d not in self.diags:  # with several models, one problem is found once per model
            self.diags.append(d)

    def q(self, model: str | None, name: str) -> str:
        return f"{model}.{name}" if model else name

    def instance(self, ident: str, model: str | None) -> str:
        return f"{ident}@{model}" if model else ident

    def per_model(self) -> tuple[str | None, ...]:
        return self.models if self.models else (None,)

    def known_names(self) -> list[str]:
        return [*self.state_kind, *self.model_vars, *self.global_vars, *self.inputs,
                *(lab for v in self.vars.values() for lab in v.labels)]


# ============================================================================ entry point

def lower(tree: SpecTree, doc: SpecDoc) -> Ruleset:
    """Validate `doc` (parsed from `tree`) and lower it to a `Ruleset`."""
    ctx = _Ctx(doc, tree)
    source = _load_source(ctx)
    _check_unique_ids(ctx)
    _declare(ctx)
    elements: dict[str, Element] = {}
    citations = _cite_all(ctx, source, elements) if source else []
    events = _lower_events(ctx)
    rules = _lower_rules(ctx)
    decisions = tuple(Decision(k, tuple(v)) for k, v in doc.decisions.items())
    constraints = _lower_constraints(ctx)
    facts = _lower_facts(ctx)
    stats, modifiers = _lower_modifiers(ctx)
    monitors: list[tuple[str, LExpr]] = []
    properties = _lower_properties(ctx, monitors)
    properties += _terminal_builtins(ctx, properties, monitors)
    properties += _lower_rulings(ctx, constraints)
    undefined = tuple((u.name, f"undefined:{u.name}") for u in doc.undefined)
    if ctx.diags or source is None:
        raise SpecError(ctx.diags)
    _add_bookkeeping(ctx, rules, monitors)
    res_bound = doc.res_bound or max(8, 2 * len(rules) + 2)
    ctx.vars["_res"] = Var("_res", 0, res_bound, (0,), "res")
    events = [_with_resets(ctx, e) for e in events]
    system = System(
        ruleset=doc.ruleset, vars=tuple(ctx.vars.values()), events=tuple(events),
        rules=tuple(rules), res_bound=res_bound, decisions=decisions,
        constraints=tuple(constraints), facts=tuple(facts), stats=tuple(stats),
        modifiers=tuple(modifiers), models=ctx.models,
        meta=frozenset(m.resolves for m in doc.meta if m.resolves), monitors=tuple(monitors))
    system = _with_builtin_properties(ctx, system, properties)
    return Ruleset(doc.ruleset, doc.title, tree.display, _source_display(tree, doc), source,
                   system, elements, tuple(citations), undefined, tree.text, doc)


def _source_display(tree: SpecTree, doc: SpecDoc) -> str:
    base = Path(tree.display).parent
    return str(base / doc.source)


def _load_source(ctx: _Ctx) -> SourceText | None:
    path = ctx.tree.path.parent / ctx.doc.source
    shown = _source_display(ctx.tree, ctx.doc)
    try:
        text = read_text_file(path, shown, code_missing="RP106", max_bytes=MAX_SOURCE_BYTES)
    except SpecError as exc:
        for d in exc.diagnostics:
            ctx.err(d.code, d.message + " (the ruleset's 'source')", ("source",))
        return None
    return SourceText(text, shown)


# ============================================================================ declarations

def _check_unique_ids(ctx: _Ctx) -> None:
    seen: dict[str, PathKey] = {}
    d = ctx.doc
    sections: list[tuple[str, list[Any]]] = [
        ("meta", d.meta), ("events", d.events), ("rules", d.rules), ("prevents", d.prevents),
        ("constraints", d.constraints), ("facts", d.facts), ("modifiers", d.modifiers),
        ("procedures", d.procedures), ("properties", d.properties), ("rulings", d.rulings)]
    for section, items in sections:
        for i, item in enumerate(items):
            path = (section, i, "id")
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
                          ("stats", d.stats), ("decisions", d.decisions)):
        for key in keys:
            if key in names:
                ctx.err("RP204", f"name {key!r} is declared in both {names[key]!r} and "
                        f"{section!r}", (section, key, "<key>"))
            names[key] = section
    for m in ctx.models:
        if m in names or m in ("other", "any", "all"):
            ctx.err("RP204", f"model name {m!r} clashes with another name", ("models",))
    if len(set(ctx.models)) != len(ctx.models):
        ctx.err("RP204", "a model name is listed twice", ("models",))


def _declare(ctx: _Ctx) -> None:
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
        owners = (sd.model,) if sd.model else ctx.per_model()
        if sd.model and sd.model not in ctx.models:
            ctx.err("RP203", f"unknown model {sd.model!r}", ("states", name, "model"),
                    _did_you_mean(sd.model, list(ctx.models)))
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
                ctx.vars[n] = Var(n, 0, hi, (0,), kind, (), m, name, name)
    for name, vd in d.vars.items():
        scope = (None,) if vd.scope == "global" or not ctx.models else ctx.models
        (ctx.global_vars if vd.scope == "global" else ctx.model_vars).add(name)
        lo, hi, labels = _domain(ctx, vd, ("vars", name))
        init = _init_values(ctx, vd.init, lo, hi, labels, ("vars", name, "init"))
        for m in scope:
            n = ctx.q(m, name)
            ctx.vars[n] = Var(n, lo, hi, init, "enum" if labels else "int", labels, m,
                              decl=name)
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
    for i, pv in enumerate(d.prevents):
        for m in ctx.per_model():
            cond = _bool(ctx, pv.when, m, ("prevents", i, "when"))
            for st in pv.blocks:
                if st not in ctx.state_kind:
                    ctx.err("RP203", f"unknown State {st!r} in 'blocks'",
                            ("prevents", i, "blocks"), _did_you_mean(st, list(ctx.state_kind)))
                    continue
                ctx.prevents.setdefault((m, st), []).append(cond)


def _domain(ctx: _Ctx, vd: Any, path: PathKey) -> tuple[int, int, tuple[str, ...]]:
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


def _init_values(ctx: _Ctx, init: Any, lo: int, hi: int, labels: tuple[str, ...],
                 path: PathKey) -> tuple[int, ...]:
    if init is None:
        return (lo,)
    items = init if isinstance(init, list) else [init]
    out: list[int] = []
    for it in items:
        if labels:
            if it not in labels:
                ctx.err("RP211", f"initial value {it!r} is not one of {list(labels)}", path,
                        _did_you_mean(str(it), list(labels)))
                continue
            out.append(labels.index(it))
        elif isinstance(it, int) and not isinstance(it, bool) and lo <= it <= hi:
            out.append(it)
        else:
            ctx.err("RP211", f"initial value {it!r} is outside the range [{lo}, {hi}]", path)
    return tuple(sorted(set(out))) or (lo,)


# ============================================================================ citations

def _cites(cite: Cite | None) -> list[CiteRef]:
    if cite is None:
        return []
    items = cite if isinstance(cite, list) else [cite]
    return [CiteRef(quote=c) if isinstance(c, str) else c for c in items]


CitedItem = tuple[str, str, PathKey, Cite | None, str]   # id, section, path, cite, reason


def cited_items(d: SpecDoc) -> list[CitedItem]:
    """Every spec element that can carry a `cite`, with its id and path in the spec."""
    cited: list[CitedItem] = []
    for section in ("meta", "events", "rules", "prevents", "constraints", "facts",
                    "modifiers", "procedures", "properties", "rulings"):
        for i, item in enumerate(getattr(d, section)):
            cited.append((item.id, section, (section, i), item.cite, ""))
            if section == "procedures":
                for j, st in enumerate(item.steps):
                    cited.append((f"{item.id}.{st.id}", section, (section, i, "steps", j),
                                  st.cite, ""))
    for section in ("states", "vars", "stats"):
        for key, item in getattr(d, section).items():
            cited.append((f"{section}:{key}", section, (section, key), item.cite, ""))
    for key, dom in d.inputs.items():
        if not isinstance(dom, list | str):
            cited.append((f"inputs:{key}", "inputs", ("inputs", key), dom.cite, ""))
    for i, inf in enumerate(d.informal):
        cited.append((f"informal:{i}", "informal", ("informal", i), inf.cite, inf.reason))
    for idx, u in enumerate(d.undefined):
        cited.append((f"undefined:{u.name}", "undefined", ("undefined", idx), u.cite, ""))
    return cited


def cite_refs(cite: Cite | None, path: PathKey) -> list[tuple[CiteRef, PathKey]]:
    """The quotes of one `cite` field, each with its own path (for locations)."""
    return [(ref, (*path, "cite") if not isinstance(cite, list) else (*path, "cite", k))
            for k, ref in enumerate(_cites(cite))]


def _cite_all(ctx: _Ctx, source: SourceText, elements: dict[str, Element]) -> list[Citation]:
    cited = cited_items(ctx.doc)
    out: list[Citation] = []
    for ident, section, path, cite, reason in cited:
        quotes = []
        for ref, cpath in cite_refs(cite, path):
            match = _find_quote(ctx, source, ref, cpath)
            if match is not None:
                out.append(Citation(ident, ref.quote, match.start, match.end, match.line))
                quotes.append(ref.quote)
        elements[ident] = Element(ident, section, path, ctx.tree.source_map.at(path),
                                  tuple(quotes), reason)
    return out


def _find_quote(ctx: _Ctx, source: SourceText, ref: CiteRef, path: PathKey) -> Match | None:
    matches = source.find(ref.quote)
    shown = ref.quote if len(ref.quote) <= 70 else ref.quote[:67] + "..."
    if not matches:
        closest = source.closest(ref.quote)
        ctx.err("RP207", f"quote {shown!r} is not in {source.display}", path,
                f"closest passage: {closest!r}" if closest else None)
        return None
    if ref.occurrence is not None:
        if ref.occurrence > len(matches):
            ctx.err("RP211", f"occurrence {ref.occurrence} asked for, but the quote occurs "
                    f"{len(matches)} time(s)", path)
            return None
        return matches[ref.occurrence - 1]
    if len(matches) > 1:
        lines = ", ".join(str(m.line) for m in matches)
        ctx.err("RP208", f"quote {shown!r} occurs {len(matches)} times in {source.display} "
                f"(lines {lines})", path, "write it as {quote: ..., occurrence: N}")
        return None
    return matches[0]


# ============================================================================ expressions

@dataclass(frozen=True)
class _Typed:
    expr: LExpr
    sort: str                       # "bool" | "int" | "enum" | "label"
    labels: tuple[str, ...] = ()
    label: str = ""
    known: tuple[str, ...] = ()     # for a label: the names a did-you-mean picks from

    @property
    def fix(self) -> str | None:
        """Did-you-mean for a label that turns out to be an unknown name (computed only
        then: most labels are fine, and difflib over every name is not cheap)."""
        return _did_you_mean(self.label, list(self.known)) if self.known else None


def _did_you_mean(name: str, options: list[str]) -> str | None:
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    if not close:
        low = {o.lower(): o for o in options}
        if name.lower() in low:
            close = [low[name.lower()]]
    return f"did you mean {close[0]!r}?" if close else None


class _TypeError(Exception):
    def __init__(self, code: str, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.fix = fix


def _bool(ctx: _Ctx, text: str, model: str | None, path: PathKey) -> LExpr:
    t = _expr(ctx, text, model, path)
    if t is None:
        return FALSE
    if t.sort == "label":
        ctx.err("RP203", f"in {text!r}: unknown name {t.label!r}", path, t.fix)
        return FALSE
    if t.sort != "bool":
        ctx.err("RP206", f"{text!r} is a{'n' if t.sort in ('int', 'enum') else ''} {t.sort} "
                "expression; a condition must be true or false", path,
                "compare it, e.g. 'x > 0'" if t.sort == "int" else None)
        return FALSE
    return t.expr


def _expr(ctx: _Ctx, text: str, model: str | None, path: PathKey) -> _Typed | None:
    try:
        tree = ast.parse_expr(text)
    except ast.ExprSyntaxError as exc:
        ctx.err("RP205", f"cannot parse {text!r}: {exc}", path)
        return None
    try:
        return _type(ctx, tree, model)
    except _TypeError as exc:
        ctx.err(exc.code, f"in {text!r}: {exc}", path, exc.fix)
        return None


def _unknown_label(t: _Typed) -> None:
    if t.sort == "label":
        raise _TypeError("RP203", f"unknown name {t.label!r}", t.fix)


def _as_bool(t: _Typed, what: str) -> LExpr:
    _unknown_label(t)
    if t.sort == "bool":
        return t.expr
    article = "an" if t.sort in ("int", "enum") else "a"
    raise _TypeError("RP206", f"{what} needs a condition, got {article} {t.sort}")


def _as_int(t: _Typed, what: str) -> LExpr:
    _unknown_label(t)
    if t.sort == "int":
        return t.expr
    raise _TypeError("RP206", f"{what} needs a number, got a{'n' if t.sort == 'enum' else ''} "
                     f"{t.sort}")


def _type(ctx: _Ctx, e: ast.Expr, model: str | None) -> _Typed:
    match e:
        case ast.Num(v):
            return _Typed(Const(v), "int")
        case ast.BoolLit(v):
            return _Typed(Const(v), "bool")
        case ast.Ref():
            return _ref(ctx, e, model)
        case ast.Not(a):
            return _Typed(neg(_as_bool(_type(ctx, a, model), "'not'")), "bool")
        case ast.Neg(a):
            return _Typed(Op("neg", (_as_int(_type(ctx, a, model), "'-'"),)), "int")
        case ast.BinOp(op, left, right):
            return _binop(ctx, op, left, right, model)
        case ast.Call(fn, args):
            return _call(ctx, fn, args, model)
    raise AssertionError(e)


_CMP = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_ARITH = {"+": "add", "-": "sub", "*": "mul"}


def _binop(ctx: _Ctx, op: str, left: ast.Expr, right: ast.Expr, model: str | None) -> _Typed:
    lt, rt = _type(ctx, left, model), _type(ctx, right, model)
    if op in ("and", "or", "implies"):
        lb, rb = _as_bool(lt, f"'{op}'"), _as_bool(rt, f"'{op}'")
        if op == "and":
            return _Typed(conj(lb, rb), "bool")
        if op == "or":
            return _Typed(disj(lb, rb), "bool")
        return _Typed(Op("implies", (lb, rb)), "bool")
    if op in _CMP:
        if lt.sort == "label" and rt.sort == "enum":
            lt, rt = rt, lt
            op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
        if lt.sort == "enum" and rt.sort == "label":
            if rt.label not in lt.labels:
                raise _TypeError("RP206", f"{rt.label!r} is not one of {list(lt.labels)}",
                                 _did_you_mean(rt.label, list(lt.labels)))
            if op not in ("==", "!="):
                raise _TypeError("RP206", f"values of {list(lt.labels)} can only be compared "
                                 "with == or !=")
            return _Typed(Op(_CMP[op], (lt.expr, Const(lt.labels.index(rt.label)))), "bool")
        if lt.sort == "enum" and rt.sort == "enum":
            if lt.labels != rt.labels:
                raise _TypeError("RP206", "compares values of different kinds")
            return _Typed(Op(_CMP[op], (lt.expr, rt.expr)), "bool")
        if lt.sort == "bool" and rt.sort == "bool" and op in ("==", "!="):
            return _Typed(Op(_CMP[op], (lt.expr, rt.expr)), "bool")
        return _Typed(Op(_CMP[op], (_as_int(lt, f"'{op}'"), _as_int(rt, f"'{op}'"))), "bool")
    return _Typed(Op(_ARITH[op], (_as_int(lt, f"'{op}'"), _as_int(rt, f"'{op}'"))), "int")


def _call(ctx: _Ctx, fn: str, args: tuple[ast.Expr, ...], model: str | None) -> _Typed:
    if fn in ("any", "all"):
        if len(args) != 1:
            raise _TypeError("RP206", f"{fn}() takes one condition")
        parts = [_as_bool(_type(ctx, args[0], m), f"{fn}()") for m in ctx.per_model()]
        return _Typed(disj(*parts) if fn == "any" else conj(*parts), "bool")
    if fn in ("count", "highest"):
        if len(args) != 1 or not isinstance(args[0], ast.Ref):
            raise _TypeError("RP206", f"{fn}() takes one marker State, e.g. {fn}(Bleed)")
        owner, state = _state_ref(ctx, args[0], model)
        names = _marker_vars(ctx, owner, state)
        if fn == "count":
            return _Typed(_sum([V(n) for n in names]), "int")
        values = ctx.state_values.get(state)
        if not values:
            raise _TypeError("RP206", f"highest() needs valued markers; {state!r} has none")
        out: LExpr = Const(0)
        for val, n in zip(values, names, strict=True):
            out = Op("ite", (Op("gt", (V(n), Const(0))), Const(val), out))
        return _Typed(out, "int")
    ints = [_as_int(_type(ctx, a, model), f"{fn}()") for a in args]
    if fn == "abs":
        if len(ints) != 1:
            raise _TypeError("RP206", "abs() takes one number")
        return _Typed(Op("ite", (Op("ge", (ints[0], Const(0))), ints[0],
                                 Op("neg", (ints[0],)))), "int")
    if len(ints) < 2:
        raise _TypeError("RP206", f"{fn}() takes two or more numbers")
    return _Typed(Op(fn, tuple(ints)), "int")


def _sum(parts: list[LExpr]) -> LExpr:
    if not parts:
        return Const(0)
    out = parts[0]
    for p in parts[1:]:
        out = Op("add", (out, p))
    return out


def _split_owner(ctx: _Ctx, ref: ast.Ref, model: str | None) -> tuple[str | None, str]:
    parts = ref.parts
    if len(parts) == 1:
        return model, parts[0]
    if len(parts) == 2:
        head, name = parts
        if head == "other":
            if len(ctx.models) != 2 or model is None:
                raise _TypeError("RP203", "'other.' needs exactly two models in 'models'")
            return next(m for m in ctx.models if m != model), name
        if head in ctx.models:
            return head, name
        raise _TypeError("RP203", f"unknown model {head!r}",
                         _did_you_mean(head, [*ctx.models, "other"]))
    raise _TypeError("RP203", f"{ref} has too many parts")


def _state_ref(ctx: _Ctx, ref: ast.Ref, model: str | None) -> tuple[str | None, str]:
    owner, name = _split_owner(ctx, ref, model)
    if name not in ctx.state_kind:
        raise _TypeError("RP203", f"unknown State {name!r}",
                         _did_you_mean(name, list(ctx.state_kind)))
    decl = ctx.doc.states[name]
    if decl.model:
        owner = decl.model
    if owner is None and ctx.models:
        raise _TypeError("RP203", f"{name!r} belongs to a model; here (a global event or "
                         "rule) say which one", f"write '{ctx.models[0]}.{name}', or use "
                         f"any({name}) / all({name})")
    if ref.value is not None and ref.value not in ctx.state_values.get(name, ()):
        values = ctx.state_values.get(name)
        raise _TypeError("RP203", f"{name!r} has no marker value {ref.value}" +
                         (f"; its values are {list(values)}" if values else
                          " (it has no valued markers)"))
    return owner, name


def _marker_vars(ctx: _Ctx, owner: str | None, state: str) -> list[str]:
    if ctx.state_kind[state] == "valued":
        return [ctx.q(owner, f"{state}:{v}") for v in ctx.state_values[state]]
    return [ctx.q(owner, state)]


def _ref(ctx: _Ctx, ref: ast.Ref, model: str | None) -> _Typed:
    owner, name = _split_owner(ctx, ref, model)
    if name in ctx.state_kind:
        owner, name = _state_ref(ctx, ref, model)
        if ref.value is not None:
            if ref.value not in ctx.state_values.get(name, ()):
                raise _TypeError("RP203", f"{name!r} has no marker value {ref.value}")
            return _Typed(V(ctx.q(owner, f"{name}:{ref.value}")), "int")
        names = _marker_vars(ctx, owner, name)
        return _Typed(Op("ge", (_sum([V(n) for n in names]), Const(1))), "bool")
    if ref.value is not None:
        raise _TypeError("RP206", f"':{ref.value}' only follows a valued marker State")
    if name in ctx.global_vars or name in ctx.inputs:
        v = ctx.vars[name]
        if len(ref.parts) > 1:
            raise _TypeError("RP203", f"{name!r} is global; write it without a model")
        return _var_typed(v)
    if name in ctx.model_vars:
        if owner is None and ctx.models:
            raise _TypeError("RP203", f"{name!r} belongs to a model; here (a global event or "
                             "rule) say which one", f"write '{ctx.models[0]}.{name}'")
        return _var_typed(ctx.vars[ctx.q(owner, name)])
    if len(ref.parts) == 1:
        return _Typed(Const(0), "label", label=name, known=tuple(ctx.known_names()))
    raise _TypeError("RP203", f"unknown name {str(ref)!r}",
                     _did_you_mean(name, ctx.known_names()))


def _var_typed(v: Var) -> _Typed:
    if v.labels:
        if v.labels == ("false", "true"):
            return _Typed(Op("eq", (V(v.name), Const(1))), "bool")
        return _Typed(V(v.name), "enum", v.labels)
    return _Typed(V(v.name), "int")


# ============================================================================ effects

def _effects(ctx: _Ctx, texts: list[str], model: str | None, path: PathKey) -> list[Assign]:
    out: list[Assign] = []
    for i, text in enumerate(texts):
        p = (*path, i)
        try:
            eff = ast.parse_effect(text)
        except ast.ExprSyntaxError as exc:
            ctx.err("RP205", f"cannot parse effect {text!r}: {exc}", p,
                    "effects: enter X, leave X, add [N] X, remove [N|all|highest] X [-> var], "
                    "var = expr, var += expr, var -= expr, emit event")
            continue
        try:
            out.extend(_effect(ctx, eff, model, p))
        except _TypeError as exc:
            ctx.err(exc.code, f"in effect {text!r}: {exc}", p, exc.fix)
    return out


def _clamp(e: LExpr, lo: int, hi: int) -> LExpr:
    return Op("min", (Op("max", (e, Const(lo))), Const(hi)))


def _blocked(ctx: _Ctx, owner: str | None, state: str, current: LExpr) -> LExpr:
    conds = list(ctx.prevents.get((owner, state), []))
    if state in ctx.stacking_none:
        conds.append(Op("ge", (current, Const(1))))
    return disj(*conds)


def _effect(ctx: _Ctx, eff: ast.Effect, model: str | None, path: PathKey) -> list[Assign]:
    match eff:
        case ast.Enter(target) | ast.Add(target):
            owner, state = _state_ref(ctx, target, model)
            kind = ctx.state_kind[state]
            n = eff.count if isinstance(eff, ast.Add) else 1
            if isinstance(eff, ast.Enter) and kind != "flag":
                raise _TypeError("RP206", f"{state!r} is a marker State; use 'add {state}'")
            if kind == "valued":
                if target.value is None:
                    raise _TypeError("RP206", f"say which value: 'add {state}:"
                                     f"{ctx.state_values[state][0]}'")
                name = ctx.q(owner, f"{state}:{target.value}")
                total = _sum([V(x) for x in _marker_vars(ctx, owner, state)])
            else:
                name = ctx.q(owner, state)
                total = V(name)
            var = ctx.vars[name]
            blocked = _blocked(ctx, owner, state, total)
            new = _clamp(Op("add", (V(name), Const(n))), var.lo, var.hi)
            return [Assign(name, Op("ite", (blocked, V(name), new)) if blocked != FALSE else new)]
        case ast.Leave(target):
            owner, state = _state_ref(ctx, target, model)
            return [Assign(n, Const(0)) for n in _marker_vars(ctx, owner, state)]
        case ast.Remove(target, amount, into):
            return _remove(ctx, target, amount, into, model)
        case ast.Assign(target, op, value):
            tv = _ref(ctx, target, model)
            _unknown_label(tv)
            if not isinstance(tv.expr, V) and tv.sort != "bool":
                raise _TypeError("RP206", f"{target} cannot be assigned")
            var_name = _assignable(ctx, target, model)
            var = ctx.vars[var_name]
            if var.kind == "input":
                raise _TypeError("RP206", f"{target} is an input (rolled each step); it cannot "
                                 "be assigned")
            val = _type(ctx, value, model)
            if var.labels and var.labels != ("false", "true"):
                if op != "=":
                    raise _TypeError("RP206", f"{target} takes one of {list(var.labels)}; use '='")
                if val.sort == "label":
                    if val.label not in var.labels:
                        raise _TypeError("RP206", f"{val.label!r} is not one of "
                                         f"{list(var.labels)}",
                                         _did_you_mean(val.label, list(var.labels)))
                    return [Assign(var_name, Const(var.labels.index(val.label)))]
                if val.sort == "enum" and val.labels == var.labels:
                    return [Assign(var_name, val.expr)]
                raise _TypeError("RP206", f"{target} takes one of {list(var.labels)}")
            if var.labels == ("false", "true") or (tv.sort == "bool" and var.kind in ("state",)):
                b = _as_bool(val, f"'{target} ='")
                return [Assign(var_name, Op("ite", (b, Const(1), Const(0))))]
            rhs = _as_int(val, f"'{op}'")
            if op == "+=":
                rhs = Op("add", (V(var_name), rhs))
            elif op == "-=":
                rhs = Op("sub", (V(var_name), rhs))
            return [Assign(var_name, _clamp(rhs, var.lo, var.hi))]
        case ast.Emit(event):
            return _emit(ctx, event, model)
    raise AssertionError(eff)


def _assignable(ctx: _Ctx, target: ast.Ref, model: str | None) -> str:
    owner, name = _split_owner(ctx, target, model)
    if name in ctx.state_kind:
        owner, name = _state_ref(ctx, target, model)
        if ctx.state_kind[name] == "valued":
            if target.value is None:
                raise _TypeError("RP206", f"say which value of {name!r}")
            return ctx.q(owner, f"{name}:{target.value}")
        return ctx.q(owner, name)
    if name in ctx.global_vars or name in ctx.inputs:
        return name
    if name not in ctx.model_vars:
        raise _TypeError("RP203", f"unknown variable {name!r}",
                         _did_you_mean(name, [*ctx.model_vars, *ctx.global_vars]))
    if owner is None and ctx.models:
        raise _TypeError("RP203", f"{name!r} belongs to a model; say which one",
                         f"write '{ctx.models[0]}.{name}'")
    return ctx.q(owner, name)


def _remove(ctx: _Ctx, target: ast.Ref, amount: int | str, into: ast.Ref | None,
            model: str | None) -> list[Assign]:
    owner, state = _state_ref(ctx, target, model)
    kind = ctx.state_kind[state]
    if kind == "flag":
        raise _TypeError("RP206", f"{state!r} is a flag State; use 'leave {state}'")
    names = _marker_vars(ctx, owner, state)
    out: list[Assign] = []
    if amount == "highest":
        if kind != "valued":
            raise _TypeError("RP206", f"'remove highest' needs valued markers; {state!r} has none")
        values = ctx.state_values[state]
        if into is not None:
            dest = _assignable(ctx, into, model)
            dv = ctx.vars.get(dest)
            if dv is None or dv.labels:
                raise _TypeError("RP206", f"'-> {into}' needs a number variable")
            got = _call(ctx, "highest", (target,), model).expr
            out.append(Assign(dest, _clamp(Op("add", (V(dest), got)), dv.lo, dv.hi)))
        # lowest value first: each test reads the higher values before they change
        for i, (val, name) in enumerate(zip(values, names, strict=True)):
            higher_empty = conj(*(Op("eq", (V(h), Const(0))) for h in names[i + 1:]))
            cond = conj(higher_empty, Op("gt", (V(name), Const(0))))
            out.append(Assign(name, Op("ite", (cond, Op("sub", (V(name), Const(1))), V(name)))))
            del val
        return out
    if into is not None:
        raise _TypeError("RP206", "'->' only follows 'remove highest'")
    if amount == "all":
        return [Assign(n, Const(0)) for n in names]
    if kind == "valued" and target.value is None:
        raise _TypeError("RP206", f"say which value of {state!r}, or 'remove all'/'highest'")
    name = ctx.q(owner, f"{state}:{target.value}") if kind == "valued" else names[0]
    assert isinstance(amount, int)
    return [Assign(name, Op("max", (Op("sub", (V(name), Const(amount))), Const(0))))]


def _event_instance(ctx: _Ctx, event: str, model: str | None) -> str:
    ev, _ = ctx.events[event]
    scope = ev.scope if ev is not None else "global"
    return ctx.instance(event, model if scope == "model" else None)


def _emit(ctx: _Ctx, event: str, model: str | None) -> list[Assign]:
    if event not in ctx.events:
        raise _TypeError("RP203", f"unknown event {event!r}",
                         _did_you_mean(event, list(ctx.events)))
    if event in ctx.emitting:
        chain = " → ".join([*ctx.emitting, event])
        raise _TypeError("RP210", f"events emit each other in a cycle: {chain}")
    ev, path = ctx.events[event]
    inst = _event_instance(ctx, event, model)
    ctx.happened_needed.add(inst)
    out: list[Assign] = []
    if ev is not None:
        ctx.emitting.append(event)
        try:
            out = _effects(ctx, ev.do, model if ev.scope == "model" else None, (*path, "do"))
        finally:
            ctx.emitting.pop()
    else:
        out = _phase_effects(ctx, event)
    return [*out, Assign(f"_happened:{inst}", Const(1))]


def _phase_effects(ctx: _Ctx, event: str) -> list[Assign]:
    phase = event.removesuffix("-phase")
    return [Assign("phase", Const(ctx.doc.phases.index(phase)))]


# ============================================================================ transitions

def _lower_events(ctx: _Ctx) -> list[Transition]:
    out: list[Transition] = []
    phases = ctx.doc.phases
    for i, ph in enumerate(phases):
        ident = f"{ph}-phase"
        if ctx.events[ident][0] is not None:
            continue  # the user defined this event themselves
        prev = phases[i - 1]
        guard: LExpr = Op("eq", (V("phase"), Const(phases.index(prev))))
        out.append(Transition(ident, "phases", "event", guard,
                              tuple(_phase_effects(ctx, ident))))
    for i, ev in enumerate(ctx.doc.events):
        models = ctx.per_model() if ev.scope == "model" else (None,)
        for m in models:
            guard = _bool(ctx, ev.when, m, ("events", i, "when"))
            effects = _effects(ctx, ev.do, m, ("events", i, "do"))
            out.append(Transition(ctx.instance(ev.id, m), ev.id, "event", guard,
                                  tuple(effects), m))
    return out


def _lower_rules(ctx: _Ctx) -> list[Transition]:
    out: list[Transition] = []
    for i, rd in enumerate(ctx.doc.rules):
        ons = [rd.on] if isinstance(rd.on, str) else list(rd.on or [])
        for m in ctx.per_model():
            ident = ctx.instance(rd.id, m)
            when = _bool(ctx, rd.when, m, ("rules", i, "when"))
            effects = _effects(ctx, rd.do, m, ("rules", i, "do"))
            on_inst: list[str] = []
            for ev in ons:
                if ev not in ctx.events:
                    ctx.err("RP203", f"unknown event {ev!r} in 'on'", ("rules", i, "on"),
                            _did_you_mean(ev, list(ctx.events)))
                    continue
                inst = _event_instance(ctx, ev, m)
                ctx.happened_needed.add(inst)
                on_inst.append(inst)
            if ons:
                happened = disj(*(Op("eq", (V(f"_happened:{e}"), Const(1))) for e in on_inst))
                fired = f"_fired:{ident}"
                first = conj(happened, Op("eq", (V(fired), Const(0))), when)
                guard = first
                if rd.repeat_while:
                    again = _bool(ctx, rd.repeat_while, m, ("rules", i, "repeat_while"))
                    guard = disj(first, conj(happened, Op("eq", (V(fired), Const(1))), again))
                effects = [*effects, Assign(fired, Const(1))]
            else:
                if rd.repeat_while:
                    ctx.err("RP209", "'repeat_while' needs 'on' (the event that starts the "
                            "loop)", ("rules", i, "repeat_while"))
                guard = when
            out.append(Transition(ident, rd.id, "rule", guard, tuple(effects), m,
                                  tuple(on_inst)))
    return out


def _add_bookkeeping(ctx: _Ctx, rules: list[Transition],
                     monitors: list[tuple[str, LExpr]]) -> None:
    for inst in sorted(ctx.happened_needed):
        ctx.vars[f"_happened:{inst}"] = Var(f"_happened:{inst}", 0, 1, (0,), "happened")
    for r in rules:
        if r.on:
            ctx.vars[f"_fired:{r.id}"] = Var(f"_fired:{r.id}", 0, 1, (0,), "fired")
    for name, _ in monitors:
        ctx.vars[name] = Var(name, 0, 1, (0,), "seen")


def _with_resets(ctx: _Ctx, ev: Transition) -> Transition:
    resets = [Assign(v.name, Const(0)) for v in ctx.vars.values() if v.kind in ("happened",
                                                                                "fired")]
    resets.append(Assign("_res", Const(0)))
    inst = f"_happened:{ev.id}"
    if inst in ctx.vars:
        resets.append(Assign(inst, Const(1)))
    return Transition(ev.id, ev.source, ev.kind, ev.guard, (*resets, *ev.effects), ev.model,
                      ev.on)


# ============================================================================ constraints

def _lower_constraints(ctx: _Ctx) -> list[Constraint]:
    out: list[Constraint] = []
    ids = {c.id for c in ctx.doc.constraints} | {
        f"{p.id}.{s.id}" for p in ctx.doc.procedures for s in p.steps} | {
        p.id for p in ctx.doc.procedures}
    for i, cd in enumerate(ctx.doc.constraints):
        for o in cd.overrides:
            if o not in ids:
                ctx.err("RP203", f"'overrides' names unknown constraint {o!r}",
                        ("constraints", i, "overrides"), _did_you_mean(o, sorted(ids)))
        for m in ctx.per_model():
            when = _bool(ctx, cd.when, m, ("constraints", i, "when"))
            out.extend(_decision_constraints(ctx, cd.id, cd.id, cd, when, tuple(cd.overrides), m,
                                             ("constraints", i)))
    for i, pd in enumerate(ctx.doc.procedures):
        for m in ctx.per_model():
            when = _bool(ctx, pd.when, m, ("procedures", i, "when"))
            earlier: list[LExpr] = []
            for j, st in enumerate(pd.steps):
                cond = _bool(ctx, st.if_, m, ("procedures", i, "steps", j, "if"))
                active = conj(when, *(neg(e) for e in earlier), cond)
                earlier.append(cond)
                sid = f"{pd.id}.{st.id}"
                out.extend(_decision_constraints(ctx, sid, sid, st, active, (), m,
                                                 ("procedures", i, "steps", j)))
    return out


def _decision_constraints(ctx: _Ctx, ident: str, source: str, decl: Any, when: LExpr,
                          overrides: tuple[str, ...], model: str | None,
                          path: PathKey) -> list[Constraint]:
    out: list[Constraint] = []
    given = False
    for kind in ("only", "forbid", "must"):
        spec = getattr(decl, kind)
        if spec is None:
            continue
        given = True
        for dim, opts in spec.items():
            options = (opts,) if isinstance(opts, str) else tuple(opts)
            if dim not in ctx.doc.decisions:
                ctx.err("RP203", f"unknown decision {dim!r}", (*path, kind, dim),
                        _did_you_mean(dim, list(ctx.doc.decisions)))
                continue
            for o in options:
                if o not in ctx.doc.decisions[dim]:
                    ctx.err("RP203", f"{o!r} is not an option of decision {dim!r}",
                            (*path, kind, dim), _did_you_mean(o, ctx.doc.decisions[dim]))
            out.append(Constraint(f"{ctx.instance(ident, model)}/{dim}", source, kind, dim,
                                  options, when, overrides, model))
    if not given and not hasattr(decl, "steps"):
        ctx.err("RP209", "a constraint needs one of 'only', 'forbid', 'must'", path)
    return out


def _lower_facts(ctx: _Ctx) -> list[Fact]:
    out: list[Fact] = []
    ids = [f.id for f in ctx.doc.facts]
    for i, fd in enumerate(ctx.doc.facts):
        for o in fd.overrides:
            if o not in ids:
                ctx.err("RP203", f"'overrides' names unknown fact {o!r}",
                        ("facts", i, "overrides"), _did_you_mean(o, ids))
        for m in ctx.per_model():
            when = _bool(ctx, fd.when, m, ("facts", i, "when"))
            for attr, value in fd.set.items():
                out.append(Fact(f"{ctx.instance(fd.id, m)}/{attr}", fd.id, attr, str(value), when,
                                tuple(fd.overrides), m))
    return out


def _lower_modifiers(ctx: _Ctx) -> tuple[list[Stat], list[Modifier]]:
    stats = [Stat(n, s.base, s.round) for n, s in ctx.doc.stats.items()]
    out: list[Modifier] = []
    for i, md in enumerate(ctx.doc.modifiers):
        if md.stat not in ctx.doc.stats:
            ctx.err("RP203", f"unknown stat {md.stat!r}", ("modifiers", i, "stat"),
                    _did_you_mean(md.stat, list(ctx.doc.stats)))
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
            when = _bool(ctx, md.when, m, ("modifiers", i, "when"))
            out.append(Modifier(ctx.instance(md.id, m), md.id, md.stat, op, arg, when, m))
    return stats, out


# ============================================================================ properties

def _states_in(ctx: _Ctx, text: str) -> tuple[str, ...]:
    try:
        tree = ast.parse_expr(text)
    except ast.ExprSyntaxError:
        return ()
    names = {r.parts[-1] for r in ast.refs(tree)}
    return tuple(sorted(n for n in names if n in ctx.state_kind))


def _lower_properties(ctx: _Ctx, monitors: list[tuple[str, LExpr]]) -> list[Property]:
    out: list[Property] = []
    for i, pd in enumerate(ctx.doc.properties):
        for kind in ("always", "never", "reachable"):
            text = getattr(pd, kind)
            if text is None:
                continue
            path = ("properties", i, kind)
            per = [_bool(ctx, text, m, path) for m in ctx.per_model()]
            states = _states_in(ctx, text)
            if kind == "reachable":
                out.append(Property(pd.id, pd.id, "reachable", "reachable", disj(*per),
                                    states=states, text=text))
                continue
            body = conj(*per) if kind == "always" else conj(*(neg(p) for p in per))
            pkind = "cap" if kind == "always" and _is_cap(text) else kind
            out.append(Property(pd.id, pd.id, pkind, "invariant", body,  # type: ignore[arg-type]
                                states=states, text=f"{kind} {text}"))
            if kind == "always" and len(per) and all(isinstance(p, Op) and p.op == "implies"
                                                     for p in per):
                premise = disj(*(p.args[0] for p in per if isinstance(p, Op)))
                out.append(Property(f"vacuity:{pd.id}", pd.id, "vacuity", "reachable", premise,
                                    states=states, text=f"the premise of {pd.id!r} can hold"))
        if pd.terminal is not None:
            name = pd.terminal
            if name not in ctx.state_kind:
                ctx.err("RP203", f"unknown State {name!r}", ("properties", i, "terminal"),
                        _did_you_mean(name, list(ctx.state_kind)))
                continue
            out.append(_terminal_property(ctx, pd.id, pd.id, name, monitors))
    return out


def _lower_rulings(ctx: _Ctx, constraints: list[Constraint]) -> list[Property]:
    """A ruling `when → expect` becomes an invariant over the effective permissions: in every
    reachable stable state where `when` holds, each expected option is allowed and every other
    option of that decision is not. A constraint counts unless an active constraint overrides
    it; `must o` allows only o, `only S` allows S, `forbid S` allows the rest."""
    out: list[Property] = []
    for i, rd in enumerate(ctx.doc.rulings):
        parts: list[LExpr] = []
        premises: list[LExpr] = []
        for m in ctx.per_model():
            when = _bool(ctx, rd.when, m, ("rulings", i, "when"))
            premises.append(when)
            checks: list[LExpr] = []
            for dim, want in rd.expect.items():
                options = ctx.doc.decisions.get(dim)
                if options is None:
                    ctx.err("RP203", f"unknown decision {dim!r}", ("rulings", i, "expect", dim),
                            _did_you_mean(dim, list(ctx.doc.decisions)))
                    continue
                if want not in options:
                    ctx.err("RP203", f"{want!r} is not an option of decision {dim!r}",
                            ("rulings", i, "expect", dim), _did_you_mean(want, options))
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


def _terminal_property(ctx: _Ctx, ident: str, source: str, state: str,
                       monitors: list[tuple[str, LExpr]]) -> Property:
    parts: list[LExpr] = []
    for m in ctx.per_model():
        owner = ctx.doc.states[state].model or m
        here = _ref(ctx, ast.Ref((state,)), owner).expr
        seen = f"_seen:{ctx.q(owner, state)}"
        if all(n != seen for n, _ in monitors):
            monitors.append((seen, here))
        parts.append(Op("implies", (Op("eq", (V(seen), Const(1))), here)))
    return Property(ident, source, "terminal", "invariant", conj(*parts), at="all",
                    states=(state,), text=f"once {state}, always {state}")


def _with_builtin_properties(ctx: _Ctx, system: System, user: list[Property]) -> System:
    props = list(user)
    for name, sd in ctx.doc.states.items():
        owners = (sd.model,) if sd.model else ctx.per_model()
        if name in ctx.stacking_none:
            parts = [Op("le", (_sum([V(n) for n in _marker_vars(ctx, o, name)]), Const(1)))
                     for o in owners]
            props.append(Property(f"no-stacking:{name}", f"states:{name}", "no-stacking",
                                  "invariant", conj(*parts), at="all", states=(name,),
                                  text=f"{name} never stacks"))
        present = disj(*(Op("ge", (_sum([V(n) for n in _marker_vars(ctx, o, name)]), Const(1)))
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
    res = V(system.res_var)
    props.append(Property("termination", "rules", "termination", "invariant",
                          disj(Op("lt", (res, Const(system.res_bound))), stable(system)),
                          at="all", text="every resolution of triggered rules ends"))
    return System(**{**system.__dict__, "properties": tuple(props)})


def _terminal_builtins(ctx: _Ctx, user: list[Property],
                       monitors: list[tuple[str, LExpr]]) -> list[Property]:
    done = {p.states[0] for p in user if p.kind == "terminal"}
    return [_terminal_property(ctx, f"terminal:{name}", f"states:{name}", name, monitors)
            for name, sd in ctx.doc.states.items() if sd.terminal and name not in done]
