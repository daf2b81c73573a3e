"""The reference interpreter: executes a `System` concretely (docs/semantics.md).

It is written independently of the Z3 encoding and is the judge of every trace: a
counterexample or witness from a symbolic engine is replayed here (`replay`) before it is
reported. It also does explicit-state breadth-first search (`explore`), the oracle the
symbolic engines are tested against on small models; every explicit search of ruleproof
runs on its one breadth-first core (`checker.interpret.search`).

Modules: `evaluate` (expressions in a concrete state), `machine` (the `Interpreter`, and
`shared`: the one interpreter per system of a process, which the replays and the explicit
searches use), `resolve` (every order of one resolution, partial-order reduction), `traces`
(`replay`), `search` (the breadth-first core, `explore`, `StateSpace`) and
`macro` (`explore_macro`, the shared search over macro steps). A concrete state is a
tuple of ints in `system.vars` order.
"""

from checker.interpret.evaluate import State, compile_expr, evaluate
from checker.interpret.machine import Interpreter, shared
from checker.interpret.macro import Verdicts, explore_macro
from checker.interpret.search import StateSpace, explore, reachable_states
from checker.interpret.traces import choices_of, replay, replay_trace, trace_steps

__all__ = [
           "Interpreter",
           "State",
           "StateSpace",
           "Verdicts",
           "choices_of",
           "compile_expr",
           "evaluate",
           "explore",
           "explore_macro",
           "reachable_states",
           "replay",
           "replay_trace",
           "shared",
           "trace_steps",
]
