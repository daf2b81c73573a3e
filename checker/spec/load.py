"""`load_ruleset(path)`: the spec stages composed (load → schema → validate/lower); and
`load_with_query`, the same with one more `reachable` property (`ruleproof query`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from checker.diagnostics import Location
from checker.ir import Property, Ruleset
from checker.spec.parse import parse_spec
from checker.spec.readings import lower_ruleset
from checker.spec.schema import PropertyDecl
from checker.spec.source import SourceMap, load_spec


def load_ruleset(path: Path, display: str | None = None) -> Ruleset:
    """Load, validate and lower the spec at `path`; raise `SpecError` on bad input."""
    tree = load_spec(path, display)
    return lower_ruleset(tree, parse_spec(tree))


def load_with_query(path: Path, expr: str, display: str | None = None
                    ) -> tuple[Ruleset, Property]:
    """The ruleset at `path` with `expr` lowered as a `reachable` property (for some model),
    and that property. A problem in `expr` is located in the query itself ("<query>":1:1);
    a problem in the spec as usual."""
    tree = load_spec(path, display)
    doc = parse_spec(tree)
    taken = {p.id for p in doc.properties}
    ident = next(f"query-{i}" if i else "query" for i in range(len(taken) + 1)
                 if (f"query-{i}" if i else "query") not in taken)
    at = ("properties", len(doc.properties), "reachable")
    doc = doc.model_copy(update={"properties": [*doc.properties,
                                                PropertyDecl(id=ident, reachable=expr)]})
    where = SourceMap(tree.source_map.file,
                      {**tree.source_map.locations, at: Location("<query>", 1, 1)})
    ruleset = lower_ruleset(replace(tree, source_map=where), doc)
    prop = next(p for p in ruleset.system.properties if p.id == ident)
    return ruleset, prop
