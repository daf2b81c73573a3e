"""Structural facts about a ruleset's graph (z3-free), and cone-of-influence slicing.

`analyze(system)` → `GraphFacts`: States no transition can enter, trigger cycles among
rules, transitions that leave a terminal State. These are cheap over-approximate warnings
(RP3xx); the engines decide the precise questions (state-reachable, termination), and
`structural_findings` reports a structural fact only where the engine's verdict on that
question does not already settle it the other way.

`cone(system, prop)` → the `System` restricted to what can influence `prop`, a search of
the dependency graph `machine(system).deps`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import networkx as nx

from checker.graph.build import machine, rule_graph
from checker.ir import (
    FALSE,
    Assign,
    Const,
    LExpr,
    Property,
    System,
    Transition,
    disj,
    lvars,
    post_state,
)

MAX_CYCLES = 50


@dataclass(frozen=True)
class GraphFacts:
    unenterable: tuple[str, ...]                  # State nodes nothing enters (and not initial)
    trigger_cycles: tuple[tuple[str, ...], ...]   # rule ids, each cycle from its least id
    terminal_exits: tuple[tuple[str, str], ...]   # (terminal State node, transition id)
    unenterable_states: tuple[str, ...] = ()      # States none of whose nodes is entered


def analyze(system: System, graph: nx.MultiDiGraph[str] | None = None, *,
            cycles: bool = True) -> GraphFacts:
    """The structural facts of `system`'s state machine (`machine(system).graph` unless
    `graph` is given); `cycles=False` skips the trigger-cycle search."""
    g = graph if graph is not None else machine(system).graph
    initially: set[str] = set()
    for v in system.vars:
        if v.state is not None and any(x > 0 for x in v.init):
            initially.add(f"{v.model}.{v.state}" if v.model else v.state)
    unenterable = []
    by_state: dict[str, list[bool]] = {}
    for node, data in g.nodes(data=True):
        if data.get("kind") != "state":
            continue
        kinds = {d["kind"] for _, _, d in g.in_edges(node, data=True)}
        shut = node not in initially and not kinds & {"enter", "implies", "set"}
        by_state.setdefault(data["state"], []).append(shut)
        if shut:
            unenterable.append(node)
    exits = sorted({(dst, d["transition"]) for _, dst, d in g.edges(data=True)
                    if g.nodes[dst].get("terminal") and d["kind"] in ("leave", "cancels",
                                                                      "remove", "set")})
    return GraphFacts(tuple(sorted(unenterable)),
                      trigger_cycles(system) if cycles else (), tuple(exits),
                      tuple(sorted(s for s, shut in by_state.items() if all(shut))))


def trigger_cycles(system: System) -> tuple[tuple[str, ...], ...]:
    """Simple cycles of `rule_graph` (at most MAX_CYCLES), rotated to start at their
    least rule id and sorted: deterministic."""
    out: set[tuple[str, ...]] = set()
    for cyc in nx.simple_cycles(rule_graph(system)):
        i = cyc.index(min(cyc))
        out.add(tuple(cyc[i:] + cyc[:i]))
        if len(out) >= MAX_CYCLES:
            break
    return tuple(sorted(out, key=lambda c: (len(c), c)))


# ============================================================================ slicing

def cone_vars(system: System, prop: Property) -> frozenset[str]:
    """The cone of influence of `prop` (see `cone`): the variables reachable backwards in
    the dependency graph `machine(system).deps` from those `prop` and the event guards
    read, where a rule that writes a cone variable brings in everything it reads and
    writes, an event's post-state value of a cone variable what that value reads, and a
    monitored `_seen` variable what it watches."""
    deps = machine(system).deps
    todo = list(lvars(prop.expr))
    for ev in system.events:
        todo += [x[2:] for x in deps.predecessors(f"e:{ev.id}")]
    cone: set[str] = set()
    while todo:
        x = todo.pop()
        if x in cone:
            continue
        cone.add(x)
        node = f"v:{x}"
        if node not in deps:
            continue
        for p in deps.predecessors(node):
            kind = deps.nodes[p]["kind"]
            if kind == "rule":
                todo += [w[2:] for w in deps.successors(p)]
                todo += [y[2:] for y in deps.predecessors(p)]
            elif kind == "var":
                d = deps.edges[p, node]
                if d["events"] or d["watches"]:
                    todo.append(p[2:])
    return frozenset(cone)


def _sequential(post: dict[str, LExpr]) -> tuple[Assign, ...] | None:
    """Sequential assignments whose `post_state` is `post` (simultaneous values over the
    pre-state): a var is assigned before every var that reads it. None if cyclic."""
    g: nx.DiGraph[str] = nx.DiGraph()
    g.add_nodes_from(sorted(post))
    for var, value in post.items():
        for read in lvars(value) & post.keys():
            if read != var:
                g.add_edge(var, read)
    try:
        order = list(nx.lexicographical_topological_sort(g))
    except nx.NetworkXUnfeasible:
        return None
    return tuple(Assign(v, post[v]) for v in order)


_CONES: dict[tuple[int, int], tuple[System, Property, System]] = {}
_CONES_SIZE = 64


def cone(system: System, prop: Property) -> System:
    """`_cone`, memoized (on identity) so that the engines of one property share one slice
    object, and with it the cached encoding text of `checker.encode`."""
    key = (id(system), id(prop))
    hit = _CONES.get(key)
    if hit is not None and hit[0] is system and hit[1] is prop:
        return hit[2]
    sliced = _cone(system, prop)
    if len(_CONES) >= _CONES_SIZE:
        _CONES.pop(next(iter(_CONES)))
    _CONES[key] = (system, prop, sliced)
    return sliced


def _cone(system: System, prop: Property) -> System:
    """`system` sliced to the cone of influence of `prop`, for PROOFS only.

    The cone C starts with the variables `prop` reads and every event guard's variables
    (conservative: the events kept below are then exact); it is closed under: a rule that
    writes a C variable adds its guard's, written and read variables (so its enabledness,
    "guard holds and something changes", is computed exactly in C); an event that writes
    a C variable adds what that value reads; a monitored `_seen` variable adds what it
    watches. Rules outside C are dropped; each event keeps only its effects on C, and
    events whose effects on C are the same constants are merged into one event guarded by
    the disjunction of their guards. If `_res` is in C (the termination property) the
    system is returned unchanged.

    Why a proof on the slice is sound: the projection onto C of every path of `system` is
    a path of the slice, so the slice's reachable states over-approximate the projections
    of the system's reachable states, and a state formula over C that no reachable slice
    state violates is violated by no reachable system state. Step by step: an event step
    of the system is an event step of the slice (stable ⇒ stable in the slice, whose
    stability looks at fewer rules; the kept effects on C are the same; the inputs are
    re-rolled in both); a micro step firing a rule outside C changes nothing in C (the
    slice idles, with the monitors updated: `encode(..., idle_monitors=True)`); a micro
    step firing a rule r in C is a micro step of the slice firing r, because the
    first-enabled-rule order among C rules is preserved — every rule before r is disabled
    in the system, in particular every C rule before r, and rules outside C never change
    C variables; the micro-step bound is not modelled (an over-approximation: `_res` is
    not in C). A `stable`-only property checks "stable in the slice ∧ ¬expr", which every
    system violation satisfies. Counterexamples are never taken from a slice: BMC and
    the replay always run on the full system.
    """
    c = cone_vars(system, prop)
    if system.res_var in c:
        return system
    sliced = _slice(system, c)
    return system if sliced is None else dataclasses.replace(sliced, properties=(prop,))


_SLICES: dict[tuple[int, frozenset[str]], tuple[System, System | None]] = {}


def _slice(system: System, c: frozenset[str]) -> System | None:
    """`system` sliced to the variables `c` (`_cone`), without properties; memoized, so
    that every property with the same cone shares one slice's variables, events and rules,
    and so its encoding text (`checker.encode.transition_text`): on the seeds, dozens of
    properties share a handful of cones. None: not sliced (`_slice_body`)."""
    key = (id(system), c)
    hit = _SLICES.get(key)
    if hit is not None and hit[0] is system:
        return hit[1]
    sliced = _slice_body(system, c)
    if len(_SLICES) >= _CONES_SIZE:
        _SLICES.pop(next(iter(_SLICES)))
    _SLICES[key] = (system, sliced)
    return sliced


def _slice_body(system: System, c: frozenset[str]) -> System | None:
    """The slice, or None when an event's effects on `c` cannot be kept apart (then the
    system is not sliced)."""
    rules = tuple(r for r in system.rules if {a.var for a in r.effects} & c)
    kept: list[Transition] = []
    merged: dict[tuple[tuple[str, int], ...], list[Transition]] = {}
    for ev in system.events:
        post = {v: e for v, e in post_state(ev.effects).items() if v in c}
        if all(isinstance(e, Const) for e in post.values()):
            key = tuple(sorted((v, int(e.value)) for v, e in post.items()
                               if isinstance(e, Const)))
            merged.setdefault(key, []).append(ev)
            continue
        effects = _sequential(post)
        if effects is None:
            return None
        kept.append(dataclasses.replace(ev, effects=effects))
    inputs_in_cone = any(v.kind == "input" and v.name in c for v in system.vars)
    for key, group in merged.items():
        if not key and not inputs_in_cone:
            continue  # changes nothing in C, not even an input: the idle step covers it
        guard = disj(*(ev.guard for ev in group))
        if guard == FALSE:
            continue
        effects = tuple(Assign(v, Const(val)) for v, val in key)
        ident = group[0].id if len(group) == 1 else "|".join(ev.id for ev in group)
        kept.append(Transition(ident, group[0].source, "event", guard, effects))
    return dataclasses.replace(
        system, vars=tuple(v for v in system.vars if v.name in c), events=tuple(kept),
        rules=rules, properties=(), monitors=tuple(m for m in system.monitors
                                                   if m[0] in c),
        decisions=(), constraints=(), facts=(), stats=(), modifiers=(), permissions=())
