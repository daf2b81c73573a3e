"""Stage `graph`: the ruleset as a networkx graph (`build`), structural facts and
cone-of-influence slicing (`analyze`). z3-free."""

from checker.graph.analyze import GraphFacts, analyze, cone, cone_vars, trigger_cycles
from checker.graph.build import ANY, build, rule_graph

__all__ = ["ANY", "GraphFacts", "analyze", "build", "cone", "cone_vars", "rule_graph",
           "trigger_cycles"]
