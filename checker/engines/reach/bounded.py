"""The counted layered core: macro-step reachability with the resolution counter in the sets.

This is the exact core for a system whose resolutions can reach `res_bound` (the fast core,
`core.py`, finds that with its heights and hands over: without the counter its sets would
hold states past the bound), for the former spec-order resolution (`"first"`, kept for
benchmarks) and for the behaviour diff of two versions, which compares layers in one shared
manager (`checker.engines.behaviour`).

Symbolic breadth-first reachability over *canonical stable situations* (`core.py`), with
`_res` in every micro state. One *macro layer* k is a nested fixpoint. From the canonical
frontier `C[k-1]`:

    L0 = ⋃_events img_e(C[k-1])                      the states right after an event
    Lj = micro_img(Lj-1 ∧ ¬stable ∧ _res < bound)    one micro step (any rule that may fire)

until `Lj` is empty (`_res` grows by one per micro step, so at most `res_bound + 1` rings).
`M[k] = ⋃ Lj` (every micro state of those resolutions), and the new frontier
`C[k] = canon(M[k] ∧ stable) ∖ ⋃ C[<k]`. Layer 0 resolves the initial states the same way.
Each layer keeps its frontier `C[k]` and the *cumulative* set `R[k] = ⋃_{i≤k} M[i]`; the
stable and stuck states are `R[k] ∧ stable` and `R[k] ∧ ¬stable ∧ _res ≥ bound`. The first
layer meeting a query is found by bisection over the monotone `R[k]`, and gives a
counterexample that is shortest in events by construction (`witness.py`).

Every layer's cumulative set is kept while the node budget allows. When it would be
exceeded, they are dropped (the frontiers `C[k]` and the last `R` are kept) and the search
goes on within the same budget; a dropped `R[k]` is recomputed from the frontiers when a
query needs it (`BoundedCore.reached`).

When the layered search stops at a budget, `saturate` computes the same sets exactly by
chaining (`core.py`), which keeps no rings and so answers "proved" / "unreachable" exactly,
but gives no shortest traces.

Budgets are counted, never timed: live BDD nodes in the manager (checked after every
micro ring) and macro layers. Exceeding one stops the search with `complete = False`; a
query is then answered only if the layers explored already meet it, else "too-large".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from checker.ir import System

from .core import SIFT_AT, CoreBase, Layer, Progress, Resolution, forgettable
from .encode import Encoding, Node
from .relation import Relations


@dataclass
class Saturated:
    """The exact sets from the chained fixpoint (`BoundedCore.saturate`), when it converged."""

    stable_canon: Node     # ⋃ C
    micro: Node            # every reachable micro state
    stable: Node           # every reachable stable state, bookkeeping included
    stuck: Node
    sweeps: int


class BoundedCore(CoreBase):
    """The reachable sets of one system, the resolution counter included (module
    docstring)."""

    counted = True

    def __init__(self, system: System, *, resolution: Resolution = "any",
                 node_budget: int = 5_000_000, layer_budget: int = 10_000,
                 reorder: bool = False, enc: Encoding | None = None,
                 keep_layers: bool = True, sift_at: int = SIFT_AT) -> None:
        """`sift_at`: live nodes at which the groups are first sifted (0: never; a core in
        a manager shared with other encodings, `checker.engines.behaviour`, never sifts)."""
        self.system = system
        self.resolution = resolution
        self.node_budget = node_budget
        self.layer_budget = layer_budget
        self.enc = enc if enc is not None else Encoding(system, reorder=reorder)
        self.sift_next = sift_at if enc is None and sift_at > 0 else 0   # 0: never
        self.sifted = 0                     # live nodes after the last sifting
        self.rel = Relations(self.enc)
        self.forget = forgettable(system)
        self.keep = [v.name for v in system.vars if v.name not in self.forget]
        self.forget_bits = [b for n in sorted(self.forget) for b in self.enc.cur[n]]
        bdd = self.enc.bdd
        self.layers: list[Layer] = []
        self.progress = Progress()
        self.visited: Node = bdd.false      # ⋃ C[k]
        self.all_micro: Node = bdd.false    # R[last]
        self.dropped = not keep_layers      # the cumulative sets were dropped (module doc)
        self.saturated: Saturated | None = None
        self._derived: dict[str, Node] = {}

    @property
    def all_stable(self) -> Node:
        """Every reachable stable state found so far, bookkeeping included."""
        return self._derive("stable", self.rel.stable_part)

    @property
    def all_stuck(self) -> Node:
        """Every reachable stuck state found so far (unstable at `res_bound`)."""
        return self._derive("stuck", self.rel.stuck_part)

    def _derive(self, key: str, fn: Callable[[Node], Node]) -> Node:
        hit = self._derived.get(key)
        if hit is None or self._derived.get("of") != self.all_micro:
            self._derived = {"of": self.all_micro}
            hit = self._derived[key] = fn(self.all_micro)
        return hit

    # ------------------------------------------------------------------ the fixpoint
    def canon(self, s: Node) -> Node:
        return self.enc.bdd.exist(self.forget_bits, s) if self.forget_bits else s

    def resolve(self, start: Node, *, counted: bool = True) -> tuple[Node, bool]:
        """Every micro state of the resolutions from `start` (the union of the rings);
        False when the node budget ran out (only when `counted`)."""
        bdd = self.enc.bdd
        micro = cur = start
        while True:
            unstable = self.rel.unstable_part(cur & self.rel.res_below)
            if unstable == bdd.false:
                return micro, True
            cur = self.rel.micro_image(unstable, self.resolution)
            if cur == bdd.false:
                return micro, True
            micro |= cur
            if not counted:
                continue
            self.progress.micro_rings += 1
            if not self._within_budget():
                return micro, False

    def _within_budget(self, base: int = 0) -> bool:
        n = self.enc.nodes() - base
        self.progress.peak_nodes = max(self.progress.peak_nodes, n)
        if self.sift_next and n >= self.sift_next:
            n = self._sift() - base
        if n > self.node_budget and not base:
            len(self.enc.bdd)       # dd: counting the nodes collects the garbage first
            n = self.enc.nodes()
            if n > self.node_budget and not self.dropped:
                self._drop_layers()
                n = self.enc.nodes()
        if n > self.node_budget and self.sift_next and n > self.sifted * 5 // 4:
            n = self._sift() - base     # a last sifting before giving up, if it grew since
        if n > self.node_budget:
            self.progress.reason = f"node budget {self.node_budget:,} exceeded ({n:,} live)"
            return False
        return True

    def _drop_layers(self) -> None:
        """Keep only every layer's frontier (module docstring); collect the garbage."""
        self.dropped = True
        for layer in self.layers:
            layer.reached = None
        len(self.enc.bdd)           # dd: counting the nodes collects the garbage first

    def reached(self, k: int) -> Node:
        """`R[k]`: every micro state reached within macro layers 0..k (false for k < 0;
        recomputed from the frontiers, outside the budget, if it was dropped)."""
        if k < 0:
            return self.enc.bdd.false
        held = self.layers[k].reached
        return held if held is not None else self.reached_upto(k)[k]

    def frontier(self, k: int) -> Node:
        return self.layers[k].frontier

    def initial(self) -> Node:
        return self.enc.initial()

    @property
    def state_names(self) -> list[str]:
        return [v.name for v in self.system.vars]

    def first_layer(self, target: Node) -> int | None:
        """The first macro layer whose cumulative set meets `target` (a set of reached
        states), by bisection over the monotone `R[k]`; None when none does."""
        false = self.enc.bdd.false
        if target == false or not self.layers:
            return None
        lo, hi = 0, len(self.layers) - 1
        if self.reached(hi) & target == false:
            return None
        if self.dropped:                       # one pass over the recomputed sets
            return len(self.reached_upto(hi, stop=target)) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.reached(mid) & target != false:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def fresh(self, k: int) -> Node:
        """The micro states first reached in layer k: `R[k] ∖ R[k-1]`."""
        reached = self.reached_upto(k)
        return reached[k] & ~reached[k - 1] if k else reached[0]

    def reached_upto(self, k: int, stop: Node | None = None) -> list[Node]:
        """`[R[0], ..., R[k]]`, the dropped ones recomputed in one pass from the frontiers
        (outside the budget); with `stop`, the list ends at the first `R[i]` meeting it.
        Once the layers are final (the run completed or stopped), a recomputed set is kept
        again: the queries after the run (every property, every witness walk) would
        otherwise each redo the whole resolution of every layer (on Bushido, minutes per
        query). The budget decided the run; the sets kept afterwards share their nodes
        with the frontiers and with each other."""
        final = self.progress.complete or bool(self.progress.reason)
        out: list[Node] = []
        acc = self.enc.bdd.false
        for i in range(k + 1):
            held = self.layers[i].reached
            if held is not None:
                acc = held
            else:
                start = self.enc.initial() if i == 0 else \
                    self.rel.event_image(self.layers[i - 1].frontier)
                micro, _ = self.resolve(start, counted=False)
                acc = acc | micro
                if final:
                    self.layers[i].reached = acc
            out.append(acc)
            if stop is not None and acc & stop != self.enc.bdd.false:
                break
        return out

    def run(self) -> Progress:
        """Compute the layers until the fixpoint or a budget; idempotent."""
        if self.progress.complete or self.progress.reason:
            return self.progress
        bdd = self.enc.bdd
        start = self.enc.initial() if not self.layers else \
            self.rel.event_image(self.layers[-1].frontier)
        while True:
            micro, ok = self.resolve(start)
            new = self.canon(self.rel.stable_part(micro)) & ~self.visited
            self.all_micro |= micro
            del micro
            self.layers.append(Layer(new, None if self.dropped else self.all_micro))
            self.visited |= new
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
            reached, _ = self.resolve(start, counted=False)
            micro |= reached
            canon |= self.canon(self.rel.stable_part(reached))
            return self._within_budget(base)

        if not settle(self.enc.initial()):
            return None
        for sweep in range(1, sweep_budget + 1):
            before = canon
            for r in self.rel.events:
                if not settle(self.rel.image(r, canon)):
                    return None
            if canon == before:     # stable and stuck states are micro states: split once
                stuck = self.rel.stuck_part(micro)
                self.saturated = Saturated(canon, micro, self.rel.stable_part(micro), stuck,
                                           sweep)
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
    def reachable_count(self) -> int:
        """Micro states reached (bookkeeping and inputs included, stable or not)."""
        self.run()
        return self.enc.count(self.all_micro)

    def stuck_count(self) -> int:
        self.run()
        return self.enc.count(self.all_stuck)
