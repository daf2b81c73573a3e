"""`LExpr` (checker.ir) → SMT-LIB text, parsed into a Z3 context in one call.

Building terms through the z3 Python API costs ~15 API calls per node; the transition
relation of a 150-variable ruleset took seconds to build that way, once per engine and
property. Instead each operator node becomes one `(define-fun pN () Sort ...)` line
(shared sub-terms of `post_state` substitutions stay shared: Z3 hash-conses the parsed
terms) and `parse` turns a whole script into terms of a fresh context at C speed. The text
depends only on the `System`, so it is built once and reused by every check (and could be
sent to worker processes as is).

Variables are referred to by neutral symbols (`s3`, `n3`, ...) that `parse` binds to the
context's time-indexed constants, so no user-chosen name is ever spliced into the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import z3  # noqa: TID251 - encode/ is one of the two packages allowed to import z3

from checker.ir import BOOL_OPS, Const, LExpr, Op, V

_SMT = {"not": "not", "and": "and", "or": "or", "implies": "=>", "eq": "=",
        "ne": "distinct", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "add": "+",
        "sub": "-", "mul": "*", "neg": "-", "ite": "ite"}


def literal(value: int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if value >= 0 else f"(- {-value})"


class SmtText:
    """Translate `LExpr`s to SMT-LIB terms; `V(name)` is the symbol `env[name]`.
    `defs` collects the `define-fun` lines the returned terms refer to."""

    def __init__(self, env: Mapping[str, str], prefix: str) -> None:
        self.env = env
        self.prefix = prefix
        self.defs: list[str] = []
        self._memo: dict[int, tuple[LExpr, str, bool]] = {}

    def __call__(self, e: LExpr) -> str:
        return self._term(e)[0]

    def define(self, body: str, is_bool: bool) -> str:
        name = f"{self.prefix}{len(self.defs)}"
        self.defs.append(f"(define-fun {name} () {'Bool' if is_bool else 'Int'} {body})")
        return name

    def _term(self, e: LExpr) -> tuple[str, bool]:
        hit = self._memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1], hit[2]
        out = self._translate(e)
        self._memo[id(e)] = (e, *out)
        return out

    def _translate(self, e: LExpr) -> tuple[str, bool]:
        match e:
            case Const(value):
                return literal(value), isinstance(value, bool)
            case V(name):
                return self.env[name], False
            case Op(op, args):
                xs = [self._term(a) for a in args]
                is_bool = op in BOOL_OPS or (op == "ite" and xs[1][1])
                return self.define(self._body(op, [x for x, _ in xs]), is_bool), is_bool
        raise AssertionError(e)

    def _body(self, op: str, xs: list[str]) -> str:
        if op in ("and", "or") and not xs:
            return "true" if op == "and" else "false"
        if op in ("and", "or") and len(xs) == 1:
            return xs[0]
        if op in ("min", "max"):
            out = xs[0]
            for x in xs[1:]:
                cmp = "<=" if op == "min" else ">="
                out = self.define(f"(ite ({cmp} {out} {x}) {out} {x})", False)
            return out
        if op not in _SMT:
            raise AssertionError(f"unknown operator {op!r}")
        return f"({_SMT[op]} {' '.join(xs)})"


def parse(ctx: Any, defs: list[str], terms: list[str], decls: Mapping[str, Any]) -> list[Any]:
    """The Bool `terms` (over `defs` and the symbols of `decls`) as Z3 terms in `ctx`."""
    if not terms:
        return []
    script = "\n".join([*defs, *(f"(assert {t})" for t in terms)])
    vec = z3.parse_smt2_string(script, decls=dict(decls), ctx=ctx)
    out = [vec[i] for i in range(len(vec))]
    assert len(out) == len(terms), "one assertion per term"
    return out


def to_z3(ctx: Any, condition: LExpr, variables: Mapping[str, Any]) -> Any:
    """The Bool `condition` as one Z3 term of `ctx`, `V(name)` being `variables[name]`."""
    symbols = {name: f"v{i}" for i, name in enumerate(variables)}
    text = SmtText(symbols, "d")
    term = text(condition)
    return parse(ctx, text.defs, [term], {symbols[n]: c for n, c in variables.items()})[0]
