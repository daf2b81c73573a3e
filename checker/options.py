"""Run options, frozen and passed to every stage that needs them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    timeout_ms: int = 600_000       # per property and engine: a wall-clock SAFETY NET only
    #   (the budget is `rlimit`); past it the engine answers UNKNOWN, reason "timeout"
    rlimit: int = 30_000_000         # Z3 resource units per query (0 = none): the counted
    #   budget of every Z3 engine, the same on every machine (Spacer: about a minute; a SAT
    #   query runs several million units a second)
    cert_rlimit: int = 200_000_000   # Z3 resource units per query of a decision-diagram
    #   proof's certificate (`checker.engines.reach.certify`); past it the proof is reported
    #   as "certificate not checked"
    seed: int = 0                    # solver seeds
    max_depth: int = 40              # BMC bound (event + micro steps)
    explicit_limit: int = 200_000    # explicit search: states before giving up
    search_states: int = 10_000      # the shared search over macro steps, for a system the
    #   reachability core cannot take: situations before it stops (a count, so the traces
    #   it finds are the same on every machine; what it leaves goes to the Z3 engines)
    explicit_seconds: float = 600.0  # that search's wall-clock safety net only
    node_budget: int = 500_000       # the BDD reachability core: live nodes before it gives
    #   up on a system (a count; then the Z3 engines and explicit search decide); 0 = off
    jobs: int = 1                    # worker processes (`checker.plan.executors`); 1 = none
    shard: tuple[int, int] = (1, 1)  # (K, N): check only the K-th of N shares of the work
    use_cache: bool = True           # the pipeline keeps results in `.ruleproof-cache/`;
    #   engines only use a cache they are given (`checker.engines.base.ProofStore`)
    widen: bool = True               # the scope re-check (`checker.plan.widen`): every proved
    #   property decided again with the spec's ranges widened; off: `--no-widen`
    timings: bool = False            # show timings in reports (off: byte-identical output)
