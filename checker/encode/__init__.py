"""Stage `encode`: a `System` → Z3 formulas (one fresh `z3.Context` per check).

`encode(system, ctx)` builds the transition system; `formulas` holds one pure function per
formula the engines ask about; `make_solver` fixes seeds and limits. Only this package and
`checker.engines` import z3.
"""

from checker.encode.solver import Answer, check, make_solver, stop_reason
from checker.encode.symbols import SELECTOR, at_step
from checker.encode.system import Encoding, encode

__all__ = ["SELECTOR", "Answer", "Encoding", "at_step", "check", "encode", "make_solver",
           "stop_reason"]
