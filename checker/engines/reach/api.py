"""The entry point: `Reach(system, resolution=..., node_budget=...)` and `check(prop)`.

One `Reach` per system computes the reachable sets once (`core.py`, lazily on the first
question) and answers every property against them:

- `mode="invariant"`: "proved" when no reachable state (stable ones for `at="stable"`,
  every micro state for `at="all"`) violates `expr`, else "violated" with a shortest
  counterexample;
- `mode="reachable"`: "reachable" with a shortest witness, else "unreachable";
- when a counted budget stops the layered search first, the exact chained fixpoint
  (`Core.saturate`) decides the query: "proved" / "unreachable", or "violated" /
  "reachable" *without a trace* (`trace is None`, `reason` says why); "too-large" only
  when that also exceeds the node budget (the product falls back to the Z3 engines).

Every trace is checked step by step (`witness.Stepper`); with `resolution="any"` (the
semantics: any rule that may fire fires next) it is also replayed, with the rules it fired
in each step, by the reference interpreter (`checker.interpret.replay`), which raises on a
trace that does not replay. `resolution="first"` (the former spec-order semantics) is kept
for benchmarks only; its traces are stepped, not replayed. Shortest means fewest events,
as in `explore_macro`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from checker.errors import InternalError
from checker.interpret import replay
from checker.ir import LExpr, Property, System, lvars
from checker.results import Trace

from .bounded import BoundedCore
from .certify import CERT_RLIMIT, Certifier, CertResult
from .core import SIFT_AT, Core, Progress, Resolution, is_termination
from .encode import Compiler, Node, State
from .witness import Segment, Stepper, first_layer, walk_back

ReachStatus = Literal["proved", "violated", "reachable", "unreachable", "too-large"]


@dataclass(frozen=True)
class ReachResult:
    prop: str
    status: ReachStatus
    trace: Trace | None = None
    start: State | None = None
    events: tuple[tuple[str, tuple[int, ...]], ...] = ()
    layer: int | None = None                    # macro layer of the target = len(events)
    checked: Literal["replayed", "stepped", ""] = ""
    reason: str = ""
    untraced: bool = False      # met, but no trace was asked (`check(trace=False)`)


class Reach:
    """The exact BDD reachability core of one system."""

    def __init__(self, system: System, *, resolution: Resolution = "any",
                 node_budget: int = 5_000_000, layer_budget: int = 10_000,
                 reorder: bool = False, keep_layers: bool = True,
                 sift_at: int = SIFT_AT, counted: bool | None = None) -> None:
        """`counted`: None (the default) uses the fast core (`core.py`) for the semantics'
        resolution and hands over to the counted one (`bounded.py`) only when a resolution
        can reach `res_bound`; True always uses the counted one (`"first"` resolution,
        `reorder` and `keep_layers=False` need it)."""
        self.system = system
        self.resolution = resolution
        self._args = (node_budget, layer_budget, reorder, keep_layers, sift_at)
        use_counted = counted if counted is not None else \
            (resolution != "any" or reorder or not keep_layers)
        self.core: Core | BoundedCore = self._counted() if use_counted else \
            Core(system, node_budget=node_budget, layer_budget=layer_budget,
                 sift_at=sift_at)
        self._stepper: Stepper | None = None
        self._exact: BoundedCore | None = None
        self._counted_core: Reach | None = None
        self._certifier: tuple[int, Certifier] | None = None

    def _counted(self) -> BoundedCore:
        node_budget, layer_budget, reorder, keep_layers, sift_at = self._args
        return BoundedCore(self.system, resolution=self.resolution,
                           node_budget=node_budget, layer_budget=layer_budget,
                           reorder=reorder, keep_layers=keep_layers, sift_at=sift_at)

    def exact(self) -> BoundedCore | None:
        """When the counted layered search stopped at a budget: a second core, in a fresh
        manager (not burdened with the first one's kept layers), with the exact sets of
        the chained fixpoint; None when the layers completed, chaining is over budget, or
        the core is the fast one (its own sets are exact)."""
        if self.run().complete or not isinstance(self.core, BoundedCore):
            return None
        if self._exact is None:
            node_budget, layer_budget, reorder, _, _ = self._args
            self._exact = BoundedCore(self.system, resolution=self.resolution,
                                      node_budget=node_budget, layer_budget=layer_budget,
                                      reorder=reorder)
        return self._exact if self._exact.saturate() is not None else None

    # ------------------------------------------------------------------ the sets
    def run(self) -> Progress:
        progress = self.core.run()
        if isinstance(self.core, Core) and self.core.may_stick:
            self.core = self._counted()     # a resolution can reach the bound (core.py)
            progress = self.core.run()
        return progress

    @property
    def complete(self) -> bool:
        return self.run().complete

    @property
    def fast(self) -> bool:
        """The sets leave the resolution counter out (`core.py`)."""
        self.run()
        return isinstance(self.core, Core)

    def reachable_count(self) -> int:
        """Micro states, the resolution counter left out (it only numbers the steps of a
        resolution: with it, the counted core's figure)."""
        exact = self.exact()
        counts = exact.saturated_counts() if exact is not None else None
        return counts[0] if counts is not None else self.core.reachable_count()

    def stable_count(self) -> int:
        exact = self.exact()
        counts = exact.saturated_counts() if exact is not None else None
        return counts[1] if counts is not None else self.core.stable_count()

    def stuck_count(self) -> int:
        """Reachable stuck states (a resolution at `res_bound` still unstable)."""
        exact = self.exact()
        counts = exact.saturated_counts() if exact is not None else None
        return counts[2] if counts is not None else self.core.stuck_count()

    def stuck_states(self, limit: int = 10) -> list[State]:
        self.run()
        enc = self.core.enc
        out: list[State] = []
        rest = self.core.all_stuck
        while rest != enc.bdd.false and len(out) < limit:
            s = enc.pick(rest)
            out.append(s)
            rest &= ~enc.state_cube(s)
        return out

    def nodes(self) -> int:
        return self.core.enc.nodes()

    # ------------------------------------------------------------------ certificates
    def certify(self, prop: Property, rlimit: int = CERT_RLIMIT,
                timeout_ms: int = 600_000) -> CertResult:
        """The Z3 certificate of "no reachable state is a target of `prop`" (`certify.py`):
        "certified", or "unchecked" when its resource limit ran out; raises `InternalError`
        when Z3 refutes it (a bug). Only for a complete core."""
        if not self.complete:
            raise InternalError("reach: a certificate needs the complete reachable set")
        if self._certifier is None or self._certifier[0] != rlimit:
            core = self.core
            heights = core.heights if isinstance(core, Core) else None
            self._certifier = (rlimit, Certifier(self.system, core.enc, core.all_micro,
                                                 rlimit=rlimit, timeout_ms=timeout_ms,
                                                 heights=heights, relations=core.rel))
        return self._certifier[1].excludes(prop)

    # ------------------------------------------------------------------ queries
    def targets(self, exprs: Sequence[LExpr], at: str = "all") -> list[Node] | None:
        """The reachable states (stable ones unless `at` is "all") where each expression
        holds, compiled as one batch (one memo for the batch, dropped with it):
        `check(prop, target=...)` then answers any union of them without compiling again.
        None unless the fast core is complete and no expression reads the resolution
        counter (`check` sends those to the counted core)."""
        progress = self.run()
        core = self.core
        if not isinstance(core, Core) or not progress.complete or \
                any(self.system.res_var in lvars(e) for e in exprs):
            return None
        compiler = Compiler(core.enc, frozenset())
        reached = core.all_micro if at == "all" else core.all_stable
        return [compiler.boolean(e) & reached for e in exprs]

    def check(self, prop: Property, target: Node | None = None,
              trace: bool = True) -> ReachResult:
        """`target`: the states `prop` looks for, already compiled (a union of `targets`;
        reachable `mode="reachable"` properties only), instead of compiling `prop.expr`.
        `trace=False`: when the complete fast core's reachable set meets the target, the
        answer comes without a shortest trace (no macro layers, no walk back): `start` is
        None and `untraced` is set."""
        if target is not None and (prop.mode != "reachable" or is_termination(prop)):
            raise InternalError("reach: a compiled target is for reachability questions")
        progress = self.run()
        core = self.core
        false = core.enc.bdd.false
        if isinstance(core, Core) and self.system.res_var in lvars(prop.expr) and \
                not is_termination(prop):
            # a question about the resolution counter, which the fast core leaves out:
            # the counted core answers it (none of the product's queries asks one)
            if self._counted_core is None:
                self._counted_core = Reach(self.system, resolution=self.resolution,
                                           counted=True, node_budget=self._args[0],
                                           layer_budget=self._args[1])
            return self._counted_core.check(prop)
        if isinstance(core, Core):
            if not progress.complete:
                return ReachResult(prop.id, "too-large", reason=progress.reason)
            if target is None:
                target = self._target(core, prop)
            reached = core.all_micro if prop.at == "all" else core.all_stable
            if reached & target == false:
                return ReachResult(prop.id, "proved" if prop.mode == "invariant"
                                   else "unreachable")
            if not trace:
                return ReachResult(prop.id, "violated" if prop.mode == "invariant"
                                   else "reachable", untraced=True,
                                   reason="the exact reachable set meets the target "
                                   "(no trace asked)")
            k = first_layer(core, target, prop.at)
            if k is None:
                return ReachResult(prop.id, "violated" if prop.mode == "invariant"
                                   else "reachable",
                                   reason="no shortest trace within the budget "
                                   f"({core.progress.reason}); the exact set meets the "
                                   "target")
            return self._found(prop, k, walk_back(core, k, target, prop.at))
        if target is not None:
            raise InternalError("reach: a compiled target needs the complete fast core")
        target = self._target(core, prop)
        k = first_layer(core, target, prop.at)
        if k is None and not progress.complete:
            exact = self.exact()
            if exact is None or exact.saturated is None:
                return ReachResult(prop.id, "too-large", reason=progress.reason)
            sat = exact.saturated
            there = sat.stuck if is_termination(prop) else self._target(exact, prop)
            reached = sat.micro if prop.at == "all" else sat.stable
            if reached & there != exact.enc.bdd.false:
                status: ReachStatus = "violated" if prop.mode == "invariant" else "reachable"
                return ReachResult(prop.id, status, reason="no shortest trace within the "
                                   f"budget ({progress.reason}); the exact chained fixpoint "
                                   "meets the target")
        if k is None:
            return ReachResult(prop.id, "proved" if prop.mode == "invariant" else "unreachable")
        segments = walk_back(core, k, target, prop.at)
        return self._found(prop, k, segments)

    @staticmethod
    def _target(core: Core | BoundedCore, prop: Property) -> Node:
        """The states `prop` looks for: its violations (an invariant) or its witnesses.
        Termination's violations are the reachable stuck states, taken rule by rule from
        the reachable set (`all_stuck`; none in the fast core, which hands over when there
        could be any): its expression holds `stable(system)`, whose one diagram can be
        millions of nodes (2.4 M on Bushido) where every rule's enabling condition alone is
        a few dozen."""
        if is_termination(prop):
            return core.all_stuck
        holds = core.enc.compiler().boolean(prop.expr)
        return holds if prop.mode == "reachable" else ~holds

    def _found(self, prop: Property, k: int, segments: list[Segment]) -> ReachResult:
        if self._stepper is None:
            self._stepper = Stepper(self.core)
        self._stepper.check(segments)
        last = segments[-1].micro[-1]
        interp = self._stepper.interp
        if interp.holds(prop, last) != (prop.mode == "reachable") or \
                (prop.at == "stable" and not interp.is_stable(last)):
            raise InternalError(f"reach: the path for {prop.id!r} does not end at a target")
        start = segments[0].micro[0]
        events = tuple((s.event, s.inputs) for s in segments[1:] if s.event is not None)
        status: ReachStatus = "violated" if prop.mode == "invariant" else "reachable"
        if self.resolution == "any":
            expect = "violation" if prop.mode == "invariant" else "witness"
            fired = [s.fired for s in segments]
            trace = replay(self.system, start, list(events), prop, expect=expect,
                           fired=fired)
            return ReachResult(prop.id, status, trace, start, events, k, "replayed")
        trace2 = self._stepper.trace(segments)
        return ReachResult(prop.id, status, trace2, start, events, k, "stepped")


SHARED_CORES = 8          # unpinned cores kept per process (a run needs one per ruleset)
_SHARED: dict[tuple[int, int, int, int, str], tuple[System, Reach | None]] = {}
_PINNED: set[tuple[int, int, int, int, str]] = set()


def shared_core(system: System, node_budget: int, resolution: Resolution = "any",
                pin: bool = False) -> Reach | None:
    """The one reachability core of `system` in this process, computed on first use: None
    when the system is too large for it (the node budget, a count, stopped the fixpoint)
    or uses what the core cannot encode. Systems that differ only in their properties (a
    shard's, a cone's are not: they have other variables) share one core. A pinned core
    (the ones a check computes before its workers fork, which they all inherit) is kept
    until `release_cores`, however many there are; of the others only the newest
    `SHARED_CORES` are kept."""
    from .relation import Unsupported

    key = (id(system.vars), id(system.events), id(system.rules), node_budget, resolution)
    if pin:
        _PINNED.add(key)
    if key not in _SHARED:
        core: Reach | None = None
        if node_budget > 0:
            try:
                core = Reach(system, resolution=resolution, node_budget=node_budget)
                if not core.complete:
                    core = None
            except Unsupported:
                core = None
        _SHARED[key] = (system, core)     # the system is kept so that its id stays its own
        loose = [k for k in _SHARED if k not in _PINNED]
        for k in loose[:max(0, len(loose) - SHARED_CORES)]:   # a long session (--watch,
            del _SHARED[k]          # lsp) checks anew on every save: keep the newest cores
    return _SHARED[key][1]


def release_cores(system: System) -> None:
    """Drop the cores `shared_core` keeps for `system` (whatever their budget): a check
    releases each system's core once its queries are all answered, so that the readings'
    variants and the scope re-check's widened systems do not all stay in memory at once."""
    key = (id(system.vars), id(system.events), id(system.rules))
    for k in [k for k in _SHARED if k[:3] == key]:
        del _SHARED[k]
    _PINNED.difference_update([k for k in _PINNED if k[:3] == key])


def cores_held() -> int:
    """How many cores `shared_core` keeps in this process (at most `SHARED_CORES`)."""
    return len(_SHARED)
