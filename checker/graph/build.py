"""Stage `graph`: a `System` → the ruleset's state machine as a networkx `MultiDiGraph`.

Nodes are the States (one per model instance: `Dead`, `a.Dead`), the phases
(`phase:strategic`) and `ANY` (the source of transitions whose guard mentions no State or
phase). Each edge is one transition touching one State or phase, with attributes

    kind        enter | leave | remove | set (events), implies | cancels | set (rules),
                phase (a move between phases)
    transition  the transition id (`incapacitated-crouches`, `hit@a`)
    source      the spec element id
    by          "event" | "rule"
    on          the events an edge-triggered rule waits for

An edge goes from every State/phase the transition's guard mentions (its trigger source)
to the State it changes. The classification reads the transition's effects: an
assignment that increments a State variable enters it, the constant 0 leaves it, a
decrement removes markers, anything else sets it. `rule_graph` is the dependency graph
between rules (r → s when r writes a variable s's guard reads), whose cycles are
potential trigger loops.
"""

from __future__ import annotations

import networkx as nx

from checker.ir import Const, LExpr, Op, System, Transition, V, lvars, post_state

ANY = "*"


def state_node(system: System, var: str) -> str | None:
    """The node of the State (or phase variable) `var` belongs to, if any."""
    v = system.var(var)
    if v.state is None:
        return None
    return f"{v.model}.{v.state}" if v.model else v.state


def _phase_var(system: System) -> str | None:
    names = {v.name for v in system.vars}
    return "phase" if "phase" in names and system.var("phase").decl == "phases" else None


def classify(var: str, value: LExpr) -> str:
    """How assigning `value` to State variable `var` changes it: enter, leave, remove, set."""
    if isinstance(value, Const):
        return "leave" if int(value.value) == 0 else "enter"
    if _mentions(value, "add", var):
        return "enter"
    if _mentions(value, "sub", var):
        return "remove"
    return "set"


def _mentions(e: LExpr, op: str, var: str) -> bool:
    if isinstance(e, Op):
        if (e.op == op and len(e.args) == 2 and e.args[0] == V(var)
                and isinstance(e.args[1], Const) and int(e.args[1].value) > 0):
            return True
        return any(_mentions(a, op, var) for a in e.args)
    return False


def _pinned_phases(guard: LExpr, phase: str) -> set[int]:
    """Phase indices `guard` requires (`phase == c`, possibly under `and`)."""
    if isinstance(guard, Op):
        if guard.op == "eq" and guard.args[0] == V(phase) and isinstance(guard.args[1], Const):
            return {int(guard.args[1].value)}
        if guard.op == "and":
            out: set[int] = set()
            for a in guard.args:
                out |= _pinned_phases(a, phase)
            return out
    return set()


def _sources(system: System, t: Transition, phase: str | None) -> list[str]:
    nodes = sorted({n for n in (state_node(system, x) for x in lvars(t.guard)
                                if not system.var(x).bookkeeping) if n is not None})
    if phase is not None:
        labels = system.var(phase).labels
        nodes += [f"phase:{labels[i]}" for i in sorted(_pinned_phases(t.guard, phase))]
    return nodes or [ANY]


def build(system: System) -> nx.MultiDiGraph[str]:
    """The state machine of `system` (module docstring)."""
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph(ruleset=system.ruleset)
    g.add_node(ANY, kind="any")
    terminal = {s for p in system.properties if p.kind == "terminal" for s in p.states}
    for v in system.vars:
        node = state_node(system, v.name)
        if node is not None:
            g.add_node(node, kind="state", state=v.state, model=v.model,
                       terminal=v.state in terminal)
    phase = _phase_var(system)
    if phase is not None:
        for label in system.var(phase).labels:
            g.add_node(f"phase:{label}", kind="phase")
    for t in (*system.events, *system.rules):
        srcs = _sources(system, t, phase)
        for var, value in sorted(post_state(t.effects).items()):
            if value == V(var):
                continue
            if var == phase and isinstance(value, Const):
                dst, kind = f"phase:{system.var(phase).labels[int(value.value)]}", "phase"
            else:
                node = state_node(system, var)
                if node is None:
                    continue
                dst, kind = node, classify(var, value)
                if t.kind == "rule":
                    kind = {"enter": "implies", "leave": "cancels"}.get(kind, kind)
            for src in srcs:
                g.add_edge(src, dst, kind=kind, transition=t.id, source=t.source,
                           by=t.kind, on=t.on)
    return g


def rule_graph(system: System) -> nx.DiGraph[str]:
    """r → s when rule r writes a variable that rule s's guard reads (r may trigger s).
    `_fired` bookkeeping is left out (each edge-triggered rule writes its own); `emit`
    (a write to `_happened:E`) does count."""
    g: nx.DiGraph[str] = nx.DiGraph()
    reads = {r.id: {x for x in lvars(r.guard) if system.var(x).kind != "fired"}
             for r in system.rules}
    for r in system.rules:
        g.add_node(r.id, source=r.source)
    for r in system.rules:
        writes = {a.var for a in r.effects if system.var(a.var).kind != "fired"}
        for s in system.rules:
            shared = writes & reads[s.id]
            if shared:
                g.add_edge(r.id, s.id, vars=tuple(sorted(shared)))
    return g
