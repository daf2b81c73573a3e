"""Reading facts in conditions: `fact(los) == none` (docs/spec-language.md "Derived facts").

A fact is a derived attribute (`set: {los: none}` while `when` holds). A condition may ask
whether the facts in force give an attribute a value: `fact(a) == v` holds exactly when
some fact setting `a` to `v` is in force and no fact in force that `overrides` it sets `a`
to another value; `fact(a) != v` is its negation. Where no fact sets `a`, `fact(a) == v` is
false; where two facts in force set `a` to different values and neither overrides the
other, both comparisons with their values hold: the conflict is reported as the facts'
conflict, never settled here. A fact belongs to a model like a State (`fact(b.los)`, or
`fact(los)` for the model of the rule). Facts whose conditions read facts in a cycle are
RP210.
"""

from __future__ import annotations

from checker.ir import FALSE, LExpr, conj, disj, neg
from checker.spec import expr as ast
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_expr import (
    ExprTypeError,
    _is_fact,
    _Typed,
    as_bool,
    did_you_mean,
    split_owner,
    type_expr,
)


def fact_compare(ctx: Ctx, op: str, left: ast.Expr, right: ast.Expr,
                 model: str | None) -> _Typed:
    """`fact(a) == v` or `fact(a) != v` (either side first) as a condition."""
    call, other = (left, right) if _is_fact(left) else (right, left)
    if op not in ("==", "!="):
        raise ExprTypeError("RP206", f"a fact can only be compared with == or !=, not {op!r}")
    if _is_fact(other):
        raise ExprTypeError("RP206", "compare a fact with a value, not with another fact",
                            "e.g. fact(los) == none")
    assert isinstance(call, ast.Call)
    owner, attr = _attribute(ctx, call, model)
    values = sorted({str(fd.set[attr]) for fd in ctx.doc.facts if fd.set and attr in fd.set})
    if not (isinstance(other, ast.Ref) and len(other.parts) == 1 and other.value is None):
        raise ExprTypeError("RP206", f"compare fact({attr}) with one of the values facts set "
                            f"it to: {values}")
    value = other.parts[0]
    if value not in values:
        raise ExprTypeError("RP206", f"no fact sets {attr!r} to {value!r}; the facts set it "
                            f"to {values}", did_you_mean(value, values))
    held = fact_holds(ctx, owner, attr, value)
    return _Typed(held if op == "==" else neg(held), "bool")


def _attribute(ctx: Ctx, call: ast.Call, model: str | None) -> tuple[str | None, str]:
    if len(call.args) != 1 or not isinstance(call.args[0], ast.Ref) \
            or call.args[0].value is not None:
        raise ExprTypeError("RP206", "fact() takes one attribute a fact sets, e.g. fact(los)")
    owner, attr = split_owner(ctx, call.args[0], model)
    known = sorted({a for fd in ctx.doc.facts for a in (fd.set or {})})
    if attr not in known:
        raise ExprTypeError("RP203", f"no fact sets the attribute {attr!r}",
                            did_you_mean(attr, known))
    if owner is None and ctx.models:
        raise ExprTypeError("RP203", f"the fact {attr!r} belongs to a model; here (a global "
                            "event or rule) say which one", f"write fact({ctx.models[0]}.{attr})")
    return owner, attr


def fact_holds(ctx: Ctx, owner: str | None, attr: str, value: str) -> LExpr:
    """The condition under which the facts of `owner` in force give `attr` the value
    `value` (module docstring); lowered once per owner, attribute and value."""
    done = ctx.facts_read.get((owner, attr, value))
    if done is not None:
        return done
    key = (owner, attr)
    if key in ctx.facts_reading:
        raise ExprTypeError("RP210", f"the conditions of the facts that set {attr!r} read "
                            f"fact({attr}) again: facts read each other in a cycle")
    ctx.facts_reading.add(key)
    try:
        setting = [fd for fd in ctx.doc.facts if fd.set and attr in fd.set]
        when = {fd.id: _when(ctx, fd.when, owner) for fd in setting}
        parts = []
        for fd in setting:
            if str(fd.set[attr]) != value:  # type: ignore[index]
                continue
            beaten = [when[g.id] for g in setting
                      if fd.id in g.overrides and str(g.set[attr]) != value]  # type: ignore[index]
            parts.append(conj(when[fd.id], neg(disj(*beaten))))
        ctx.facts_read[(owner, attr, value)] = disj(*parts)
        return ctx.facts_read[(owner, attr, value)]
    finally:
        ctx.facts_reading.discard(key)


def _when(ctx: Ctx, text: str, owner: str | None) -> LExpr:
    """A fact's condition for `owner`; one that does not lower counts as false here (its
    own lowering, `lower_facts`, reports it at the fact). A cycle is raised."""
    try:
        return as_bool(type_expr(ctx, ast.parse_expr(text), owner), "a fact's 'when'")
    except ExprTypeError as exc:
        if exc.code == "RP210":
            raise
        return FALSE
    except ast.ExprSyntaxError:
        return FALSE
