"""Stage `graph`: the ruleset as a networkx graph (`build`, built once per system by
`machine`), structural facts and cone-of-influence slicing (`analyze`), the structural
findings RP3xx (`findings`). z3-free."""

from checker.graph.analyze import GraphFacts, analyze, cone, cone_vars, trigger_cycles
from checker.graph.build import (
    ANY,
    Machine,
    build,
    clauses,
    dependencies,
    machine,
    rule_graph,
)
from checker.graph.findings import structural_findings

__all__ = ["ANY", "GraphFacts", "Machine", "analyze", "build", "clauses", "cone", "cone_vars",
           "dependencies", "machine", "rule_graph", "structural_findings", "trigger_cycles"]
