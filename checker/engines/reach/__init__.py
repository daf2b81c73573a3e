"""Exact symbolic reachability with BDDs (CUDD through `dd.cudd`), one core per system.

`Reach(system, resolution="any", node_budget=N)` (any rule that may fire fires next,
docs/semantics.md; `"first"`, the former spec order, only for benchmarks) computes the
reachable micro states and stable situations of a `checker.ir.System` by macro-step
breadth-first search over canonical stable situations (`core.py`), and `check(prop)`
answers a property with a shortest, replay-checked trace (`api.py`, `witness.py`).
`shared_core` is the one core per system that the check's properties and decision-point
queries are answered from."""

from .api import Reach, ReachResult, ReachStatus, release_cores, shared_core
from .core import Progress, Resolution, is_termination
from .relation import Unsupported

__all__ = ["Progress", "Reach", "ReachResult", "ReachStatus", "Resolution",
           "Unsupported", "is_termination", "release_cores", "shared_core"]
