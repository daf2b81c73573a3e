"""`query(spec, expr)`: can some model ever be in a situation where `expr` holds? The
answer for an errata meeting (`ruleproof query`): a shortest witness trace, or a proof that
no reachable situation satisfies it, or UNKNOWN with the reason."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from checker.ir import Property, Ruleset
from checker.options import Options
from checker.results import Method, Status, Trace

Answer = Literal["reachable", "unreachable", "unknown"]


@dataclass(frozen=True)
class QueryAnswer:
    ruleset: Ruleset
    prop: Property
    answer: Answer
    trace: Trace | None          # a shortest witness (reachable), replayed
    how: str                     # how the answer was obtained, in words


def query(path: Path, expr: str, options: Options) -> QueryAnswer:
    """Answer from the ruleset's exact reachability core when it fits its node budget,
    else from the symbolic engines (BMC for a witness, induction / Spacer for a proof)."""
    from checker.engines import check_property
    from checker.engines.reach import shared_core
    from checker.spec.load import load_with_query

    ruleset, prop = load_with_query(path, expr)
    system = ruleset.system
    core = shared_core(system, options.node_budget)
    if core is not None:
        found = core.check(prop)
        n = core.stable_count()
        if found.status == "reachable":
            return QueryAnswer(ruleset, prop, "reachable", found.trace,
                               f"a shortest trace from the exact set of all {n:,} reachable "
                               "situations (decision diagrams), replayed")
        if found.status == "unreachable":
            cert = core.certify(prop, options.cert_rlimit, options.timeout_ms)
            checked = "certified by Z3" if cert.status == "certified" else \
                f"certificate not checked: {cert.detail}"
            return QueryAnswer(ruleset, prop, "unreachable", None,
                               f"none of the {n:,} reachable situations satisfies it (exact "
                               f"reachability with decision diagrams, {checked})")
    result = check_property(system, prop, options)
    if result.status is Status.PROVED and result.trace is not None:
        return QueryAnswer(ruleset, prop, "reachable", result.trace,
                           "a shortest trace (bounded model checking), replayed")
    if result.status is Status.VIOLATED:
        how = {Method.K_INDUCTION: "proof by induction",
               Method.SPACER: "proof by Z3's CHC engine (Spacer), re-checked by induction",
               }.get(result.method, "exhaustive explicit search") if result.method else ""
        return QueryAnswer(ruleset, prop, "unreachable", None,
                           f"no reachable situation satisfies it ({how}; the system is too "
                           "large for the decision-diagram core)")
    return QueryAnswer(ruleset, prop, "unknown", None, result.reason)
