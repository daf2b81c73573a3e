"""The Z3 encoding against the reference interpreter: same initial states, same stable
states, same successors (docs/semantics.md implemented twice must agree), plus the pieces:
time-indexed names, SMT-LIB text, formulas, solvers."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3  # noqa: TID251 - the encoding's own tests inspect its z3 terms
from hypothesis import given, settings
from strategies import rulesets, spec_system

from checker.encode import Answer, Encoding, at_step, encode, make_solver, stop_reason
from checker.encode import formulas as f
from checker.encode.system import transition_text
from checker.encode.terms import SmtText, parse
from checker.interpret import Interpreter, State, reachable_states
from checker.ir import Const, Op, System, V
from checker.options import Options
from checker.results import StopReason
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = Options()


def mini() -> System:
    return load_ruleset(ROOT / "docs" / "example-mini.yaml").system


def pin(enc: Encoding, state: State, k: int = 0) -> list[z3.BoolRef]:
    step = enc.state_at(k)
    return [step[v.name] == x for v, x in zip(enc.system.vars, state, strict=True)]


def encoded_successors(enc: Encoding, state: State) -> set[State]:
    """Every next state the encoding allows from `state`, idle steps left out."""
    solver = make_solver(enc.ctx, OPTIONS)
    solver.add(enc.trans, enc.sel != enc.idle, *pin(enc, state))
    out: set[State] = set()
    while True:
        answer, _ = solver.check()
        if answer is not Answer.SAT:
            assert answer is Answer.UNSAT
            return out
        model = solver.model()
        nxt = tuple(model.eval(enc.nxt[v.name], model_completion=True).as_long()
                    for v in enc.system.vars)
        out.add(nxt)
        solver.add(z3.Or([enc.nxt[v.name] != x
                          for v, x in zip(enc.system.vars, nxt, strict=True)]))


def holds(enc: Encoding, formula: z3.BoolRef, state: State) -> bool:
    pairs = list(zip([enc.cur[v.name] for v in enc.system.vars],
                     [z3.IntVal(x, enc.ctx) for x in state], strict=True))
    return z3.is_true(z3.simplify(z3.substitute(formula, *pairs)))


def agree_with_interpreter(system: System, every: int = 1) -> None:
    interp = Interpreter(system)
    enc = encode(system, z3.Context())
    states, complete = reachable_states(system, max_states=5000)
    assert complete
    for s in sorted(interp.initial_states()):
        assert holds(enc, enc.init, s)
    for i, s in enumerate(sorted(states)):
        assert holds(enc, enc.stable, s) == interp.is_stable(s), s
        if i % every == 0:
            expected = {n for _, _, n in interp.successors(s)}
            assert encoded_successors(enc, s) == expected, s


def test_at_step_names() -> None:
    assert at_step("hp", 3) == "hp@3"
    assert at_step("_fired:r@a", 0) == "_fired:r@a@0"


def test_mini_encoding_agrees_with_the_interpreter() -> None:
    agree_with_interpreter(mini(), every=7)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(rulesets())
def test_random_encodings_agree_with_the_interpreter(text: str) -> None:
    system = spec_system(text)
    agree_with_interpreter(system)


def test_initial_states_are_exactly_the_interpreters() -> None:
    system = mini()
    enc = encode(system, z3.Context())
    solver = make_solver(enc.ctx, OPTIONS)
    solver.add(enc.init)
    found: set[State] = set()
    while solver.check()[0] is Answer.SAT:
        model = solver.model()
        s = tuple(model.eval(enc.cur[v.name], model_completion=True).as_long()
                  for v in system.vars)
        found.add(s)
        solver.add(z3.Not(z3.And(pin(enc, s))))
    assert found == set(Interpreter(system).initial_states())


def test_transition_text_is_built_once_per_system() -> None:
    system = mini()
    assert transition_text(system) is transition_text(system)
    assert transition_text(system, idle_monitors=True) is not transition_text(system)


def test_smt_text_translates_every_operator() -> None:
    ctx = z3.Context()
    x, y = z3.Int("x", ctx), z3.Int("y", ctx)
    text = SmtText({"x": "vx", "y": "vy"}, "t")
    e = Op("and", (Op("eq", (Op("min", (V("x"), Const(-2), V("y"))), Const(-2))),
                   Op("le", (Op("ite", (Op("gt", (V("y"), Const(0))), V("y"),
                                        Op("neg", (V("y"),)))), Const(3))),
                   Op("implies", (Op("ne", (V("x"), Const(1))), Const(True)))))
    (term,) = parse(ctx, text.defs, [text(e)], {"vx": x, "vy": y})
    solver = z3.Solver(ctx=ctx)
    solver.add(z3.Not(term == z3.And(z3.If(z3.If(x <= -2, x, -2) <= y, z3.If(x <= -2, x, -2),
                                                y) == -2,
                                         z3.If(y > 0, y, -y) <= 3)))
    assert solver.check() == z3.unsat


def test_bmc_formula_is_satisfiable_exactly_from_the_shortest_depth() -> None:
    system = mini()
    p = next(q for q in system.properties if q.id == "state-reachable:Crouched")
    enc = encode(system, z3.Context())
    target = enc.target(p)
    answers = []
    for k in range(6):
        solver = make_solver(enc.ctx, OPTIONS)
        solver.add(f.bmc(enc, target, k))
        answers.append(solver.check()[0])
    first = answers.index(Answer.SAT)
    assert all(a is Answer.UNSAT for a in answers[:first])
    assert all(a is Answer.SAT for a in answers[first:])      # monotone: the idle step


def test_induction_formulas() -> None:
    system = mini()
    p = next(q for q in system.properties if q.id == "no-stacking:Crouched")
    enc = encode(system, z3.Context())
    safe = z3.Not(enc.target(p))
    for formula in (f.base_case(enc, safe), f.induction_step(enc, safe),
                    f.certificate_check(enc, safe, safe), f.houdini_step(enc, [safe])):
        solver = make_solver(enc.ctx, OPTIONS)
        solver.add(formula)
        assert solver.check()[0] is Answer.UNSAT


def test_solver_limits_answer_unknown_with_a_reason() -> None:
    system = mini()
    enc = encode(system, z3.Context())
    solver = make_solver(enc.ctx, Options(rlimit=1))
    solver.add(f.bmc(enc, enc.lexpr(Op("ge", (V("Dead"), Const(1)))), 8))
    answer, why = solver.check()
    assert answer is Answer.UNKNOWN and stop_reason(why) is StopReason.RESOURCE_LIMIT
    assert stop_reason("timeout") is StopReason.TIMEOUT
    assert stop_reason("incomplete quantifiers") is StopReason.INCOMPLETE
