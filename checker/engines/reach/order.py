"""A static variable order for the decision diagrams: FORCE over the system's hyperedges.

FORCE (Aloul, Markov and Sakallah, "FORCE: a fast and easy-to-implement variable-ordering
heuristic", GLSVLSI 2003) places every hyperedge at the centre of gravity of its vertices,
moves every vertex to the mean of its edges' centres, sorts, and repeats (a fixed number of
rounds, or until the order is a fixpoint), keeping the order of least total span (the sum
over edges of last minus first position). The hyperedges are the
supports of event guards and rule conditions and of every non-constant assignment
(the written variable together with what its new value reads) and of every monitor.
Constant assignments (the bookkeeping resets of every event) make no edge: they would tie
every `_fired` variable to every event and mean nothing for the diagram's size.

The engine prototype measured what this buys: one Eldfall diagram went from 35.8 M nodes
with the spec's order to 2,651 nodes with this one (../shared/reference/engine-prototype.md).
"""

from __future__ import annotations

from checker.ir import Const, System, V, lvars, post_state

MAX_ROUNDS = 60


def hyperedges(system: System) -> list[frozenset[str]]:
    """The groups of variables that should sit close together in the order."""
    edges: list[frozenset[str]] = []
    for t in (*system.events, *system.rules):
        guard = lvars(t.guard)
        if len(guard) > 1:
            edges.append(guard)
        for name, value in post_state(t.effects).items():
            if isinstance(value, Const) or value == V(name):
                continue
            edge = frozenset({name}) | lvars(value)
            if t.kind == "rule":
                edge |= guard    # the rule's "enabled" compares the new value with the old
            if len(edge) > 1:
                edges.append(edge)
    for seen, watched in system.monitors:
        edge = frozenset({seen}) | lvars(watched)
        if len(edge) > 1:
            edges.append(edge)
    return edges


def span(order: list[str], edges: list[frozenset[str]]) -> int:
    pos = {n: i for i, n in enumerate(order)}
    total = 0
    for e in edges:
        ps = [pos[n] for n in e]
        total += max(ps) - min(ps)
    return total


def force_order(system: System) -> list[str]:
    """The variable names of `system`, in FORCE order (the best of the rounds by span)."""
    names = [v.name for v in system.vars]
    edges = [e for e in hyperedges(system) if e <= set(names)]
    touching: dict[str, list[int]] = {n: [] for n in names}
    for i, e in enumerate(edges):
        for n in e:
            touching[n].append(i)
    order = list(names)
    best, best_span = list(order), span(order, edges)
    for _ in range(MAX_ROUNDS):
        pos = {n: float(i) for i, n in enumerate(order)}
        cog = [sum(pos[n] for n in e) / len(e) for e in edges]
        tentative = {n: (sum(cog[i] for i in touching[n]) / len(touching[n])
                         if touching[n] else pos[n]) for n in order}
        previous, order = order, sorted(order, key=lambda n: (tentative[n], pos[n]))
        cost = span(order, edges)
        if cost < best_span:
            best, best_span = list(order), cost
        if order == previous:
            break
    return best
