"""The Promela export (`checker.export.promela`) and the pan output parser.

The export is checked three ways: its pieces as text, SPIN accepting every model it writes,
and (with SPIN) verdicts on random IR-level systems that exercise every operator, inputs
read by event guards, several initial values, monitors and stuck resolutions, compared with
the reference interpreter.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.export import spin as spin_mod
from checker.export.promela import (
    check_expr,
    expr,
    identifiers,
    promela_type,
    to_promela,
    to_promela_claims,
)
from checker.export.spin import SpinResult, parse_pan, run_spin, run_spin_all, spin_available
from checker.interpret import explore
from checker.ir import (
    FALSE,
    TRUE,
    Assign,
    Const,
    LExpr,
    Op,
    Property,
    System,
    Transition,
    V,
    Var,
    disj,
    stable,
)
from checker.spec.load import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "docs" / "example-mini.yaml"
_no_spin = pytest.mark.skipif(spin_available() is not None,
                              reason=f"SPIN cross-check needs spin and gcc: {spin_available()}")
# layers (tests/README.md): a test that runs SPIN and gcc is e2e, the rest are unit
unit = pytest.mark.unit


def needs_spin(test: Callable[..., None]) -> Callable[..., None]:
    """Runs spin and gcc: the e2e layer, skipped when they are missing."""
    return pytest.mark.e2e(_no_spin(test))


def _mini() -> System:
    return load_ruleset(MINI).system


def _prop(system: System, ident: str) -> Property:
    return next(p for p in system.properties if p.id == ident)


# ----------------------------------------------------------------------------- text

@unit
def test_types_fit_the_range() -> None:
    assert promela_type(0, 1) == "bit"
    assert promela_type(0, 2) == "byte"
    assert promela_type(0, 255) == "byte"
    assert promela_type(-1, 1) == "short"
    assert promela_type(0, 256) == "short"
    assert promela_type(-32768, 32767) == "short"
    assert promela_type(0, 40000) == "int"


@unit
def test_identifiers_are_sanitised_and_unique() -> None:
    names = ["a.Crouched", "a:Crouched", "_happened:end-phase@b", "Bleed:1", "_res"]
    system = System("t", tuple(Var(n, 0, 1, (0,), "int") for n in names), (), (), 8)
    ids = identifiers(system)
    assert ids["a.Crouched"] == "v_a_Crouched"
    assert ids["a:Crouched"] == "v_a_Crouched_2"
    assert ids["_happened:end-phase@b"] == "v__happened_end_phase_b"
    assert len(set(ids.values())) == len(names)


@unit
def test_expressions() -> None:
    n = {"x": "v_x", "y": "v_y"}
    x, y = V("x"), V("y")
    assert expr(Const(-2), n) == "(-2)"
    assert expr(TRUE, n) == "1" and expr(FALSE, n) == "0"
    assert expr(Op("ite", (Op("gt", (x, y)), x, y)), n) == "((v_x > v_y) -> v_x : v_y)"
    assert expr(Op("implies", (Op("eq", (x, Const(1))), Op("ne", (y, x)))), n) == \
        "(!(v_x == 1) || (v_y != v_x))"
    assert expr(Op("min", (x, y, Const(3))), n) == \
        "((((v_x <= v_y) -> v_x : v_y) <= 3) -> ((v_x <= v_y) -> v_x : v_y) : 3)"
    assert expr(Op("max", (x, y)), n) == "((v_x >= v_y) -> v_x : v_y)"
    assert expr(Op("and", ()), n) == "1" and expr(Op("or", ()), n) == "0"
    assert expr(Op("neg", (Op("mul", (x, y)),)), n) == "(-(v_x * v_y))"
    with pytest.raises(ValueError):
        expr(Op("div", (x, y)), n)


@unit
def test_property_checks() -> None:
    system = _mini()
    assert check_expr(system, _prop(system, "hp-bounded")) == "(!(fe == 0) || (v_hp <= 2))"
    assert check_expr(system, _prop(system, "no-stacking:Dead")) == "(v_Dead <= 1)"
    assert check_expr(system, _prop(system, "state-reachable:Dead")) == "(!(v_Dead >= 1))"
    stable_reach = Property("r", "r", "reachable", "reachable", Op("eq", (V("hp"), Const(0))))
    assert check_expr(system, stable_reach) == "(!((fe == 0) && (v_hp == 0)))"
    assert check_expr(system, _prop(system, "termination")).endswith(
        "&& ((fe == 0) || v__res < BOUND))")
    assert check_expr(system, _prop(system, "hp-bounded"), stable="STABLE") == \
        "(!STABLE || (v_hp <= 2))"


@unit
def test_model_layout() -> None:
    system = _mini()
    text = to_promela(system, _prop(system, "hp-bounded"))
    assert "#define BOUND 10" in text and "end_loop:" in text
    assert text.count("#define EN_") == len(system.rules)
    # checked for the initial states, after the event step and after the micro step
    assert text.count("assert(CHECK_0);") == 3
    assert text.count("fe = FIRST;") == 3
    assert text.count("d_step {  /* event ") == len(system.events)
    assert text.count("d_step {  /* rule ") == len(system.rules)
    assert "#define FIRST (EN_0 -> 1 : (EN_1 -> 2 : (EN_2 -> 3 : (EN_3 -> 4 : 0))))" in text
    assert "CHECK_1" not in text
    assert "if :: v_toughness_roll = 0 :: v_toughness_roll = 1 fi;" in text  # two initials
    assert "hidden byte t_m0;" in text      # the _seen:Dead monitor
    everything = to_promela(system)
    invariants = [p for p in system.properties if p.mode == "invariant"]
    assert everything.count("#define CHECK_") == len(invariants)
    assert "state-reachable:Dead" in everything  # named as not asserted


@unit
def test_claims_layout() -> None:
    system = _mini()
    text, claims = to_promela_claims(system, system.properties)
    assert claims == [f"c{k}" for k in range(len(system.properties))]
    assert "assert(CHECK_" not in text
    for k in range(len(claims)):
        assert f"never c{k} {{ do :: assert(ok_{k}) od }}" in text
        assert f"bit ok_{k} = 1;" in text
        assert text.count(f"ok_{k} = CHECK_{k};") == 3


@needs_spin
def test_spin_accepts_every_export(tmp_path: Path) -> None:
    system = _mini()
    texts = [to_promela(system, p) for p in [None, *system.properties]]
    texts.append(to_promela_claims(system, system.properties)[0])
    for i, text in enumerate(texts):
        work = tmp_path / str(i)
        work.mkdir()
        (work / "m.pml").write_text(text, encoding="utf-8")
        done = subprocess.run(["spin", "-a", "m.pml"], cwd=work, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0 and (work / "pan.c").exists(), done.stdout + done.stderr


# ----------------------------------------------------------------------------- pan output

HEADER = ("pan:1: assertion violated (v_x<3) (at depth 2)\n"
          "State-vector 20 byte, depth reached 134, errors: {e}\n      220 states, stored\n")
INV = Property("i", "i", "always", "invariant", TRUE)
REACH = Property("r", "r", "reachable", "reachable", TRUE)


@unit
def test_parse_pan_verdicts() -> None:
    assert parse_pan(HEADER.format(e=0), INV) == SpinResult(
        "holds", "exhaustive search, no counterexample (220 states, state vector 20 bytes)", 220)
    assert parse_pan(HEADER.format(e=1), INV).verdict == "fails"
    assert parse_pan(HEADER.format(e=1), REACH).verdict == "holds"
    assert parse_pan(HEADER.format(e=0), REACH).verdict == "fails"


@unit
@pytest.mark.parametrize("noise", ["error: max search depth too small\n",
                                   "pan: out of memory\n",
                                   "pan: reached -DMEMLIM bound\n",
                                   "Warning: Search not completed\n"])
def test_parse_pan_incomplete_is_unknown(noise: str) -> None:
    assert parse_pan(noise + HEADER.format(e=0), INV).verdict == "unknown"
    assert parse_pan(noise + HEADER.format(e=0), REACH).verdict == "unknown"


@unit
def test_parse_pan_without_a_summary_is_unknown() -> None:
    assert parse_pan("Segmentation fault\n", INV).verdict == "unknown"
    other = "pan:1: invalid end state (at depth 3)\nState-vector 20 byte, errors: 1\n"
    assert parse_pan(other, INV).verdict == "unknown"


@unit
def test_missing_tools_are_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spin_mod.shutil, "which", lambda _: None)
    system = _mini()
    result = run_spin(system, _prop(system, "hp-bounded"), workdir=tmp_path)
    assert result.verdict == "unknown" and "spin and gcc not found" in result.detail


@needs_spin
def test_truncated_search_is_unknown(tmp_path: Path) -> None:
    system = _mini()
    result = run_spin(system, _prop(system, "hp-bounded"), workdir=tmp_path, max_depth=5,
                      cc_opt="-O0")
    assert result.verdict == "unknown" and "truncated" in result.detail


def _counter(events: bool, rules: bool) -> System:
    """x counts up to 3 by an event (inputs 0..40: the `select` path) or by a rule."""
    bump = (Assign("x", Op("min", (Op("add", (V("x"), Const(1))), Const(3)))),)
    return System(
        "tiny",
        (Var("x", 0, 3, (0, 1), "int"), Var("roll", -5, 40, (0,), "input"),
         Var("_res", 0, 8, (0,), "res")),
        (Transition("bump", "bump", "event", Op("eq", (V("roll"), Const(37))),
                    (Assign("_res", Const(0)), *bump)),) if events else (),
        (Transition("up", "up", "rule", TRUE, bump),) if rules else (), 8)


@needs_spin
@pytest.mark.parametrize(("events", "rules"), [(True, False), (False, True), (False, False)])
def test_systems_without_events_or_rules(events: bool, rules: bool, tmp_path: Path) -> None:
    system = _counter(events, rules)
    three = Op("eq", (V("x"), Const(3)))
    props = [Property("three", "three", "reachable", "reachable", three, at="all"),
             Property("small", "small", "always", "invariant", Op("le", (V("x"), Const(1))),
                      at="all"),
             Property("roll", "roll", "reachable", "reachable", Op("eq", (V("roll"), Const(37))))]
    for row in crosscheck(system, props, tmp_path):
        assert row[2].split(":")[0] == row[1] == row[3].split(":")[0], row
    assert "select(n_roll : -5 .. 40);" in to_promela(system, props[0]) or not events


# ----------------------------------------------------------------------------- random IR

INTS = ("x", "y", "roll")


@st.composite
def ints(draw: st.DrawFn, depth: int) -> LExpr:
    base = st.one_of(st.integers(-3, 3).map(Const), st.sampled_from(INTS).map(V))
    if depth == 0:
        return draw(base)
    kind = draw(st.sampled_from(["base", "add", "sub", "mul", "neg", "min", "max", "ite"]))
    if kind == "base":
        return draw(base)
    if kind == "neg":
        return Op("neg", (draw(ints(depth - 1)),))
    if kind == "ite":
        return Op("ite", (draw(bools(depth - 1)), draw(ints(depth - 1)), draw(ints(depth - 1))))
    n = draw(st.integers(2, 3)) if kind in ("min", "max") else 2
    return Op(kind, tuple(draw(ints(depth - 1)) for _ in range(n)))


@st.composite
def bools(draw: st.DrawFn, depth: int) -> LExpr:
    kind = draw(st.sampled_from(["cmp", "cmp", "const", "not", "and", "or", "implies", "ite"]))
    if kind == "const":
        return draw(st.sampled_from([TRUE, FALSE]))
    if kind == "cmp" or depth == 0:
        op = draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]))
        return Op(op, (draw(ints(min(depth, 1))), draw(ints(0))))
    if kind == "not":
        return Op("not", (draw(bools(depth - 1)),))
    if kind == "ite":
        return Op("ite", tuple(draw(bools(depth - 1)) for _ in range(3)))
    n = 2 if kind == "implies" else draw(st.integers(2, 3))
    return Op(kind, tuple(draw(bools(depth - 1)) for _ in range(n)))


def _clamp(e: LExpr, lo: int, hi: int) -> LExpr:
    return Op("min", (Op("max", (e, Const(lo))), Const(hi)))


@st.composite
def systems(draw: st.DrawFn) -> tuple[System, list[Property]]:
    bound = draw(st.integers(2, 4))
    xlo = draw(st.integers(-2, 0))
    xhi = draw(st.integers(1, 3))
    yhi = draw(st.integers(1, 2))
    rhi = draw(st.integers(1, 2))
    ranges = {"x": (xlo, xhi), "y": (0, yhi)}
    variables = (
        Var("x", xlo, xhi, tuple(sorted(draw(st.sets(st.integers(xlo, xhi), min_size=1,
                                                     max_size=2)))), "int"),
        Var("y", 0, yhi, (0,), "int"),
        Var("roll", 0, rhi, (0,), "input"),
        Var("_seen:x", 0, 1, (0,), "seen"),
        Var("_res", 0, bound, (0,), "res"),
    )

    def effects() -> tuple[Assign, ...]:
        out = []
        for _ in range(draw(st.integers(1, 2))):
            target = draw(st.sampled_from(["x", "y"]))
            out.append(Assign(target, _clamp(draw(ints(2)), *ranges[target])))
        return tuple(out)

    events = tuple(Transition(f"e{i}", f"e{i}", "event", draw(bools(2)),
                              (Assign("_res", Const(0)), *effects()))
                   for i in range(draw(st.integers(1, 3))))
    rules = tuple(Transition(f"r{i}", f"r{i}", "rule", draw(bools(2)), effects())
                  for i in range(draw(st.integers(0, 3))))
    watched = Op("ge", (V("x"), Const(1)))
    system = System("random", variables, events, rules, bound,
                    monitors=(("_seen:x", watched),))
    props = [
        Property("inv", "inv", "always", "invariant", draw(bools(2)),
                 at=draw(st.sampled_from(["stable", "all"]))),
        Property("reach", "reach", "reachable", "reachable", draw(bools(2)),
                 at=draw(st.sampled_from(["stable", "all"]))),
        Property("terminal", "terminal", "terminal", "invariant",
                 Op("implies", (Op("eq", (V("_seen:x"), Const(1))), watched)), at="all"),
        Property("termination", "rules", "termination", "invariant",
                 disj(Op("lt", (V("_res"), Const(bound))), stable(system)), at="all"),
    ]
    return system, props


def crosscheck(system: System, props: list[Property], base: Path) -> list[tuple[str, ...]]:
    """(property id, explore verdict, run_spin verdict, run_spin_all verdict) for every
    property explore decides."""
    oracle = {p.id: explore(system, p).verdict for p in props}
    todo = [p for p in props if oracle[p.id] != "limit"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        batch = pool.submit(run_spin_all, system, todo, workdir=base / "all", cc_opt="-O0",
                            max_depth=100_000, hash_bits=18)
        single = list(pool.map(lambda ip: run_spin(system, ip[1], workdir=base / str(ip[0]),
                                                   cc_opt="-O0", max_depth=100_000,
                                                   hash_bits=18), enumerate(todo)))
    return [(p.id, oracle[p.id], a.verdict + ": " + a.detail, b.verdict + ": " + b.detail)
            for p, a, b in zip(todo, single, batch.result(), strict=True)]


@needs_spin
def test_random_systems_agree_with_the_interpreter(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    checked: list[int] = []
    base = tmp_path_factory.mktemp("ir")

    @settings(max_examples=12, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(systems())
    def agree(case: tuple[System, list[Property]]) -> None:
        system, props = case
        work = Path(tempfile.mkdtemp(dir=base))
        for ident, want, single, batch in crosscheck(system, props, work):
            assert single.startswith(want + ":"), (ident, want, single, to_promela(system))
            assert batch.startswith(want + ":"), (ident, want, batch, to_promela(system))
        checked.append(len(props))

    agree()
    assert len(checked) >= 10
