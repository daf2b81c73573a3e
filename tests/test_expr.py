"""Expressions and effects: the Lark grammar → AST (`checker.spec.expr`)."""

from __future__ import annotations

import pytest

from checker.spec.expr import (
    MAX_EXPR_CHARS,
    Add,
    Assign,
    BinOp,
    BoolLit,
    Call,
    Emit,
    Enter,
    ExprSyntaxError,
    Leave,
    Neg,
    Not,
    Num,
    Ref,
    Remove,
    parse_effect,
    parse_expr,
    refs,
)

pytestmark = pytest.mark.unit


def r(*parts: str, value: int | None = None) -> Ref:
    return Ref(tuple(parts), value)


a, b, c, x = r("a"), r("b"), r("c"), r("x")

# ------------------------------------------------------------------------------ precedence

PRECEDENCE = [
    ("not a and b", BinOp("and", Not(a), b)),
    ("a or b and c", BinOp("or", a, BinOp("and", b, c))),
    ("a and b or c", BinOp("or", BinOp("and", a, b), c)),
    ("a implies b or c", BinOp("implies", a, BinOp("or", b, c))),
    ("a or b implies c", BinOp("implies", BinOp("or", a, b), c)),
    ("not x == 1", Not(BinOp("==", x, Num(1)))),
    ("not not a", Not(Not(a))),
    ("x + 1 > 2 and a", BinOp("and", BinOp(">", BinOp("+", x, Num(1)), Num(2)), a)),
    ("1 + 2 * x", BinOp("+", Num(1), BinOp("*", Num(2), x))),
    ("x * 2 + 1", BinOp("+", BinOp("*", x, Num(2)), Num(1))),
    ("1 - 2 - x", BinOp("-", BinOp("-", Num(1), Num(2)), x)),      # left-associative
    ("a and b and c", BinOp("and", BinOp("and", a, b), c)),
    ("-x * 2", BinOp("*", Neg(x), Num(2))),
    ("x - -1", BinOp("-", x, Neg(Num(1)))),
    ("- - 1", Neg(Neg(Num(1)))),
    ("(a or b) and c", BinOp("and", BinOp("or", a, b), c)),
    ("a implies (b implies c)", BinOp("implies", a, BinOp("implies", b, c))),
    ("true and not false", BinOp("and", BoolLit(True), Not(BoolLit(False)))),
    ("x != 1", BinOp("!=", x, Num(1))),
    ("hp <= 2 implies Dead", BinOp("implies", BinOp("<=", r("hp"), Num(2)), r("Dead"))),
]


@pytest.mark.parametrize(("text", "tree"), PRECEDENCE, ids=[t for t, _ in PRECEDENCE])
def test_precedence(text: str, tree: object) -> None:
    assert parse_expr(text) == tree


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_every_comparison(op: str) -> None:
    assert parse_expr(f"x {op} 3") == BinOp(op, x, Num(3))


def test_whitespace_is_free() -> None:
    assert parse_expr("  x+1>=2\tand\n a ") == parse_expr("x + 1 >= 2 and a")


# ------------------------------------------------------------------------------ atoms

@pytest.mark.parametrize(("text", "tree"), [
    ("Crouched", r("Crouched")),
    ("a.Crouched", r("a", "Crouched")),
    ("other.hp", r("other", "hp")),
    ("Bleed:2", r("Bleed", value=2)),
    ("a.Bleed:3", r("a", "Bleed", value=3)),
    ("a.b.c", r("a", "b", "c")),                 # parses; lowering rejects it (RP203)
    ("_x1", r("_x1")),
    ("android", r("android")),                   # keywords are words, not prefixes
    ("not_dead", r("not_dead")),
    ("truely", r("truely")),
    ("count", r("count")),                       # a function name is a name without '('
    ("count(Bleed)", Call("count", (r("Bleed"),))),
    ("count (Bleed)", Call("count", (r("Bleed"),))),
    ("highest(Bleed)", Call("highest", (r("Bleed"),))),
    ("any(Crouched)", Call("any", (r("Crouched"),))),
    ("all(not a)", Call("all", (Not(a),))),
    ("max(a, b, c)", Call("max", (a, b, c))),
    ("min(1, x)", Call("min", (Num(1), x))),
    ("abs(-x)", Call("abs", (Neg(x),))),
    ("maxhp", r("maxhp")),
    ("007", Num(7)),
])
def test_atoms(text: str, tree: object) -> None:
    assert parse_expr(text) == tree


def test_ref_str_round_trips() -> None:
    for text in ("Crouched", "a.Crouched", "Bleed:2", "a.Bleed:2"):
        assert str(parse_expr(text)) == text


def test_refs_lists_every_name_left_to_right() -> None:
    tree = parse_expr("not a and max(b, count(Bleed:2)) > -c or true")
    assert [str(x) for x in refs(tree)] == ["a", "b", "Bleed:2", "c"]


# ------------------------------------------------------------------------------ effects

EFFECTS = [
    ("enter Crouched", Enter(r("Crouched"))),
    ("enter other.Crouched", Enter(r("other", "Crouched"))),
    ("leave Flying", Leave(r("Flying"))),
    ("leave Bleed", Leave(r("Bleed"))),
    ("add Stunned", Add(r("Stunned"), 1)),
    ("add 2 Stunned", Add(r("Stunned"), 2)),
    ("add Bleed:3", Add(r("Bleed", value=3), 1)),
    ("add 2 b.Bleed:1", Add(r("b", "Bleed", value=1), 2)),
    ("remove Stunned", Remove(r("Stunned"), 1, None)),
    ("remove 2 Stunned", Remove(r("Stunned"), 2, None)),
    ("remove Bleed:2", Remove(r("Bleed", value=2), 1, None)),
    ("remove all Bleed", Remove(r("Bleed"), "all", None)),
    ("remove highest Bleed", Remove(r("Bleed"), "highest", None)),
    ("remove highest Bleed -> wounds", Remove(r("Bleed"), "highest", r("wounds"))),
    ("remove highest a.Bleed -> a.wounds", Remove(r("a", "Bleed"), "highest",
                                                  r("a", "wounds"))),
    ("hp = hp - 1", Assign(r("hp"), "=", BinOp("-", r("hp"), Num(1)))),
    ("hp=1", Assign(r("hp"), "=", Num(1))),
    ("hp += 1", Assign(r("hp"), "+=", Num(1))),
    ("hp -= other.hp", Assign(r("hp"), "-=", r("other", "hp"))),
    ("hp += -1", Assign(r("hp"), "+=", Neg(Num(1)))),
    ("wound_state = downed", Assign(r("wound_state"), "=", r("downed"))),
    ("Crouched = not Flying", Assign(r("Crouched"), "=", Not(r("Flying")))),
    ("Bleed:1 = 2", Assign(r("Bleed", value=1), "=", Num(2))),
    ("address = 1", Assign(r("address"), "=", Num(1))),   # not 'add ress'
    ("entered = 1", Assign(r("entered"), "=", Num(1))),
    ("removed -= 1", Assign(r("removed"), "-=", Num(1))),
    ("emit suffer-wound", Emit("suffer-wound")),
    ("emit strategic-phase", Emit("strategic-phase")),
    ("emit e_1", Emit("e_1")),
]


@pytest.mark.parametrize(("text", "effect"), EFFECTS, ids=[t for t, _ in EFFECTS])
def test_every_effect_form(text: str, effect: object) -> None:
    assert parse_effect(text) == effect


@pytest.mark.parametrize(("text", "target"), [("remove all_markers", "all_markers"),
                                              ("remove highest_roll", "highest_roll")])
def test_all_and_highest_are_whole_words(text: str, target: str) -> None:
    assert parse_effect(text) == Remove(r(target), 1, None)


@pytest.mark.parametrize("text", [
    "enter", "leave 2 X", "add -1 X", "remove -1 X", "emit", "emit a.b", "emit x y",
    "x == 1", "enter Crouched and", "Crouched", "remove highest", "add X -> y", "hp = ",
    "hp *= 2", "enter Bleed:",
])
def test_malformed_effects(text: str) -> None:
    with pytest.raises(ExprSyntaxError):
        parse_effect(text)


def test_an_effect_is_not_an_expression_and_vice_versa() -> None:
    with pytest.raises(ExprSyntaxError):
        parse_expr("enter Crouched")
    with pytest.raises(ExprSyntaxError):
        parse_effect("hp > 0")


# ------------------------------------------------------------------------------ errors

@pytest.mark.parametrize(("text", "column", "got", "expected"), [
    ("a b", 3, "'b'", "'and'"),
    ("a && b", 3, "'&&'", "a comparison"),
    ("1 / 2", 3, "'/'", "'*'"),
    ("a implies b implies c", 13, "'implies'", "end of text"),
    ("0 <= hp <= 3", 9, "'<='", "'and'"),
    ("a == b == c", 8, "'=='", "'or'"),
    ("(a", 3, "'end of text'", "')'"),
    ("a)", 2, "')'", "end of text"),
    ("f(x)", 2, "'(x)'", "a comparison"),
    ("count()", 7, "')'", "a name"),
    ("Bleed:", 7, "'end of text'", "a number"),
    ("a..b", 3, "'.b'", "a name"),
    ("x:1:2", 4, "':2'", "'*'"),
    ("On Fire", 4, "'Fire'", "a comparison"),
    ("", 1, "'end of text'", "a name"),
])
def test_syntax_error_names_column_token_and_expectation(text: str, column: int, got: str,
                                                         expected: str) -> None:
    with pytest.raises(ExprSyntaxError) as exc:
        parse_expr(text)
    assert exc.value.column == column
    message = str(exc.value)
    assert message.startswith(f"unexpected {got} at column {column}; expected "), message
    assert expected in message


@pytest.mark.parametrize("text", ["Crouched and", "1 +", "hp ==", "not", "count(Bleed"])
def test_syntax_error_at_end_of_text_points_past_the_text(text: str) -> None:
    with pytest.raises(ExprSyntaxError) as exc:
        parse_expr(text)
    assert exc.value.column == len(text) + 1
    assert str(exc.value).startswith(f"unexpected 'end of text' at column {len(text) + 1}")


def test_expression_length_is_capped() -> None:
    assert parse_expr("x" * MAX_EXPR_CHARS) == r("x" * MAX_EXPR_CHARS)
    with pytest.raises(ExprSyntaxError, match="longer than 2000 characters") as exc:
        parse_expr("x" * (MAX_EXPR_CHARS + 1))
    assert exc.value.column == 1
    with pytest.raises(ExprSyntaxError, match="longer than"):
        parse_effect("hp = " + "1 + " * 600 + "1")


def test_deep_but_short_nesting_parses() -> None:
    tree = parse_expr("(" * 90 + "a" + ")" * 90)
    assert tree == a
    assert parse_expr("not " * 90 + "a") is not None


def test_too_deep_nesting_is_a_syntax_error_not_a_recursion_error() -> None:
    with pytest.raises(ExprSyntaxError):
        parse_expr("not " * 499 + "a")
