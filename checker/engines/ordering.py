"""Dead ordering rules: an ordering rule of the spec (`ordering:`, lowered to `Precedence`s and
`OrderChoice`s) whose rules are never due to resolve together orders nothing (finding kind
`dead-ordering-rule`, a warning).

An ordering entry is *live* when, for one of its pairs of rule copies, both are enabled
(`checker.ir.enabled`) in some reachable micro state (`at="all"`: mid-resolution); an
`OrderChoice` needs two of its rules enabled together. One reachability question per entry
(the disjunction of its pairs), all asked as one batch of the decision-point reacher
(`checker.engines.decision.Reacher.witness_many`): from the system's exact BDD reachability
core when it fits `options.node_budget` (its "never" only with its Z3 certificate), else
the Z3 engines, then explicit search. "Enabled together" does not depend on which of the
two resolves first, so the answer is the same under spec-order and unordered resolution.
An entry the engines cannot decide is kept as undecided (an UNKNOWN result), never as
"live".
"""

from __future__ import annotations

from collections.abc import Iterable

from checker.engines.base import ProofStore
from checker.engines.decision import (
    SCAN_PARTS,
    Reacher,
    Scan,
    Undecided,
    Witness,
    cited,
    merge_scans,
    scan_part,
)
from checker.ir import LExpr, Ruleset, System, Transition, conj, disj, enabled
from checker.options import Options
from checker.results import Finding


def find_dead_orderings(ruleset: Ruleset, options: Options) -> list[Finding]:
    """The ordering rules of `ruleset` that order nothing."""
    return scan_ordering(ruleset, options).findings


def scan_ordering(ruleset: Ruleset, options: Options, part: int | None = None,
                  store: ProofStore | None = None) -> Scan:
    """`find_dead_orderings` with the entries it could not decide; only the entries of
    `part` (`decision.scan_part` of the entry's id) if given, else every part, merged."""
    if part is None:
        return merge_scans(scan_ordering(ruleset, options, k, store)
                           for k in range(SCAN_PARTS))
    system = ruleset.system
    entries = {src: pairs for src, pairs in _entries(system).items()
               if scan_part([src]) == part}
    scan = Scan()
    if not entries:
        return scan
    rules = {r.id: r for r in system.rules}
    together = {src: disj(*(conj(enabled(system, rules[a]), enabled(system, rules[b]))
                            for a, b in pairs))
                for src, pairs in entries.items()}
    answers = _reachable(system, together, options, store)
    for src, pairs in sorted(entries.items()):
        answer = answers[src]
        if answer.reachable is None:
            scan.undecided.append(Undecided("dead-ordering-rule", (src,),
                                            "whether its rules are ever due together is "
                                            f"undecided: {answer.reason}"))
        elif not answer.reachable:
            scan.findings.append(_finding(ruleset, src, pairs, rules))
    return scan


Pairs = list[tuple[str, str]]     # (rule copy, rule copy) that the entry orders


def _entries(system: System) -> dict[str, Pairs]:
    """Each ordering entry (by its spec id) with the pairs of rule copies it orders."""
    out: dict[str, Pairs] = {}
    for p in system.precedence:
        out.setdefault(p.source, []).append((p.first, p.then))
    for c in system.order_choices:
        pairs = out.setdefault(c.source, [])
        pairs += [(a, b) for i, a in enumerate(c.rules) for b in c.rules[i + 1:]]
    return out


def _reachable(system: System, conditions: dict[str, LExpr], options: Options,
               store: ProofStore | None) -> dict[str, Witness]:
    """For each condition: is it true in some reachable micro state (`reachable` None:
    undecided, with its reason)?
    Asked as one batch of `Reacher.witness_many`: from the reachability core, whose
    "never" counts only with its Z3 certificate, else from the Z3 engines and explicit
    search."""
    found = Reacher(system, options, store).witness_many(list(conditions.values()), at="all")
    return dict(zip(conditions, found, strict=True))


def _finding(ruleset: Ruleset, src: str, pairs: Pairs,
             rules: dict[str, Transition]) -> Finding:
    def spec(copies: Iterable[str]) -> list[str]:       # rule copies → spec rule ids
        return sorted({rules[c].source for c in copies})

    firsts, thens = spec(a for a, _ in pairs), spec(b for _, b in pairs)
    named = sorted({*firsts, *thens})
    if any(c.source == src for c in ruleset.system.order_choices):
        said = f"no two of {_names(named)} are ever due to resolve at the same time"
    else:
        said = (f"{_names(firsts)} and {_names(thens)} are never due to resolve at the "
                "same time")
    detail = tuple((e, q) for e in (src, *named) if (q := cited(ruleset, e)))
    return Finding("dead-ordering-rule", (src,), (),
                   f"ordering rule {src!r} orders nothing: {said} in any reachable situation",
                   detail=detail)


def _names(rules: list[str]) -> str:
    shown = ", ".join(repr(r) for r in rules)
    return f"rule {shown}" if len(rules) == 1 else f"rules {shown}"
