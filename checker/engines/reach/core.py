"""The exact reachability core of one system: macro-step reachability with BDDs.

Symbolic breadth-first reachability (Burch, Clarke, McMillan, Dill and Hwang, "Symbolic
model checking: 10^20 states and beyond", LICS 1990; McMillan, *Symbolic Model Checking*,
1993) over *canonical stable situations*: a stable state with the bookkeeping (`_happened`,
`_fired`, `_res`) and the inputs forgotten. That is sound because every event re-rolls
every input and resets every bookkeeping variable before anything reads it (checked by
`forgettable`; a variable that fails the check is kept).

One *macro layer* k is a nested fixpoint. From the canonical frontier `C[k-1]`:

    L0 = ⋃_events img_e(C[k-1])                      the states right after an event
    Lj = micro_img(Lj-1 ∧ ¬stable ∧ _res < bound)    one micro step (any rule that may fire)

until `Lj` is empty (`_res` grows by one per micro step, so at most `res_bound + 1` rings).
`A[k] = ⋃ Lj ∧ stable` (the stable states the events lead to, bookkeeping included),
`M[k] = ⋃ Lj` (every micro state of those resolutions), `stuck[k] = ⋃ Lj ∧ ¬stable ∧
_res ≥ bound` (non-termination), and the new frontier `C[k] = canon(A[k]) ∖ ⋃ C[<k]`.
Layer 0 resolves the initial states the same way. The first layer meeting a query gives a
counterexample that is shortest in events by construction (`witness.py` walks back through
the layer's micro rings, recomputed from the frontier before it).

Every layer's sets are kept while the node budget allows. When it would be exceeded, the
per-layer `A[k]`, `M[k]` and `stuck[k]` are dropped (their unions and every frontier `C[k]`
are kept) and the search goes on within the same budget; a dropped layer's sets are then
recomputed from `C[k-1]` when a query needs them (`Core.layer`). Before either, the garbage is
collected and the nodes counted again. The collections, the drop and the stop are decided
by counts of nodes, so every machine makes the same decisions.

When the layered search stops at a budget, `saturate` computes the same sets exactly by
*chaining* (each event's image, resolved, is added to the set before the next event is
applied, sweeps until nothing changes; Roig, Cortadella and Pastor, "Verification of
asynchronous circuits by BDD-based model checking of Petri nets", 1995). It converges in
far fewer sweeps than breadth-first layers (Bushido: 14 sweeps), keeps no rings, and so
answers "proved" / "unreachable" exactly, but gives no shortest traces.

Budgets are counted, never timed: live BDD nodes in the manager (checked after every
micro ring) and macro layers. Exceeding one stops the search with `complete = False`; a
query is then answered only if the layers explored already meet it, else "too-large".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from checker.ir import System, lvars, post_state

from .encode import Encoding, Node
from .relation import Relations

Resolution = Literal["first", "any"]


def forgettable(system: System) -> frozenset[str]:
    """The inputs and bookkeeping variables a stable situation may forget: every event
    assigns (inputs: rolls) them, and no event guard, event effect or monitor reads their
    value from before the event."""
    events = system.events
    read: set[str] = set()
    for ev in events:
        read |= lvars(ev.guard)
        for value in post_state(ev.effects).values():
            read |= lvars(value)
    watched: set[str] = set()
    for _, w in system.monitors:
        watched |= lvars(w)
    out: set[str] = set()
    for v in system.vars:
        if v.kind == "input":
            if v.name not in watched:
                out.add(v.name)
        elif v.kind in ("happened", "fired", "res", "was"):
            assigned = all(v.name in post_state(ev.effects) for ev in events)
            if assigned and v.name not in read and v.name not in watched:
                out.add(v.name)
    return frozenset(out)


@dataclass
class Layer:
    """One macro layer: its new canonical situations and what its macro steps reached."""

    frontier: Node        # C[k]: canonical situations first reached at this layer
    stable: Node          # A[k]
    micro: Node           # M[k]
    stuck: Node           # stuck[k]


@dataclass
class Frontier:
    """A layer whose sets were dropped to stay within the node budget: only `C[k]` is kept
    (`Core.layer` recomputes the rest)."""

    frontier: Node


@dataclass
class Saturated:
    """The exact sets from the chained fixpoint (`Core.saturate`), when it converged."""

    stable_canon: Node     # ⋃ C
    micro: Node            # every reachable micro state
    stable: Node           # every reachable stable state, bookkeeping included
    stuck: Node
    sweeps: int


@dataclass
class Progress:
    complete: bool = False
    layers: int = 0
    reason: str = ""                    # why the search stopped early, "" when complete
    peak_nodes: int = 0
    micro_rings: int = 0
    history: list[tuple[int, int, int]] = field(default_factory=list)  # (layer, new, nodes)


class Core:
    """The reachable sets of one system (see the module docstring)."""

    def __init__(self, system: System, *, resolution: Resolution = "any",
                 node_budget: int = 5_000_000, layer_budget: int = 10_000,
                 reorder: bool = False, enc: Encoding | None = None,
                 keep_layers: bool = True) -> None:
        self.system = system
        self.resolution = resolution
        self.node_budget = node_budget
        self.layer_budget = layer_budget
        self.enc = enc if enc is not None else Encoding(system, reorder=reorder)
        self.rel = Relations(self.enc)
        self.forget = forgettable(system)
        self.keep = [v.name for v in system.vars if v.name not in self.forget]
        self.forget_bits = [b for n in sorted(self.forget) for b in self.enc.cur[n]]
        bdd = self.enc.bdd
        self.stuck_test = ~self.rel.stable & ~self.rel.res_below
        self.layers: list[Layer | Frontier] = []
        self.progress = Progress()
        self.visited: Node = bdd.false      # ⋃ C[k]
        self.all_micro: Node = bdd.false    # ⋃ M[k]
        self.all_stable: Node = bdd.false   # ⋃ A[k]
        self.all_stuck: Node = bdd.false
        self.dropped = not keep_layers      # the per-layer sets were dropped (module doc)
        self.saturated: Saturated | None = None

    # ------------------------------------------------------------------ the fixpoint
    def canon(self, s: Node) -> Node:
        return self.enc.bdd.exist(self.forget_bits, s) if self.forget_bits else s

    def resolve(self, start: Node, *, counted: bool = True) -> tuple[list[Node], bool]:
        """The micro rings L0, L1, ... from `start`; False when the node budget ran out
        (only when `counted`)."""
        bdd = self.enc.bdd
        rings = [start]
        cur = start
        while True:
            unstable = cur & ~self.rel.stable & self.rel.res_below
            if unstable == bdd.false:
                return rings, True
            cur = self.rel.micro_image(unstable, self.resolution)
            if cur == bdd.false:
                return rings, True
            rings.append(cur)
            if not counted:
                continue
            self.progress.micro_rings += 1
            if not self._within_budget():
                return rings, False

    def _within_budget(self, base: int = 0) -> bool:
        n = self.enc.nodes() - base
        self.progress.peak_nodes = max(self.progress.peak_nodes, n)
        if n > self.node_budget and not base:
            len(self.enc.bdd)       # dd: counting the nodes collects the garbage first
            n = self.enc.nodes()
            if n > self.node_budget and not self.dropped:
                self._drop_layers()
                n = self.enc.nodes()
        if n > self.node_budget:
            self.progress.reason = f"node budget {self.node_budget:,} exceeded ({n:,} live)"
            return False
        return True

    def _drop_layers(self) -> None:
        """Keep only every layer's frontier (module docstring); collect the garbage."""
        self.dropped = True
        self.layers = [Frontier(layer.frontier) for layer in self.layers]
        len(self.enc.bdd)           # dd: counting the nodes collects the garbage first

    def layer(self, k: int) -> Layer:
        """Macro layer `k` with its sets (recomputed from `C[k-1]` if they were dropped,
        outside the budget: they were computed once within it)."""
        held = self.layers[k]
        if isinstance(held, Layer):
            return held
        micro = self.enc.bdd.false
        for ring in self.layer_rings(k):
            micro |= ring
        return Layer(held.frontier, micro & self.rel.stable, micro, micro & self.stuck_test)

    def layer_rings(self, k: int) -> list[Node]:
        """The micro rings of macro layer `k` (recomputed, outside the budget: a witness
        needs one layer's rings, already computed once within it)."""
        start = self.enc.initial() if k == 0 else self.rel.event_image(self.layers[k - 1].frontier)
        rings, _ = self.resolve(start, counted=False)
        return rings

    def run(self) -> Progress:
        """Compute the layers until the fixpoint or a budget; idempotent."""
        if self.progress.complete or self.progress.reason:
            return self.progress
        bdd = self.enc.bdd
        start = self.enc.initial() if not self.layers else \
            self.rel.event_image(self.layers[-1].frontier)
        while True:
            rings, ok = self.resolve(start)
            micro = bdd.false
            for ring in rings:
                micro |= ring
            stable = micro & self.rel.stable
            stuck = micro & self.stuck_test
            new = self.canon(stable) & ~self.visited
            self.layers.append(Frontier(new) if self.dropped else
                               Layer(new, stable, micro, stuck))
            self.visited |= new
            self.all_micro |= micro
            self.all_stable |= stable
            self.all_stuck |= stuck
            del rings, micro, stable, stuck
            k = len(self.layers) - 1
            self.progress.layers = len(self.layers)
            self.progress.history.append((k, self.stable_count_of(new), self.enc.nodes()))
            if not ok or not self._within_budget():
                return self.progress
            if new == bdd.false:
                self.progress.complete = True
                return self.progress
            if len(self.layers) >= self.layer_budget:
                self.progress.reason = f"layer budget {self.layer_budget} reached"
                return self.progress
            start = self.rel.event_image(new)

    def saturate(self, sweep_budget: int = 1_000) -> Saturated | None:
        """The exact reachable sets by chaining (module docstring); None if the node or
        sweep budget ran out. Counted by the same node budget as `run`."""
        if self.saturated is not None:
            return self.saturated
        bdd = self.enc.bdd
        canon, micro = bdd.false, bdd.false
        base = self.enc.nodes()      # the layers kept from `run` do not count again

        def settle(start: Node) -> bool:
            nonlocal canon, micro
            rings, _ = self.resolve(start, counted=False)
            for ring in rings:
                micro |= ring
                canon |= self.canon(ring & self.rel.stable)
            return self._within_budget(base)

        if not settle(self.enc.initial()):
            return None
        for sweep in range(1, sweep_budget + 1):
            before = canon
            for r in self.rel.events:
                if not settle(self.rel.image(r, canon)):
                    return None
            if canon == before:     # stable and stuck states are micro states: split once
                self.saturated = Saturated(canon, micro, micro & self.rel.stable,
                                           micro & self.stuck_test, sweep)
                return self.saturated
        self.progress.reason += f"; sweep budget {sweep_budget} reached"
        return None

    def saturated_counts(self) -> tuple[int, int, int] | None:
        """(micro, stable, stuck) counts of the chained fixpoint, None over budget."""
        sat = self.saturate()
        if sat is None:
            return None
        return (self.enc.count(sat.micro), self.stable_count_of(sat.stable_canon),
                self.enc.count(sat.stuck))

    # ------------------------------------------------------------------ counts
    def stable_count_of(self, canonical: Node) -> int:
        return self.enc.count(canonical, len(self.enc.all_cur) - len(self.forget_bits))

    def stable_count(self) -> int:
        """Canonical stable situations reached (bookkeeping and inputs forgotten)."""
        self.run()
        return self.stable_count_of(self.visited)

    def reachable_count(self) -> int:
        """Micro states reached (bookkeeping and inputs included, stable or not)."""
        self.run()
        return self.enc.count(self.all_micro)

    def stuck_count(self) -> int:
        self.run()
        return self.enc.count(self.all_stuck)
