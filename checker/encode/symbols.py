"""Time-indexed names for the symbolic encoding (one helper, as in pySMT's `at_time`).

A state variable `hp` at step k is the Z3 integer constant `hp@k`; the event selector of
the transition from step k to step k+1 is `_sel@k`. The one-step transition relation is
built once over the template steps 0 and 1 and copied to other steps by substitution.
"""

from __future__ import annotations

SELECTOR = "_sel"


def at_step(name: str, k: int) -> str:
    """The name of variable `name` at step `k`: `name@k`."""
    return f"{name}@{k}"
