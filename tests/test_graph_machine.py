"""The state machine built once per system (`checker.graph.machine`) and what reads it:
the Z3 encoding walks its edges, the structural findings RP301–RP303 come from it."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3  # noqa: TID251 - checks the encoding built off the graph
from strategies import load_spec
from test_graph import LOOP, mini

from checker.encode import encode
from checker.encode.system import transition_text
from checker.graph import clauses, machine, rule_graph, structural_findings
from checker.graph.build import fold
from checker.ir import FALSE, Const, Op, V
from checker.results import Finding, PropertyResult, Status, Step, Trace

pytestmark = pytest.mark.unit


def reachable_within(system, graph, var: str, k: int) -> bool:
    """BMC: can `var` be positive within `k` steps of the encoding over `graph`?"""
    ctx = z3.Context()
    enc = encode(system, ctx, graph=graph)
    solver = z3.Solver(ctx=ctx)
    solver.add(enc.init)
    for i in range(k):
        solver.add(enc.trans_at(i))
    solver.add(z3.Or([enc.state_at(i)[var] > 0 for i in range(k + 1)]))
    return solver.check() == z3.sat


def test_machine_is_built_once_and_carries_every_clause() -> None:
    system = mini()
    m = machine(system)
    assert machine(system) is m
    events, rules = clauses(m.graph)
    assert events == system.events and rules == system.rules
    assert all(a is b for a, b in zip(events + rules, system.events + system.rules,
                                      strict=True))
    # every assignment of every clause is on an edge, with its clause and guard
    on_edges = {(d["transition"], a) for _, _, d in m.graph.edges(data=True)
                for _, a in d["assigns"]}
    assert on_edges == {(t.id, a) for t in (*system.events, *system.rules) for a in t.effects}
    d = next(d for _, dst, d in m.graph.edges(data=True) if d["transition"] == "suffer-wound"
             and dst == "var:hp")
    assert d["clause"].id == "suffer-wound" and d["guard"] == d["clause"].guard
    # the dependency graph: the rule reads hp and Dead, writes Incapacitated
    assert m.deps.has_edge("v:hp", "r:incapacitated-at-0")
    assert m.deps.has_edge("r:incapacitated-at-0", "v:Incapacitated")


def test_removing_an_edge_changes_the_encoding() -> None:
    system = mini()
    full = machine(system).graph
    assert transition_text(system, graph=full) == transition_text(system)
    assert reachable_within(system, full, "Bleeding", 2)
    cut = full.copy()
    into = [(a, b, key) for a, b, key, d in cut.edges(keys=True, data=True)
            if b == "Bleeding" and d["transition"] == "become-bleeding"]
    assert into
    cut.remove_edges_from(into)
    events, _ = clauses(cut)
    assert next(e for e in events if e.id == "become-bleeding").effects == tuple(
        a for a in next(e for e in system.events if e.id == "become-bleeding").effects
        if a.var != "Bleeding")
    assert transition_text(system, graph=cut).trans != transition_text(system).trans
    assert not reachable_within(system, cut, "Bleeding", 4)   # nothing else enters it
    assert reachable_within(system, cut, "Flying", 2)          # the rest is unchanged


def test_fold_and_self_disabling_rules() -> None:
    assert fold(Op("ge", (Const(0), Const(1)))) == FALSE
    assert fold(Op("and", (V("x"), Op("ge", (Const(0), Const(1)))))) == FALSE
    assert fold(Op("ge", (V("x"), Const(1)))) == Op("ge", (V("x"), Const(1)))


def test_rule_graph_drops_edges_a_rule_falsifies(tmp_path: Path) -> None:
    g = rule_graph(load_spec(tmp_path, LOOP))
    # burning-soaks leaves Burning, which its own condition requires: no self-loop
    assert not g.has_edge("burning-soaks@a", "burning-soaks@a")
    assert g.has_edge("burning-soaks@a", "soaked-reignites@a")


def result(system, pid: str, status: Status, trace: Trace | None = None
           ) -> PropertyResult:
    p = next(q for q in system.properties if q.id == pid)
    return PropertyResult(p.id, p.kind, status, None, "timeout" if status is Status.UNKNOWN
                          else "", trace, p.states, p.source, p.text)


def test_structural_findings_follow_the_deciding_verdicts(tmp_path: Path) -> None:
    system = load_spec(tmp_path, LOOP)
    terminal = next(p.id for p in system.properties if p.kind == "terminal")
    proved = [result(system, terminal, Status.PROVED), result(system, "termination",
                                                             Status.PROVED)]
    assert structural_findings(system, proved, []) == []
    loop = Trace((Step("ignite@a", fired=("burning-soaks@a", "soaked-reignites@a",
                                          "burning-soaks@a", "soaked-reignites@a")),))
    bad = [result(system, terminal, Status.VIOLATED),
           result(system, "termination", Status.VIOLATED, loop)]
    got = {(f.code, f.rules, f.states) for f in structural_findings(system, bad, [])}
    assert got == {("RP303", ("revive",), ("Dead",)),
                   ("RP302", ("burning-soaks", "soaked-reignites"), ())}
    # termination undecided: the cycle is reported as a possible loop
    unknown = [result(system, "termination", Status.UNKNOWN)]
    (f,) = structural_findings(system, unknown, [])
    assert f.kind == "trigger-cycle" and "not proved (timeout)" in f.message


def test_unenterable_state_is_the_unreachable_finding() -> None:
    system = mini()
    semantic = Finding("unreachable-state", ("states:Dead",), ("Dead",), "engine wording")
    violated = [result(system, "state-reachable:Dead", Status.VIOLATED)]
    (f,) = structural_findings(system, violated, [semantic])
    assert (f.kind, f.rules, f.states) == ("unreachable-state", ("states:Dead",), ("Dead",))
    assert "no event or rule enters it" in f.message
    assert f.fingerprint("eldfall") == semantic.fingerprint("eldfall")
    unknown = [result(system, "state-reachable:Dead", Status.UNKNOWN)]
    (g,) = structural_findings(system, unknown, [])
    assert g.code == "RP301" and g.message == f.message
    # reachable States (Bleeding: entered by an event) give nothing
    assert structural_findings(system, [result(system, "state-reachable:Bleeding",
                                               Status.UNKNOWN)], []) == []
