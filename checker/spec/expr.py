"""Expressions and effects of the spec language: Lark grammar → small frozen AST.

`parse_expr("Panicked and morale_roll == fail")` and `parse_effect("remove highest Bleed ->
wounds")` return AST nodes; a syntax error raises `ExprSyntaxError` with the column and what
was expected. Names are not resolved here (that is `lower`'s job): a `Ref` is only the dotted
path the user wrote, with an optional `:value` for valued markers (`Bleed:2`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, UnexpectedInput, v_args

MAX_EXPR_CHARS = 2000


def _grammar() -> str:
    return resources.files("checker.spec").joinpath("expr.lark").read_text("utf-8")


def _excluded(grammar: str) -> frozenset[str]:
    """The words NAME's negative lookahead lists in the grammar (`(?!(and|or|...)\\b)`)."""
    m = re.search(r"^NAME: /\(\?!\(([a-z|]+)\)\\b\)", grammar, re.M)
    if m is None:
        raise AssertionError("expr.lark: NAME no longer excludes its keywords as expected")
    return frozenset(m.group(1).split("|"))


# the words expr.lark's NAME excludes: no declared name can be one of them (read from the
# grammar, so that the two cannot drift apart)
KEYWORDS = _excluded(_grammar())
MAX_DEPTH = 100


@dataclass(frozen=True)
class Ref:
    parts: tuple[str, ...]
    value: int | None = None

    def __str__(self) -> str:
        v = f":{self.value}" if self.value is not None else ""
        return ".".join(self.parts) + v


@dataclass(frozen=True)
class Num:
    value: int


@dataclass(frozen=True)
class BoolLit:
    value: bool


@dataclass(frozen=True)
class Not:
    arg: Expr


@dataclass(frozen=True)
class Neg:
    arg: Expr


@dataclass(frozen=True)
class BinOp:
    op: str  # and or implies == != < <= > >= + - *
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Call:
    fn: str  # count highest any all min max abs stat fact
    args: tuple[Expr, ...]


Expr = Ref | Num | BoolLit | Not | Neg | BinOp | Call


@dataclass(frozen=True)
class Enter:
    target: Ref


@dataclass(frozen=True)
class Leave:
    target: Ref


@dataclass(frozen=True)
class Add:
    target: Ref
    count: int = 1


@dataclass(frozen=True)
class Remove:
    target: Ref
    amount: int | str = 1  # an int, "all" or "highest"
    into: Ref | None = None  # `remove highest Bleed -> wounds`: add the removed value


@dataclass(frozen=True)
class Assign:
    target: Ref
    op: str  # = += -=
    value: Expr


@dataclass(frozen=True)
class Emit:
    event: str


Effect = Enter | Leave | Add | Remove | Assign | Emit


class ExprSyntaxError(Exception):
    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


@v_args(inline=True)
class _ToAst(Transformer[Token, object]):
    def number(self, tok: Token) -> Num:
        return Num(int(tok))

    def true(self) -> BoolLit:
        return BoolLit(True)

    def false(self) -> BoolLit:
        return BoolLit(False)

    def ref(self, *toks: Token) -> Ref:
        names = tuple(str(t) for t in toks if t.type == "NAME")
        ints = [int(t) for t in toks if t.type == "INT"]
        return Ref(names, ints[0] if ints else None)

    def not_(self, arg: Expr) -> Expr:
        return Not(arg)

    def neg(self, arg: Expr) -> Expr:
        return Neg(arg)

    def implies(self, left: Expr, right: Expr) -> Expr:
        return BinOp("implies", left, right)

    def or_(self, *args: Expr) -> Expr:
        return _fold("or", args)

    def and_(self, *args: Expr) -> Expr:
        return _fold("and", args)

    def compare(self, left: Expr, op: Token, right: Expr) -> Expr:
        return BinOp(str(op), left, right)

    def arith(self, first: Expr, *rest: Expr | Token) -> Expr:
        out = first
        for i in range(0, len(rest), 2):
            op, right = rest[i], rest[i + 1]
            out = BinOp(str(op), out, right)  # type: ignore[arg-type]
        return out

    def call(self, fn: Token, *args: Expr) -> Expr:
        return Call(str(fn), tuple(args))

    def enter(self, target: Ref) -> Effect:
        return Enter(target)

    def leave(self, target: Ref) -> Effect:
        return Leave(target)

    def count(self, tok: Token) -> int:
        return int(tok)

    def amount(self, tok: Token) -> int | str:
        return str(tok) if tok.type in ("ALL", "HIGHEST") else int(tok)

    def add(self, *args: int | Ref) -> Effect:
        if len(args) == 2:
            return Add(args[1], args[0])  # type: ignore[arg-type]
        return Add(args[0])  # type: ignore[arg-type]

    def remove(self, *args: int | str | Ref) -> Effect:
        amount: int | str = 1
        rest = list(args)
        if not isinstance(rest[0], Ref):
            amount = rest.pop(0)  # type: ignore[assignment]
        target = rest[0]
        into = rest[1] if len(rest) > 1 else None
        return Remove(target, amount, into)  # type: ignore[arg-type]

    def assign(self, target: Ref, op: Token, value: Expr) -> Effect:
        return Assign(target, str(op), value)

    def emit(self, name: Token) -> Effect:
        return Emit(str(name))


def _fold(op: str, args: tuple[Expr, ...]) -> Expr:
    out = args[0]
    for a in args[1:]:
        out = BinOp(op, out, a)
    return out


@lru_cache(maxsize=2)
def _parser(start: str) -> Lark:
    return Lark(_grammar(), start=start, parser="lalr", maybe_placeholders=False)


def _parse(text: str, start: str) -> object:
    if len(text) > MAX_EXPR_CHARS:
        raise ExprSyntaxError(f"expression longer than {MAX_EXPR_CHARS} characters", 1)
    if _depth(text) > MAX_DEPTH:
        raise ExprSyntaxError(f"expression nested deeper than {MAX_DEPTH} levels", 1)
    try:
        tree = _parser(start).parse(text)
    except UnexpectedInput as exc:
        col = getattr(exc, "column", 1)
        col = col if isinstance(col, int) and col > 0 else 1
        token = getattr(exc, "token", None)
        if token is not None and getattr(token, "type", "") == "$END":
            col = len(text.rstrip()) + 1
        expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
        got = text[col - 1: col + 11].split(" ")[0] if col - 1 < len(text) else "end of text"
        hint = f"; expected {', '.join(_pretty(e) for e in expected[:6])}" if expected else ""
        raise ExprSyntaxError(f"unexpected {got!r} at column {col}{hint}", col) from None
    except RecursionError:
        raise ExprSyntaxError(f"expression nested deeper than {MAX_DEPTH} levels", 1) from None
    try:
        return _ToAst().transform(tree)
    except RecursionError:
        raise ExprSyntaxError(f"expression nested deeper than {MAX_DEPTH} levels", 1) from None


def _depth(text: str) -> int:
    """A cheap upper bound of the parse depth: parentheses, prefix operators and operators in
    a chain all nest the tree; deeper than `MAX_DEPTH` is refused before parsing."""
    depth = best = 0
    for ch in text:
        if ch == "(":
            depth += 1
            best = max(best, depth)
        elif ch == ")":
            depth -= 1
    words = text.split()
    prefix = sum(1 for w in words if w == "not") + text.count("-")
    chain = sum(1 for w in words if w in ("and", "or", "+", "*")) + text.count("+")
    return best + prefix + chain // 4


_PRETTY = {"NAME": "a name", "INT": "a number", "COMP": "a comparison", "RPAR": "')'",
           "LPAR": "'('", "ADDOP": "'+'/'-'", "MULOP": "'*'", "ASSIGNOP": "'='/'+='/'-='",
           "$END": "end of text", "AND": "'and'", "OR": "'or'", "NOT": "'not'"}


def _pretty(terminal: str) -> str:
    return _PRETTY.get(terminal, terminal.lower().strip("_"))


def parse_expr(text: str) -> Expr:
    """Parse a boolean or integer expression."""
    return _parse(text, "start_expr")  # type: ignore[return-value]


def parse_effect(text: str) -> Effect:
    """Parse one effect (`enter Crouched`, `hp -= 1`, `remove highest Bleed -> wounds`)."""
    return _parse(text, "start_effect")  # type: ignore[return-value]


def refs(expr: Expr) -> list[Ref]:
    """Every `Ref` in `expr`, left to right."""
    match expr:
        case Ref():
            return [expr]
        case Num() | BoolLit():
            return []
        case Not(arg) | Neg(arg):
            return refs(arg)
        case BinOp(_, left, right):
            return refs(left) + refs(right)
        case Call(_, args):
            return [r for a in args for r in refs(a)]
    raise AssertionError(expr)
