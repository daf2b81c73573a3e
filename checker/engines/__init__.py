"""Stage `engines`: proofs, counterexamples and explicit search over a `System`.

`check_property` / `check_all` (in `checker.engines.check`) compose the engines: `bmc`
(counterexamples and witnesses), `induction` (1-induction, Houdini), `spacer` (CHC) and
`explicit` (the oracle). Each engine module also has `run(system, prop, options)` for
using it alone. Only this package and `checker.encode` import z3.
"""

from checker.engines.check import check_all, check_property

__all__ = ["check_all", "check_property"]
