"""Exact symbolic reachability with BDDs (CUDD through `dd.cudd`), one core per system.

`Reach(system, resolution="first" | "any", node_budget=N)` computes the reachable micro
states and stable situations of a `checker.ir.System` by macro-step breadth-first search
over canonical stable situations (`core.py`), and `check(prop)` answers a property with a
shortest, replay-checked trace (`api.py`, `witness.py`). Not wired into `checker.plan`.
"""

from .api import Reach, ReachResult, ReachStatus
from .core import Progress, Resolution
from .relation import Unsupported

__all__ = ["Progress", "Reach", "ReachResult", "ReachStatus", "Resolution", "Unsupported"]
