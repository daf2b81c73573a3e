"""Lowering expressions: parse, resolve names and type-check to IR `LExpr`s."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from checker.ir import FALSE, Const, LExpr, Op, PathKey, V, Var, conj, disj, neg
from checker.spec import expr as ast
from checker.spec.lower_ctx import Ctx

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
        return did_you_mean(self.label, list(self.known)) if self.known else None


def did_you_mean(name: str, options: list[str]) -> str | None:
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    if not close:
        low = {o.lower(): o for o in options}
        if name.lower() in low:
            close = [low[name.lower()]]
    return f"did you mean {close[0]!r}?" if close else None


def check_overrides(ctx: Ctx, section: str, i: int, overrides: list[str], known: list[str],
                    what: str) -> None:
    """RP203 for every name in `overrides` (of entry `i` of `section`) that is none of
    `known`, the ids of the `what`s (constraint, fact) it may override."""
    for o in overrides:
        if o not in known:
            ctx.err("RP203", f"'overrides' names unknown {what} {o!r}",
                    (section, i, "overrides"), did_you_mean(o, known))


class ExprTypeError(Exception):
    def __init__(self, code: str, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.fix = fix


def lower_bool(ctx: Ctx, text: str, model: str | None, path: PathKey) -> LExpr:
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


def _expr(ctx: Ctx, text: str, model: str | None, path: PathKey) -> _Typed | None:
    try:
        tree = ast.parse_expr(text)
    except ast.ExprSyntaxError as exc:
        ctx.err("RP205", f"cannot parse {text!r}: {exc}", path)
        return None
    try:
        return type_expr(ctx, tree, model)
    except ExprTypeError as exc:
        ctx.err(exc.code, f"in {text!r}: {exc}", path, exc.fix)
        return None


def unknown_label(t: _Typed) -> None:
    if t.sort == "label":
        raise ExprTypeError("RP203", f"unknown name {t.label!r}", t.fix)


def as_bool(t: _Typed, what: str) -> LExpr:
    unknown_label(t)
    if t.sort == "bool":
        return t.expr
    article = "an" if t.sort in ("int", "enum") else "a"
    raise ExprTypeError("RP206", f"{what} needs a condition, got {article} {t.sort}")


def as_int(t: _Typed, what: str) -> LExpr:
    unknown_label(t)
    if t.sort == "int":
        return t.expr
    raise ExprTypeError("RP206", f"{what} needs a number, got a{'n' if t.sort == 'enum' else ''} "
                        f"{t.sort}")


def type_expr(ctx: Ctx, e: ast.Expr, model: str | None) -> _Typed:
    match e:
        case ast.Num(v):
            return _Typed(Const(v), "int")
        case ast.BoolLit(v):
            return _Typed(Const(v), "bool")
        case ast.Ref():
            return type_ref(ctx, e, model)
        case ast.Not(a):
            return _Typed(neg(as_bool(type_expr(ctx, a, model), "'not'")), "bool")
        case ast.Neg(a):
            return _Typed(Op("neg", (as_int(type_expr(ctx, a, model), "'-'"),)), "int")
        case ast.BinOp(op, left, right):
            return _binop(ctx, op, left, right, model)
        case ast.Call(fn, args):
            return type_call(ctx, fn, args, model)
    raise AssertionError(e)


def _is_fact(e: ast.Expr) -> bool:
    return isinstance(e, ast.Call) and e.fn == "fact"


_CMP = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_ARITH = {"+": "add", "-": "sub", "*": "mul"}


def _binop(ctx: Ctx, op: str, left: ast.Expr, right: ast.Expr, model: str | None) -> _Typed:
    if _is_fact(left) or _is_fact(right):
        from checker.spec.lower_facts import fact_compare  # (it lowers facts' conditions)
        return fact_compare(ctx, op, left, right, model)
    lt, rt = type_expr(ctx, left, model), type_expr(ctx, right, model)
    if op in ("and", "or", "implies"):
        lb, rb = as_bool(lt, f"'{op}'"), as_bool(rt, f"'{op}'")
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
                raise ExprTypeError("RP206", f"{rt.label!r} is not one of {list(lt.labels)}",
                                    did_you_mean(rt.label, list(lt.labels)))
            if op not in ("==", "!="):
                raise ExprTypeError("RP206", f"values of {list(lt.labels)} can only be compared "
                                    "with == or !=")
            return _Typed(Op(_CMP[op], (lt.expr, Const(lt.labels.index(rt.label)))), "bool")
        if lt.sort == "enum" and rt.sort == "enum":
            if lt.labels != rt.labels:
                raise ExprTypeError("RP206", "compares values of different kinds")
            return _Typed(Op(_CMP[op], (lt.expr, rt.expr)), "bool")
        if lt.sort == "bool" and rt.sort == "bool" and op in ("==", "!="):
            return _Typed(Op(_CMP[op], (lt.expr, rt.expr)), "bool")
        return _Typed(Op(_CMP[op], (as_int(lt, f"'{op}'"), as_int(rt, f"'{op}'"))), "bool")
    return _Typed(Op(_ARITH[op], (as_int(lt, f"'{op}'"), as_int(rt, f"'{op}'"))), "int")


def type_call(ctx: Ctx, fn: str, args: tuple[ast.Expr, ...], model: str | None) -> _Typed:
    if fn in ("any", "all"):
        if len(args) != 1:
            raise ExprTypeError("RP206", f"{fn}() takes one condition")
        parts = [as_bool(type_expr(ctx, args[0], m), f"{fn}()") for m in ctx.per_model()]
        return _Typed(disj(*parts) if fn == "any" else conj(*parts), "bool")
    if fn in ("count", "highest"):
        if len(args) != 1 or not isinstance(args[0], ast.Ref):
            raise ExprTypeError("RP206", f"{fn}() takes one marker State, e.g. {fn}(Bleed)")
        owner, state = state_ref(ctx, args[0], model)
        names = marker_vars(ctx, owner, state)
        if fn == "count":
            return _Typed(sum_of([V(n) for n in names]), "int")
        values = ctx.state_values.get(state)
        if not values:
            raise ExprTypeError("RP206", f"highest() needs valued markers; {state!r} has none")
        out: LExpr = Const(0)
        for val, n in zip(values, names, strict=True):
            out = Op("ite", (Op("gt", (V(n), Const(0))), Const(val), out))
        return _Typed(out, "int")
    if fn == "stat":
        return _stat(ctx, args, model)
    if fn == "fact":
        raise ExprTypeError("RP206", "compare fact(...) with a value, e.g. fact(los) == none")
    ints = [as_int(type_expr(ctx, a, model), f"{fn}()") for a in args]
    if fn == "abs":
        if len(ints) != 1:
            raise ExprTypeError("RP206", "abs() takes one number")
        return _Typed(Op("ite", (Op("ge", (ints[0], Const(0))), ints[0],
                                 Op("neg", (ints[0],)))), "int")
    if len(ints) < 2:
        raise ExprTypeError("RP206", f"{fn}() takes two or more numbers")
    return _Typed(Op(fn, tuple(ints)), "int")


STAT_PREFIX = "?stat:"     # the placeholder of a stat's value, expanded by the property


def _stat(ctx: Ctx, args: tuple[ast.Expr, ...], model: str | None) -> _Typed:
    """`stat(speed)`: the stat's value after the modifiers that apply. It stands for every
    value the open order of those modifiers can give (`lower_props.expand_stats`), so only a
    property may use it."""
    if len(args) != 1 or not isinstance(args[0], ast.Ref) or len(args[0].parts) != 1:
        raise ExprTypeError("RP206", "stat() takes one stat name, e.g. stat(speed)")
    name = args[0].parts[0]
    if not ctx.allow_stat:
        raise ExprTypeError("RP206", "stat() can be used in properties only (a stat is not a "
                            "variable: its value depends on the modifiers that apply)")
    if name not in ctx.stats:
        raise ExprTypeError("RP203", f"unknown stat {name!r}",
                            did_you_mean(name, list(ctx.stats)))
    ctx.stat_uses.add((name, model))
    return _Typed(V(f"{STAT_PREFIX}{name}@{model or ''}"), "int")


def sum_of(parts: list[LExpr]) -> LExpr:
    if not parts:
        return Const(0)
    out = parts[0]
    for p in parts[1:]:
        out = Op("add", (out, p))
    return out


def split_owner(ctx: Ctx, ref: ast.Ref, model: str | None) -> tuple[str | None, str]:
    parts = ref.parts
    if len(parts) == 1:
        return model, parts[0]
    if len(parts) == 2:
        head, name = parts
        if head == "other":
            if len(ctx.models) != 2 or model is None:
                raise ExprTypeError("RP203", "'other.' needs exactly two models in 'models'")
            return next(m for m in ctx.models if m != model), name
        if head in ctx.models:
            return head, name
        raise ExprTypeError("RP203", f"unknown model {head!r}",
                            did_you_mean(head, [*ctx.models, "other"]))
    raise ExprTypeError("RP203", f"{ref} has too many parts")


def state_ref(ctx: Ctx, ref: ast.Ref, model: str | None) -> tuple[str | None, str]:
    owner, name = split_owner(ctx, ref, model)
    if name not in ctx.state_kind:
        raise ExprTypeError("RP203", f"unknown State {name!r}",
                            did_you_mean(name, list(ctx.state_kind)))
    decl = ctx.doc.states[name]
    if decl.model:
        owner = decl.model
    if owner is None and ctx.models:
        raise ExprTypeError("RP203", f"{name!r} belongs to a model; here (a global event or "
                            "rule) say which one", f"write '{ctx.models[0]}.{name}', or use "
                            f"any({name}) / all({name})")
    if ref.value is not None and ref.value not in ctx.state_values.get(name, ()):
        values = ctx.state_values.get(name)
        raise ExprTypeError("RP203", f"{name!r} has no marker value {ref.value}" +
                            (f"; its values are {list(values)}" if values else
                             " (it has no valued markers)"))
    return owner, name


def marker_vars(ctx: Ctx, owner: str | None, state: str) -> list[str]:
    if ctx.state_kind[state] == "valued":
        return [ctx.q(owner, f"{state}:{v}") for v in ctx.state_values[state]]
    return [ctx.q(owner, state)]


def type_ref(ctx: Ctx, ref: ast.Ref, model: str | None) -> _Typed:
    owner, name = split_owner(ctx, ref, model)
    if name in ctx.conditions:
        return _named(ctx, ref, owner, name)
    if name in ctx.state_kind:
        owner, name = state_ref(ctx, ref, model)
        if ref.value is not None:
            if ref.value not in ctx.state_values.get(name, ()):
                raise ExprTypeError("RP203", f"{name!r} has no marker value {ref.value}")
            return _Typed(V(ctx.q(owner, f"{name}:{ref.value}")), "int")
        names = marker_vars(ctx, owner, name)
        return _Typed(Op("ge", (sum_of([V(n) for n in names]), Const(1))), "bool")
    if ref.value is not None:
        raise ExprTypeError("RP206", f"':{ref.value}' only follows a valued marker State")
    if name in ctx.global_vars or name in ctx.inputs:
        v = ctx.vars[name]
        if len(ref.parts) > 1:
            raise ExprTypeError("RP203", f"{name!r} is global; write it without a model")
        return _var_typed(v)
    if name in ctx.model_vars:
        if owner is None and ctx.models:
            raise ExprTypeError("RP203", f"{name!r} belongs to a model; here (a global event or "
                                "rule) say which one", f"write '{ctx.models[0]}.{name}'")
        return _var_typed(ctx.vars[ctx.q(owner, name)])
    if len(ref.parts) == 1:
        return _Typed(Const(0), "label", label=name, known=tuple(ctx.known_names()))
    raise ExprTypeError("RP203", f"unknown name {str(ref)!r}",
                        did_you_mean(name, ctx.known_names()))


def _var_typed(v: Var) -> _Typed:
    if v.labels:
        if v.labels == ("false", "true"):
            return _Typed(Op("eq", (V(v.name), Const(1))), "bool")
        return _Typed(V(v.name), "enum", v.labels)
    return _Typed(V(v.name), "int")


# ============================================================================ named conditions

def check_conditions(ctx: Ctx) -> None:
    """Each named condition (`conditions:`) lowered once where it is declared (as the first
    model's, with models), so that an error in it is reported there, once; a condition with
    an error is `broken` and reads as false where it is used (its error already stops the
    spec)."""
    model = ctx.models[0] if ctx.models else None
    ctx.checking = True
    try:
        for name, text in ctx.conditions.items():
            _check_condition(ctx, name, text, model)
    finally:
        ctx.checking = False


def _check_condition(ctx: Ctx, name: str, text: str, model: str | None) -> None:
    before = len(ctx.diags)
    if name in ast.KEYWORDS:
        ctx.err("RP204", f"the named condition {name!r} is a word of the expression "
                "language, which no expression can use as a name", ("conditions", name,
                                                                      "<key>"),
                "choose another name")
    ctx.expanding.append(name)
    try:
        lower_bool(ctx, text, model, ("conditions", name))
    finally:
        ctx.expanding.pop()
    if len(ctx.diags) > before:
        ctx.broken.add(name)


def _named(ctx: Ctx, ref: ast.Ref, owner: str | None, name: str) -> _Typed:
    """A named condition where an expression uses it: its text lowered for `owner` (the
    model the element belongs to, or the one named: `a.enemy`, `other.enemy`)."""
    if ref.value is not None:
        raise ExprTypeError("RP206", f"':{ref.value}' only follows a valued marker State")
    if not ctx.checking:
        ctx.used.add(name)        # by an element, or by a condition an element uses
    if name in ctx.expanding:
        cycle = " → ".join([*ctx.expanding[ctx.expanding.index(name):], name])
        raise ExprTypeError("RP210", f"named conditions refer to each other in a cycle: "
                            f"{cycle}", "write one of them with the names it stands for")
    if name in ctx.broken:
        return _Typed(FALSE, "bool")
    try:
        tree = ast.parse_expr(ctx.conditions[name])
    except ast.ExprSyntaxError as exc:
        raise ExprTypeError("RP205", f"the named condition {name!r} cannot be parsed: "
                            f"{exc}") from None
    ctx.expanding.append(name)
    try:
        try:
            t = type_expr(ctx, tree, owner)
        except ExprTypeError:
            if owner is None and ctx.models and _reads_a_model(ctx, tree):
                raise ExprTypeError(
                    "RP203", f"the named condition {name!r} reads a model's names; here (a "
                    "global event or rule) say which model's", f"write '{ctx.models[0]}.{name}'"
                ) from None
            raise
        return _Typed(as_bool(t, f"the named condition {name!r}"), "bool")
    finally:
        ctx.expanding.pop()


def _reads_a_model(ctx: Ctx, tree: ast.Expr) -> bool:
    """Does `tree` lower as a model's (the first model's) where it fails as a global one?"""
    try:
        type_expr(ctx, tree, ctx.models[0])
    except ExprTypeError:
        return False
    return True
