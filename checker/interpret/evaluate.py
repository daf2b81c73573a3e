"""The meaning of an expression in a concrete state: `evaluate` (over a name → value
environment, the reference) and `compile_expr` (the same as a closure over a state tuple,
for search). A concrete state is a tuple of ints in `system.vars` order (`State`)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from checker.ir import Const, LExpr, Op, V

State = tuple[int, ...]


def evaluate(e: LExpr, env: dict[str, int]) -> int | bool:
    """The value of `e` in `env` (variable name → value)."""
    match e:
        case Const(value):
            return value
        case V(name):
            return env[name]
        case Op(op, args):
            if op == "and":
                return all(evaluate(a, env) for a in args)
            if op == "or":
                return any(evaluate(a, env) for a in args)
            if op == "implies":
                return (not evaluate(args[0], env)) or bool(evaluate(args[1], env))
            if op == "ite":
                return evaluate(args[1], env) if evaluate(args[0], env) else evaluate(args[2],
                                                                                        env)
            vals = [evaluate(a, env) for a in args]
            return _apply(op, vals)
    raise AssertionError(e)


def _apply(op: str, vals: list[int | bool]) -> int | bool:
    match op:
        case "not":
            return not vals[0]
        case "eq":
            return vals[0] == vals[1]
        case "ne":
            return vals[0] != vals[1]
        case "lt":
            return vals[0] < vals[1]
        case "le":
            return vals[0] <= vals[1]
        case "gt":
            return vals[0] > vals[1]
        case "ge":
            return vals[0] >= vals[1]
        case "add":
            return int(vals[0]) + int(vals[1])
        case "sub":
            return int(vals[0]) - int(vals[1])
        case "mul":
            return int(vals[0]) * int(vals[1])
        case "neg":
            return -int(vals[0])
        case "min":
            return min(int(v) for v in vals)
        case "max":
            return max(int(v) for v in vals)
    raise AssertionError(op)


def compile_expr(e: LExpr, index: dict[str, int]) -> Callable[[Sequence[int]], int | bool]:
    """`e` as a Python closure over a state tuple (variables by position): the same meaning as
    `evaluate`, about ten times faster for explicit search."""
    match e:
        case Const(value):
            return lambda s: value
        case V(name):
            i = index[name]
            return lambda s: s[i]
        case Op(op, args):
            fs = [compile_expr(a, index) for a in args]
            if op == "and":
                if len(fs) == 2:
                    a, b = fs
                    return lambda s: bool(a(s)) and bool(b(s))
                if len(fs) == 3:
                    a, b, c = fs
                    return lambda s: bool(a(s)) and bool(b(s)) and bool(c(s))
                return lambda s: all(f(s) for f in fs)
            if op == "or":
                if len(fs) == 2:
                    a, b = fs
                    return lambda s: bool(a(s)) or bool(b(s))
                return lambda s: any(f(s) for f in fs)
            if op == "implies":
                a, b = fs
                return lambda s: (not a(s)) or bool(b(s))
            if op == "ite":
                c, x, y = fs
                return lambda s: x(s) if c(s) else y(s)
            if op == "not":
                (a,) = fs
                return lambda s: not a(s)
            if len(fs) == 2:
                a, b = fs
                if isinstance(args[1], Const):
                    k = args[1].value
                    if op == "eq":
                        return lambda s: a(s) == k
                    if op == "ge":
                        return lambda s: a(s) >= k
                    if op == "ne":
                        return lambda s: a(s) != k
                if isinstance(args[0], V) and isinstance(args[1], Const) and op == "eq":
                    i, k2 = index[args[0].name], args[1].value
                    return lambda s: s[i] == k2
                fn2 = _BINARY[op]
                return lambda s: fn2(a(s), b(s))
            return lambda s: _apply(op, [f(s) for f in fs])
    raise AssertionError(e)


_BINARY: dict[str, Callable[[Any, Any], int | bool]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge, "add": operator.add, "sub": operator.sub,
    "mul": operator.mul, "min": min, "max": max,
}
