"""Stage `graph`: a `System` → the ruleset's state machine as a networkx `MultiDiGraph`,
and the read/write dependency graph of its rules, events and variables.

`machine(system)` builds both once per `System` object (memoized on identity) and every
later stage reads them from there: the Z3 encoder takes the transitions it encodes from the
state machine's edges (`clauses`), the cone-of-influence slice is a search of the
dependency graph, the structural findings (RP3xx) and the report's state diagram walk the
same edges.

State machine nodes are the States (one per model instance: `Dead`, `a.Dead`; marker
counts are State nodes too), the phases (`phase:strategic`, one node per value of the
enumerated phase variable), one node per other variable (`var:hp`, `var:_fired:r@a`) and
`ANY` (the source of transitions whose guard mentions no State or phase). Each edge is one
transition's assignment(s) to one variable, with attributes

    kind        enter | leave | remove | set | same (events), implies | cancels | remove |
                set | same (rules), phase (a move between phases), assign (a non-State
                variable)
    transition  the transition id (`incapacitated-crouches`, `hit@a`)
    source      the spec element id
    by          "event" | "rule"
    on          the events an edge-triggered rule waits for
    clause      the IR `Transition`;  guard: its guard;  index: its position in `clauses`
    var         the variable assigned;  assigns: ((position in the effects, `Assign`), ...)

An edge goes from every State/phase the transition's guard mentions (its trigger source)
to the node of the variable it changes. The classification reads the transition's
post-state value of the variable: an increment of a State variable enters it, the constant
0 leaves it, a decrement removes markers, the variable itself changes nothing (`same`,
kept: a later assignment may read an intermediate value), anything else sets it.
`rule_graph` is the dependency graph between rules (r → s when r writes a variable s's
guard reads), whose cycles are potential trigger loops.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import networkx as nx

from checker.ir import (
    FALSE,
    Assign,
    Const,
    LExpr,
    Op,
    System,
    Transition,
    V,
    lvars,
    post_state,
    substitute,
)

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


def var_node(system: System, var: str) -> str:
    """The state machine node of variable `var` (its State's, else its own)."""
    return state_node(system, var) or f"var:{var}"


def build(system: System) -> nx.MultiDiGraph[str]:
    """The state machine of `system` (module docstring), built afresh: prefer `machine`."""
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph(
        ruleset=system.ruleset, clauses=(*system.events, *system.rules),
        n_events=len(system.events))
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
    for v in system.vars:
        if state_node(system, v.name) is None:
            g.add_node(f"var:{v.name}", kind="var", var=v.name)
    for index, t in enumerate(g.graph["clauses"]):
        srcs = _sources(system, t, phase)
        post = post_state(t.effects)
        positions: dict[str, list[tuple[int, Assign]]] = {}
        for pos, a in enumerate(t.effects):
            positions.setdefault(a.var, []).append((pos, a))
        for var, assigns in positions.items():
            value = post[var]
            if var == phase and isinstance(value, Const):
                dst, kind = f"phase:{system.var(phase).labels[int(value.value)]}", "phase"
            elif state_node(system, var) is None:
                dst, kind = f"var:{var}", "assign"
            else:
                dst = var_node(system, var)
                kind = "same" if value == V(var) else classify(var, value)
                if t.kind == "rule":
                    kind = {"enter": "implies", "leave": "cancels"}.get(kind, kind)
            for src in srcs:
                g.add_edge(src, dst, kind=kind, transition=t.id, source=t.source,
                           by=t.kind, on=t.on, clause=t, guard=t.guard, index=index,
                           var=var, assigns=tuple(assigns))
    return g


def clauses(g: nx.MultiDiGraph[str]) -> tuple[tuple[Transition, ...], tuple[Transition, ...]]:
    """The (events, rules) the state machine `g` carries, in spec order: each transition
    with the assignments of the edges that are still in `g` (an assignment is kept while
    at least one of its edges is). A transition none of whose edges is left keeps its
    guard and no effects (an event that changes nothing, a rule that is never enabled),
    so event numbering is unchanged. Unmodified, `g` gives back the system's own
    `Transition` objects."""
    kept: dict[int, set[tuple[int, Assign]]] = {}
    for _, _, d in g.edges(data=True):
        kept.setdefault(d["index"], set()).update(d["assigns"])
    out: list[Transition] = []
    for index, t in enumerate(g.graph["clauses"]):
        effects = tuple(a for _, a in sorted(kept.get(index, ()), key=lambda pa: pa[0]))
        out.append(t if effects == t.effects else dataclasses.replace(t, effects=effects))
    n = g.graph["n_events"]
    return tuple(out[:n]), tuple(out[n:])


def dependencies(system: System) -> nx.DiGraph[str]:
    """The read/write dependency graph: nodes `v:x` (variables), `r:id` (rules), `e:id`
    (events). `v:x → r:id` when the rule reads x (attributes `guard`, `value`: in its guard,
    in an assigned value), `r:id → v:w` when it writes w; `v:x → e:id` when an event's
    guard reads x; `v:x → v:w` when an event's post-state value of w reads x (`events`:
    those events) or a monitor `w` watches x (`watches`); `e:id → v:w` when it writes w."""
    g: nx.DiGraph[str] = nx.DiGraph()
    for v in system.vars:
        g.add_node(f"v:{v.name}", kind="var", var=v.name, fired=v.kind == "fired")
    for r in system.rules:
        node = f"r:{r.id}"
        g.add_node(node, kind="rule", rule=r.id, source=r.source)
        for x in lvars(r.guard):
            g.add_edge(f"v:{x}", node, guard=True, value=False)
        for a in r.effects:
            for x in lvars(a.value):
                if g.has_edge(f"v:{x}", node):
                    g.edges[f"v:{x}", node]["value"] = True
                else:
                    g.add_edge(f"v:{x}", node, guard=False, value=True)
            g.add_edge(node, f"v:{a.var}", rel="writes")
    for ev in system.events:
        node = f"e:{ev.id}"
        g.add_node(node, kind="event", event=ev.id, source=ev.source)
        for x in lvars(ev.guard):
            g.add_edge(f"v:{x}", node, guard=True, value=False)
        for var, value in post_state(ev.effects).items():
            g.add_edge(node, f"v:{var}", rel="writes")
            for x in lvars(value):
                if not g.has_edge(f"v:{x}", f"v:{var}"):
                    g.add_edge(f"v:{x}", f"v:{var}", events=(), watches=False)
                g.edges[f"v:{x}", f"v:{var}"]["events"] += (ev.id,)
    for seen, watched in system.monitors:
        for x in lvars(watched):
            if not g.has_edge(f"v:{x}", f"v:{seen}"):
                g.add_edge(f"v:{x}", f"v:{seen}", events=(), watches=False)
            g.edges[f"v:{x}", f"v:{seen}"]["watches"] = True
    return g


_FOLD = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
         "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
         "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}


def fold(e: LExpr) -> LExpr:
    """`e` with its constant parts evaluated (`and` is False as soon as one part is, `or`
    True): a guard that folds to `FALSE` cannot hold."""
    if not isinstance(e, Op):
        return e
    args = tuple(fold(a) for a in e.args)
    consts = [a.value for a in args if isinstance(a, Const)]
    if e.op == "and" and any(c is False or c == 0 for c in consts):
        return FALSE
    if e.op == "or" and any(c is True or (c != 0 and c is not False) for c in consts):
        return Const(True)
    if e.op == "ite" and isinstance(args[0], Const):
        return args[1] if args[0].value else args[2]
    if len(consts) != len(args):
        return Op(e.op, args)
    vals = [int(c) for c in consts]
    if e.op in _FOLD and len(vals) == 2:
        return Const(_FOLD[e.op](*vals))
    if e.op in ("min", "max"):
        return Const((min if e.op == "min" else max)(vals))
    if e.op == "not":
        return Const(not vals[0])
    if e.op == "neg":
        return Const(-vals[0])
    if e.op in ("and", "or"):
        return Const(all(vals) if e.op == "and" else any(vals))
    if e.op == "implies":
        return Const(not vals[0] or bool(vals[1]))
    return Op(e.op, args)


def rule_graph(system: System) -> nx.DiGraph[str]:
    """r → s when rule r writes a variable that rule s's guard reads (r may trigger s),
    unless s's guard cannot hold right after r fires (it folds to false over r's
    post-state: r disables s, as a rule that leaves the State its condition requires
    disables itself). `_fired` bookkeeping is left out (each edge-triggered rule writes
    its own); `emit` (a write to `_happened:E`) does count. Read off
    `machine(system).deps`."""
    deps = machine(system).deps
    by_id = {r.id: r for r in system.rules}
    g: nx.DiGraph[str] = nx.DiGraph()
    for r in system.rules:
        g.add_node(r.id, source=r.source)
    for r in system.rules:
        post = post_state(r.effects)
        writes = [w for w in deps.successors(f"r:{r.id}") if not deps.nodes[w]["fired"]]
        shared: dict[str, set[str]] = {}
        for w in writes:
            for node in deps.successors(w):
                if deps.nodes[node]["kind"] == "rule" and deps.edges[w, node].get("guard"):
                    shared.setdefault(deps.nodes[node]["rule"], set()).add(w[2:])
        for s in system.rules:     # in spec order, as before
            if s.id in shared and fold(substitute(by_id[s.id].guard, post)) != FALSE:
                g.add_edge(r.id, s.id, vars=tuple(sorted(shared[s.id])))
    return g


@dataclass(frozen=True)
class Machine:
    """A system's state machine (`build`) and dependency graph (`dependencies`)."""

    system: System
    graph: nx.MultiDiGraph[str]
    deps: nx.DiGraph[str]


_MACHINES: dict[int, Machine] = {}
_MACHINES_SIZE = 128


def machine(system: System) -> Machine:
    """The graphs of `system`, built once per `System` object (memoized on identity)."""
    hit = _MACHINES.get(id(system))
    if hit is not None and hit.system is system:
        return hit
    m = Machine(system, build(system), dependencies(system))
    if len(_MACHINES) >= _MACHINES_SIZE:
        _MACHINES.pop(next(iter(_MACHINES)))
    _MACHINES[id(system)] = m
    return m
