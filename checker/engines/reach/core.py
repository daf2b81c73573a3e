"""The exact reachability core of one system: saturation over whole macro steps, with BDDs.

Symbolic reachability (Burch, Clarke, McMillan, Dill and Hwang, "Symbolic model checking:
10^20 states and beyond", LICS 1990) over *canonical stable situations*: a stable state with
the bookkeeping (`_happened`, `_fired`, `_was`) and the inputs forgotten, which is sound
because every event re-rolls every input and resets every bookkeeping variable before
anything reads it (checked by `forgettable`; a variable that fails the check is kept).

**The resolution counter is not in the sets.** `_res` only counts micro steps so that a
resolution that never settles is cut at `res_bound` (docs/semantics.md). The core computes
every set *without* it (the relations of `Relations(enc, counter=False)` leave its bits
alone, and no set depends on them), and decides afterwards whether the counter could ever
matter: with `F_0` the reachable unstable states and `F_{i+1}` the reachable states with a
micro step into `F_i`, a resolution reaches `res_bound` exactly when `F_{res_bound}` is not
empty (a path of `res_bound` micro steps from a reachable state ending where a rule may
still fire). When it is empty, every resolution ends before the bound, so the sets without
the counter are exactly the semantics' sets with it forgotten, and the *heights* `F_i`
(at most the longest resolution, about 20 on the seeds) are kept for the Z3 certificate
(`certify.py`: `x ∈ F_i → _res ≤ res_bound - 1 - i` is what makes the reachable set
inductive with the counter, and excludes every stuck state). When it is not empty
(`may_stick`), the caller uses the counted layered core (`bounded.py`), which is exact
there.

**Saturation, then layers on demand.** The exact sets come from *chaining* (Roig,
Cortadella and Pastor, "Verification of asynchronous circuits by BDD-based model checking of
Petri nets", 1995): each event's image of every situation known so far is resolved to
stability and added, again until that event adds nothing, before the next event is applied
(the local fixpoint per event of saturation, Ciardo, Marmorstein and Siminiceanu, 2001, at
the granularity of events), in sweeps until nothing changes; each resolution is itself
chained rule by rule, and explores only micro states not already known (the known set is
closed under micro steps, so their resolutions are known too). Chaining converges in a few
sweeps (Eldfall 5, Bushido 13) where breadth-first layers take 30 to 60, and its sets stay
small: every "proved" and "unreachable" is answered from them. The local fixpoint is what
keeps a large system small: Bushido with its ranges widened for the scope re-check peaks at
180,421 nodes and takes 134 s, against 885,000 nodes and 768 s with one image per event and
sweep.
Shortest traces need breadth-first *macro layers* (`C[k]`, the canonical situations first
reached by k events, and `R[k]`, every micro state reached within k events); they are
computed only as deep as the queries that hit a target need (`first_layer`), from the
frontier of the previous layer, and kept.

Budgets are counted, never timed: live BDD nodes in the manager (checked after each
resolution) and sweeps. Exceeding one stops the computation with `complete = False`. The
variable order starts from FORCE (`order.py`); each variable's bits, current and next, form
one group, sifted (Rudell 1993; CUDD's group sifting, Panda and Somenzi 1995) when the live
nodes first pass `sift_at` and again each time they double since the last sifting: one-shot
passes at counted points, so every machine makes the same decisions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from checker.ir import Property, System, lvars, post_state

from .encode import BDD, Encoding, Node
from .relation import Relations

Resolution = Literal["first", "any"]
SIFT_AT = 100_000       # live nodes at the first group sifting (module docstring)
BUDGET_EVERY = 8        # budget checks that read the node count: the first of every 8
LARGE_SIFT = 200_000    # live nodes from which a sifting turns back sooner (`_sift`)
GROWTH = 1.2            # CUDD's default bound on a sifting's growth (`max_growth`)
LARGE_GROWTH = 1.02     # the bound from `LARGE_SIFT` live nodes
ORDERS_KEPT = 8         # rulesets whose sifted variable order is kept (`seed_order`)
_ORDERS: dict[str, list[str]] = {}


def seed_order(system: System) -> list[str] | None:
    """The variable order a core of `system` starts from: the order a core of the same
    ruleset reached by the end of its saturation in this process, when there is one (the
    scope re-check's widened system and each reading's variant have the same variables as
    the base system and a similar structure: widened Bushido takes 70 s from the base's
    sifted order, 127 s from FORCE), else None (FORCE, `order.py`). Deterministic: the
    base system's core is always computed first, in the process that later builds the
    others or in the one their workers are forked from (`checker.plan`); and the order
    changes no answer (`Encoding.pick` is the least state), only the work."""
    known = _ORDERS.get(system.ruleset)
    if known is None:
        return None
    names = {v.name for v in system.vars}
    if names != set(known):
        return None
    return list(known)


def _remember_order(core: Core) -> None:
    if core.system.ruleset in _ORDERS:
        return
    _ORDERS[core.system.ruleset] = core.var_order()
    while len(_ORDERS) > ORDERS_KEPT:
        del _ORDERS[next(iter(_ORDERS))]


def is_termination(prop: Property) -> bool:
    """The built-in termination property (`checker.spec.lower_props`): an invariant
    "res < res_bound or stable", whose violations are exactly the stuck states."""
    return prop.kind == "termination" and prop.mode == "invariant" and prop.at == "all"


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
    """One macro layer: its new canonical situations, and every micro state reached by the
    end of it (None once dropped to stay within the node budget: `BoundedCore.reached`)."""

    frontier: Node              # C[k]: canonical situations first reached at this layer
    reached: Node | None        # R[k] = every micro state reached within k events


@dataclass
class Progress:
    complete: bool = False
    layers: int = 0                     # macro layers computed (breadth-first)
    reason: str = ""                    # why the search stopped early, "" when complete
    peak_nodes: int = 0
    micro_rings: int = 0
    siftings: int = 0
    sweeps: int = 0                     # saturation sweeps (`Core`)
    heights: int = 0                    # longest resolution, in micro steps (`Core`)
    history: list[tuple[int, int, int]] = field(default_factory=list)  # (layer, new, nodes)


def _sift_once(bdd: BDD, growth: float) -> None:
    """One group sifting of `bdd` that turns back at `growth`; the bound is then CUDD's
    default again, for its own dynamic reordering (`reorder=True` cores)."""
    bdd.configure(max_growth=growth)
    bdd.reorder()
    bdd.configure(max_growth=GROWTH)


class CoreBase:
    """What both cores (`Core`, `bounded.BoundedCore`) do the same way: sift the variable
    groups, and count canonical stable situations (the bookkeeping and input bits,
    `forget_bits`, forgotten)."""

    enc: Encoding
    forget_bits: list[str]
    visited: Node
    progress: Progress
    sifted: int                 # live nodes after the last sifting
    sift_next: int              # live nodes at which to sift next (0: never)

    def run(self) -> object:
        raise NotImplementedError

    def _sift(self) -> int:
        """Collect the garbage, sift the variable groups once (CUDD group sifting over the
        groups of `Encoding`); the live nodes after it. The next sifting waits until they
        double."""
        bdd = self.enc.bdd
        len(bdd)                    # dd: counting the nodes collects the garbage first
        # a group's move turns back once the diagrams pass 1.2 times (CUDD's default) the
        # best size of the pass, 1.02 times from `LARGE_SIFT` live nodes: on Eldfall's
        # macro layers a sifting at 226 k nodes took 12 s and at 582 k 106 s with 1.2; with
        # 1.02 everywhere Eldfall's check took a fifth less CPU but Bushido's (siftings
        # below 175 k, their larger results paid by every later operation) 8 % more
        _sift_once(bdd, LARGE_GROWTH if self.enc.nodes() >= LARGE_SIFT else GROWTH)
        n = self.enc.nodes()
        self.progress.siftings += 1
        self.sifted = n
        self.sift_next = max(2 * n, self.sift_next)
        return n

    def stable_count_of(self, canonical: Node) -> int:
        return self.enc.count(canonical, len(self.enc.all_cur) - len(self.forget_bits))

    def stable_count(self) -> int:
        """Canonical stable situations reached (bookkeeping and inputs forgotten)."""
        self.run()
        return self.stable_count_of(self.visited)


class Core(CoreBase):
    """The reachable sets of one system, without the resolution counter (module
    docstring). `run` computes the exact sets; `reached(k)` and `frontier(k)` the macro
    layers on demand."""

    counted = False            # the sets do not hold `_res` (`bounded.BoundedCore`: they do)
    resolution: Resolution = "any"

    def __init__(self, system: System, *, node_budget: int = 5_000_000,
                 sweep_budget: int = 10_000, layer_budget: int = 10_000,
                 enc: Encoding | None = None, sift_at: int = SIFT_AT) -> None:
        self.system = system
        self.node_budget = node_budget
        self.sweep_budget = sweep_budget
        self.layer_budget = layer_budget
        self.enc = enc if enc is not None else Encoding(system, order=seed_order(system))
        self.sift_next = sift_at if enc is None and sift_at > 0 else 0   # 0: never
        self.sifted = 0
        self.budget_checks = 0
        self.rel = Relations(self.enc, counter=False)
        res = system.res_var
        self.forget = forgettable(system) | {res}
        self.keep = [v.name for v in system.vars if v.name not in self.forget]
        self.forget_bits = [b for n in sorted(self.forget) for b in self.enc.cur[n]]
        self.counter_bits = list(self.enc.cur[res])
        self.state_names = [v.name for v in system.vars if v.name != res]
        bdd = self.enc.bdd
        self.progress = Progress()
        self.micro: Node = bdd.false         # every reachable micro state (no counter)
        self.visited: Node = bdd.false       # every canonical stable situation
        self.heights: list[Node] = []        # F_0, F_1, ... (module docstring)
        self.may_stick = False
        self.layers: list[Layer] = []
        self._layer_seen: Node = bdd.false   # ⋃ C[k] of the layers computed so far
        self._derived: dict[str, Node] = {}

    # ------------------------------------------------------------------ derived sets
    @property
    def all_micro(self) -> Node:
        return self.micro

    @property
    def all_stable(self) -> Node:
        """Every reachable stable state, bookkeeping included."""
        if "stable" not in self._derived:
            self._derived["stable"] = self.rel.stable_part(self.micro)
        return self._derived["stable"]

    @property
    def all_stuck(self) -> Node:
        """Every reachable stuck state: none when the core is exact (`may_stick` False)."""
        return self.enc.bdd.false

    def canon(self, s: Node) -> Node:
        return self.enc.bdd.exist(self.forget_bits, s)

    def initial(self) -> Node:
        return self.enc.bdd.exist(self.counter_bits, self.enc.initial())

    # ------------------------------------------------------------------ budgets
    def _within_budget(self) -> bool:
        """False once the live nodes pass the node budget (after a last sifting), sifting
        when they pass `sift_next`. Only the first of every `BUDGET_EVERY` calls (one per
        micro ring) reads the count: CUDD's statistics scan the unique table and the cache
        (about 4 ms on Bushido), which at every ring was a fifth of Bushido's check
        (103 of 543 s sampled). Counted, so every machine decides at the same rings."""
        self.budget_checks += 1
        if (self.budget_checks - 1) % BUDGET_EVERY:
            return True
        n = self.enc.nodes()
        self.progress.peak_nodes = max(self.progress.peak_nodes, n)
        if self.sift_next and n >= self.sift_next:
            n = self._sift()
        if n > self.node_budget:
            len(self.enc.bdd)       # dd: counting the nodes collects the garbage first
            n = self.enc.nodes()
        if n > self.node_budget and self.sift_next and n > self.sifted * 5 // 4:
            n = self._sift()        # a last sifting before giving up, if it grew since
        if n > self.node_budget:
            self.progress.reason = f"node budget {self.node_budget:,} exceeded ({n:,} live)"
            return False
        return True

    # ------------------------------------------------------------------ the fixpoints
    def resolve(self, start: Node, known: Node) -> Node | None:
        """Every micro state reachable from `start` by micro steps that is not in `known`
        (a set closed under micro steps), rule by rule (chained); None over budget."""
        bdd = self.enc.bdd
        false = bdd.false
        seen = known | start
        found = start & ~known
        frontier = found
        while frontier != false:
            self.progress.micro_rings += 1
            grown = false
            for r in self.rel.rules:
                part = frontier & r.cond
                if part == false:
                    continue
                img = self.rel.image(r, part) & ~seen
                if img != false:
                    seen |= img
                    found |= img
                    grown |= img
                    frontier |= img
            frontier = grown
            if not self._within_budget():
                return None
        return found

    def run(self) -> Progress:
        """The exact sets by saturation, then the heights (module docstring); idempotent."""
        progress = self.progress
        if progress.complete or progress.reason:
            return progress
        bdd = self.enc.bdd
        micro = self.resolve(self.initial(), bdd.false)
        if micro is None:
            return progress
        canon = self.canon(self.rel.stable_part(micro))
        while True:
            progress.sweeps += 1
            before = canon
            for r in self.rel.events:
                while True:         # this event to its own fixpoint before the next one
                    new = self.resolve(self.rel.image(r, canon), micro)
                    if new is None:
                        self.micro, self.visited = micro, canon
                        return progress
                    if new == bdd.false:
                        break
                    micro |= new
                    grown = canon | self.canon(self.rel.stable_part(new))
                    if grown == canon:
                        break
                    canon = grown
            if canon == before:
                break
            if progress.sweeps >= self.sweep_budget:
                progress.reason = f"sweep budget {self.sweep_budget} reached"
                self.micro, self.visited = micro, canon
                return progress
        self.micro, self.visited = micro, canon
        if not self._heights():
            return progress
        progress.complete = True
        if self.sift_next:
            _remember_order(self)
        return progress

    def var_order(self) -> list[str]:
        """The variables, by the level of their first bit now (after any sifting)."""
        bdd = self.enc.bdd

        def level(name: str) -> int:
            bits = self.enc.cur[name]
            return min(bdd.level_of_var(b) for b in bits) if bits else -1

        return sorted((v.name for v in self.system.vars), key=lambda n: (level(n), n))

    def _heights(self) -> bool:
        """`F_0 ⊇ F_1 ⊇ ...` (module docstring) until empty, a fixpoint (a cycle of micro
        steps) or `res_bound`; sets `may_stick`. False over budget."""
        false = self.enc.bdd.false
        bound = self.system.res_bound
        level = self.rel.unstable_part(self.micro)
        heights: list[Node] = []
        while level != false:
            heights.append(level)
            if len(heights) > bound:            # F_bound is not empty
                self.may_stick = True
                break
            # F_{i+1} ⊆ F_i (a state with a step into F_i is unstable, hence in F_0, and by
            # induction), and a rule's relation only leaves states where it may fire: only
            # the rules that may fire somewhere in F_i are asked, and F_i stands for `micro`
            pre = false
            for r in self.rel.rules:
                if level & r.cond != false:
                    pre |= self.rel.preimage(r, level)
            below = level & pre
            if below == level:                  # a cycle: paths of every length
                self.may_stick = True
                break
            level = below
            if not self._within_budget():
                return False
        self.heights = heights
        self.progress.heights = len(heights)
        return True

    # ------------------------------------------------------------------ layers
    def layer(self, k: int) -> Layer | None:
        """Macro layer k, computed (with every layer before it) if need be; None when k is
        past the last layer or the node or layer budget stops the computation."""
        self.run()
        bdd = self.enc.bdd
        while len(self.layers) <= k:
            if self.layers and self.layers[-1].frontier == bdd.false:
                return None
            if len(self.layers) >= self.layer_budget:
                return None
            if not self.layers:
                start, known = self.initial(), bdd.false
            else:
                last = self.layers[-1]
                assert last.reached is not None
                start, known = self.rel.event_image(last.frontier), last.reached
            new = self.resolve(start, known)
            if new is None:
                return None
            frontier = self.canon(self.rel.stable_part(new)) & ~self._layer_seen
            self._layer_seen |= frontier
            self.layers.append(Layer(frontier, known | new))
            n = len(self.layers) - 1
            self.progress.layers = len(self.layers)
            self.progress.history.append((n, self.stable_count_of(frontier),
                                          self.enc.nodes()))
        return self.layers[k]

    def reached(self, k: int) -> Node:
        """`R[k]` (false for k < 0)."""
        if k < 0:
            return self.enc.bdd.false
        layer = self.layer(k)
        if layer is None or layer.reached is None:
            raise ValueError(f"reach: macro layer {k} is not available")
        return layer.reached

    def frontier(self, k: int) -> Node:
        layer = self.layer(k)
        if layer is None:
            raise ValueError(f"reach: macro layer {k} is not available")
        return layer.frontier

    def first_layer(self, target: Node) -> int | None:
        """The first macro layer whose `R[k]` meets `target` (a set of reachable states),
        computing layers as needed; None when a budget stops them first."""
        false = self.enc.bdd.false
        if target == false:
            return None
        if self.layers and self.layers[-1].reached is not None and \
                self.layers[-1].reached & target != false:
            lo, hi = 0, len(self.layers) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if self.reached(mid) & target != false:
                    hi = mid
                else:
                    lo = mid + 1
            return lo
        k = len(self.layers)
        while True:
            layer = self.layer(k)
            if layer is None:
                return None
            assert layer.reached is not None
            if layer.reached & target != false:
                return k
            k += 1

    def fresh(self, k: int) -> Node:
        """The micro states first reached in layer k: `R[k] ∖ R[k-1]`."""
        return self.reached(k) & ~self.reached(k - 1)

    # ------------------------------------------------------------------ counts
    def reachable_count(self) -> int:
        """Micro states reached (bookkeeping and inputs included, stable or not; the
        resolution counter left out)."""
        self.run()
        return self.enc.count(self.micro, len(self.enc.all_cur) - len(self.counter_bits))

    def stuck_count(self) -> int:
        return 0
