"""Findings that follow from property verdicts and declarations (no solver needed here):
unreachable States, dead rules, vacuous properties, non-termination, undefined references,
and the citation lints (`lints`: merged statements, trigger wording)."""

from __future__ import annotations

from checker.ir import Ruleset
from checker.results import Finding, PropertyResult, Status
from checker.results.lints import lint_findings


def from_properties(ruleset: Ruleset, results: list[PropertyResult]) -> list[Finding]:
    out: list[Finding] = []
    for r in results:
        if r.kind == "state-reachable" and r.status is Status.VIOLATED:
            state = r.states[0] if r.states else r.id.split(":", 1)[1]
            out.append(Finding("unreachable-state", (r.source,), (state,),
                               f"no model can ever be {state}: no reachable situation enters it"))
        elif r.kind == "rule-fires" and r.status is Status.VIOLATED:
            out.append(Finding("dead-rule", (r.source,), r.states,
                               f"rule {r.source!r} can never fire: its condition never holds "
                               "when it would change anything"))
        elif r.kind == "blocked-effect" and r.status is Status.VIOLATED:
            out.append(_blocked_effect(ruleset, r))
        elif r.kind == "vacuity" and r.status is Status.VIOLATED:
            out.append(Finding("vacuous-property", (r.source,), r.states,
                               f"property {r.source!r} holds only vacuously: its premise can "
                               "never be true"))
        elif r.kind == "termination" and r.status is Status.VIOLATED:
            fired = r.trace.steps[-1].fired if r.trace and r.trace.steps else ()
            rules = tuple(sorted({f.split("@")[0] for f in fired})) or ("rules",)
            out.append(Finding("non-termination", rules, (),
                               "triggered rules keep firing without end: "
                               + " → ".join(fired[-6:]), trace=r.trace))
    if results and not any(r.kind == "termination" for r in results):
        return out     # the text's and the citations' findings go with the built-in
        #                termination property, so a sharded run reports them once
    for name, element in ruleset.undefined:
        out.append(Finding("undefined-reference", (element,), (name,),
                           f"the text refers to {name!r} but never defines it"))
    for term in ruleset.terms:
        if term.status == "proposed":
            out.append(Finding(
                "undefined-reference", (f"term:{term.name}",), (term.name,),
                f"the text uses {term.name!r} as a rules term, but the spec declares nothing "
                "by that name and no sentence defines it — declare it, list it under "
                "'undefined:' with its cite, or dismiss it under 'not-a-term:'"))
    return out + lint_findings(ruleset)


def _blocked_effect(ruleset: Ruleset, r: PropertyResult) -> Finding:
    """A rule that would make a model enter a State in a situation where a prevent says it
    cannot (the built-in invariant `blocked-effect:PREVENT:RULE:STATE` violated): the
    prevent wins in the model, silently unless the text says so (its `overrides`)."""
    _, prevent, rule, state = r.id.split(":", 3)
    prevents = ruleset.doc.prevents if ruleset.doc is not None else []
    decl = next((p for p in prevents if p.id == prevent), None)
    resolved = decl is not None and rule in decl.overrides
    return Finding(
        "blocked-effect", tuple(sorted((rule, prevent))), (state,),
        f"rule {rule!r} makes a model {state}, but {prevent!r} forbids it here: the effect "
        "does nothing"
        + ("; the prevent says it overrides the rule" if resolved else
           " — the text must say which sentence wins"),
        resolved=resolved, resolved_by=(prevent,) if resolved else (), trace=r.trace)
