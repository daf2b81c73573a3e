"""The rules of a system as one generated Python function (`RuleTable`): which rules are
enabled in a concrete state, the interpreter's hottest question (every micro state of a
search or a replay asks it of every rule).

The meaning is the interpreter's (`evaluate`, `Interpreter.is_enabled`): a rule is enabled
when its guard holds and running its assignments in order (each reads the values the
earlier ones wrote) changes a variable the interpreter watches; a computed value outside
its variable's range is an `InternalError`. Only the form differs: each guard and effect
becomes a Python expression over the state tuple, all rules one function body, so a state
costs one call instead of a closure tree per rule (`tests/test_codegen.py` compares the
two on random expressions, random rulesets and the seeds' states)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from checker.errors import InternalError
from checker.ir import Const, LExpr, Op, System, Transition, V

_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_ARITH = {"add": "+", "sub": "-", "mul": "*"}


def expr_source(e: LExpr, ref: Callable[[str], str]) -> tuple[str, bool]:
    """`e` as a Python expression (`ref(name)` gives a variable's current value) with the
    meaning of `evaluate`, and whether its value is a bool (`evaluate` turns operands into
    ints for arithmetic and into bools for `and`/`or`/`implies`; the source does the same
    where the operand's type needs it)."""
    match e:
        case Const(value):
            return repr(value), isinstance(value, bool)
        case V(name):
            return ref(name), False
        case Op(op, args):
            parts = [expr_source(a, ref) for a in args]
            if op in ("and", "or"):
                return "(" + f" {op} ".join(_as_bool(p) for p in parts) + ")", True
            if op == "implies":
                return f"((not {parts[0][0]}) or {_as_bool(parts[1])})", True
            if op == "not":
                return f"(not {parts[0][0]})", True
            if op == "ite":
                (c, _), (x, xb), (y, yb) = parts
                return f"({x} if {c} else {y})", xb and yb
            if op in _CMP:
                return f"({parts[0][0]} {_CMP[op]} {parts[1][0]})", True
            if op in _ARITH:
                return f"({_as_int(parts[0])} {_ARITH[op]} {_as_int(parts[1])})", False
            if op == "neg":
                return f"(-{_as_int(parts[0])})", False
            if op in ("min", "max"):
                return f"{op}({', '.join(_as_int(p) for p in parts)})", False
    raise AssertionError(e)


def _as_bool(part: tuple[str, bool]) -> str:
    return part[0] if part[1] else f"bool({part[0]})"


def _as_int(part: tuple[str, bool]) -> str:
    return f"int({part[0]})" if part[1] else part[0]


class RuleTable:
    """`enabled(state)`: the positions (in spec order) of the rules enabled in `state`;
    `any_enabled(state)`: whether there is one (it stops at the first). `source` is the
    generated code."""

    def __init__(self, system: System, index: dict[str, int],
                 bounds: Sequence[tuple[int, int]], watched: frozenset[int]) -> None:
        tests = [_test(system.rules[k], index, bounds, watched)
                 for k in range(len(system.rules))]
        body = ["def enabled(s):", "    out = []"]
        for k, test in enumerate(tests):
            body += _indent(test, f"out.append({k})")
        body += ["    return out", "", "def any_enabled(s):"]
        for test in tests:
            body += _indent(test, "return True")
        body += ["    return False", ""]
        self.source = "\n".join(body)
        space: dict[str, Any] = {"_outside": _outside}
        exec(compile(self.source, "<generated rules>", "exec"), space)
        self.enabled: Callable[[Sequence[int]], list[int]] = space["enabled"]
        self.any_enabled: Callable[[Sequence[int]], bool] = space["any_enabled"]


def _test(rule: Transition, index: dict[str, int], bounds: Sequence[tuple[int, int]],
          watched: frozenset[int]) -> tuple[str, list[str], str] | None:
    """`rule`'s test: its guard, its assignments in order into locals (with the range check
    of each computed value), and whether a watched variable changed; None when it writes
    no watched variable (never enabled)."""
    local: dict[int, str] = {}

    def ref(name: str) -> str:
        i = index[name]
        return local.get(i, f"s[{i}]")

    guard, _ = expr_source(rule.guard, ref)
    lines = []
    for a in rule.effects:
        i = index[a.var]
        value = _as_int(expr_source(a.value, ref))
        lines.append(f"x{i} = {value}")
        if not isinstance(a.value, Const):
            lo, hi = bounds[i]
            lines.append(f"if not {lo} <= x{i} <= {hi}: "
                         f"_outside({rule.id!r}, {a.var!r}, x{i}, {lo}, {hi})")
        local[i] = f"x{i}"
    changed = [f"{local[i]} != s[{i}]" for i in sorted(local) if i in watched]
    if not changed:
        return None
    return guard, lines, " or ".join(changed)


def _indent(test: tuple[str, list[str], str] | None, then: str) -> list[str]:
    if test is None:
        return []
    guard, lines, changed = test
    return [f"    if {guard}:", *(f"        {x}" for x in lines),
            f"        if {changed}:", f"            {then}"]


def _outside(rule: str, var: str, value: int, lo: int, hi: int) -> None:
    raise InternalError(f"{rule} set {var}={value} outside [{lo}, {hi}]")
