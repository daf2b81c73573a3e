"""Z3 certificates of the decision-diagram core's proofs (`checker.engines.reach.certify`).

- on random rulesets (`strategies.rulesets`) every "proved" / "unreachable" of the core is
  certified by Z3 (initiation, consecution, the property), and the same reachable set with
  one state dropped fails initiation or consecution (an `InternalError`, a bug);
- a property the core finds violated refutes the "it excludes the targets" query;
- on Noctvale every core proof is certified, and a resource limit of 1 unit leaves the
  certificate "unchecked" (reported, never read as certified); a decision-diagram relation
  that lacks a step the Z3 encoding takes is refuted by Z3 (the refinement half of
  consecution);
- the check records the method: `decision-diagrams` (certified) for a proof by exhaustion.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from strategies import rulesets, spec_system

from checker.engines.reach import Reach
from checker.engines.reach.certify import Certifier
from checker.engines.reach.core import Core
from checker.engines.reach.relation import Relations
from checker.errors import InternalError
from checker.ir import System
from checker.options import Options
from checker.plan.tasks import check_properties
from checker.results import REACHABLE_KINDS, Method, Status
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.differential

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("RULEPROOF_REACH_EXAMPLES", "30"))



def _noctvale() -> System:
    return load_ruleset(ROOT / "spec" / "noctvale.yaml", "spec/noctvale.yaml").system


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_every_core_proof_is_certified_and_a_dropped_state_is_caught(text: str) -> None:
    system = spec_system(text)
    core = Reach(system)
    assert core.complete
    for prop in system.properties:
        status = core.check(prop).status
        if status in ("proved", "unreachable"):
            assert core.certify(prop).status == "certified", prop.id
        else:               # a target is reachable: "Inv excludes it" is refuted
            with pytest.raises(InternalError, match="target"):
                core.certify(prop)
    enc, micro = core.core.enc, core.core.all_micro
    heights = core.core.heights if isinstance(core.core, Core) else None
    assert Certifier(system, enc, micro, heights=heights).inductive().status == "certified"
    dropped = enc.pick(micro)     # (with the counter left out, every count of it)
    wrong = Certifier(system, enc, micro & ~enc.state_cube(dropped, core.core.state_names),
                      heights=heights)
    with pytest.raises(InternalError, match=r"initiation|consecution"):
        wrong.inductive()


def test_noctvale_proofs_certified_and_an_exhausted_limit_is_unchecked() -> None:
    system = _noctvale()
    core = Reach(system, node_budget=500_000)
    proved = [p for p in system.properties if core.check(p).status in ("proved", "unreachable")]
    assert proved
    for prop in proved:
        assert core.certify(prop).status == "certified", prop.id
    assert isinstance(core.core, Core)
    starved = Certifier(system, core.core.enc, core.core.all_micro, rlimit=1,
                        heights=core.core.heights)
    result = starved.inductive()
    assert result.status == "unchecked" and "resource" in result.detail


def test_a_relation_missing_a_step_of_the_z3_encoding_is_caught() -> None:
    """Consecution is split (certify.py): the diagrams check that their relations keep the
    set, Z3 that every step of its encoding is a step of those relations. A relation that
    lost its steps (here a rule's, emptied) keeps the set trivially, and Z3 refutes it."""
    system = _noctvale()
    core = Reach(system, node_budget=500_000)
    assert core.complete and isinstance(core.core, Core)
    enc = core.core.enc
    rel = Relations(enc, counter=True)
    rule = next(r for r in rel.rules if r.cond != enc.bdd.false)
    rule.rel = enc.bdd.false
    wrong = Certifier(system, enc, core.core.all_micro, heights=core.core.heights,
                      relations=rel)
    with pytest.raises(InternalError, match=rf"consecution.*{rule.transition.id}"):
        wrong.inductive()


def test_a_rule_enabled_in_the_diagrams_where_z3_holds_the_state_stable_is_caught() -> None:
    """"Stable" is certified once for all events (`_refined`): every state the Z3
    encoding holds stable (where events may happen) must be stable in the diagrams. A rule
    whose `enabled` diagram is widened to every state breaks it, and Z3 refutes it; the
    closure in the diagrams cannot see it (no state of the set is stable for them then)."""
    system = _noctvale()
    core = Reach(system, node_budget=500_000)
    assert core.complete and isinstance(core.core, Core)
    enc = core.core.enc
    rel = Relations(enc, counter=True)
    rel.rules[0].enabled = enc.bdd.true
    wrong = Certifier(system, enc, core.core.all_micro, heights=core.core.heights,
                      relations=rel)
    with pytest.raises(InternalError, match=r"consecution: a state the Z3 encoding holds "
                       r"stable"):
        wrong.inductive()


def test_the_check_names_the_certified_method() -> None:
    system = _noctvale()
    results = check_properties(system, Options(use_cache=False))
    from_core = [r for r in results if r.method in (Method.DECISION_DIAGRAMS,
                                                    Method.DECISION_DIAGRAMS_UNCHECKED)]
    by_core = [r for r in from_core if r.trace is None]
    traces = [r for r in from_core if r.trace is not None]
    assert by_core, "some Noctvale property is proved by exhaustion of the core"
    assert all(r.method is Method.DECISION_DIAGRAMS for r in from_core)
    assert all("certified by Z3" in r.reason for r in by_core)
    # Noctvale's broken promises and witnesses are the core's traces, and named so
    assert traces and not [r.id for r in results if r.method is Method.EXPLICIT]
    assert all(r.status is (Status.PROVED if r.kind in REACHABLE_KINDS else Status.VIOLATED)
               for r in traces)
    assert all(r.status is not Status.UNKNOWN for r in results)
    starved = check_properties(system, Options(use_cache=False, cert_rlimit=1))
    unchecked = [r for r in starved if r.method is Method.DECISION_DIAGRAMS_UNCHECKED]
    assert [r.id for r in unchecked] == [r.id for r in by_core]
    assert all("certificate not checked" in r.reason for r in unchecked)


def test_the_shared_node_memo_survives_reorderings_and_garbage() -> None:
    """`to_z3` shares node terms across calls by node number (an address). A reordering
    rebuilds the nodes below each root, and collected nodes' addresses are reused: every
    translation through the shared memo must still be the diagram's own function (Z3:
    equal to a translation with a memo of its own), whatever was reordered or dropped in
    between (the Eldfall check once refuted a true certificate through a stale entry), and
    a reordering empties the memo."""
    import z3  # noqa: TID251 - compares the certificate's z3 terms

    from checker.encode import encode
    from checker.engines.reach.certify import to_z3

    system = _noctvale()
    core = Reach(system, node_budget=500_000)
    assert isinstance(core.core, Core)
    bdd_enc = core.core.enc
    rel = Relations(bdd_enc, counter=True)
    ctx = z3.Context()
    enc = encode(system, ctx)
    memo: dict[object, object] = {}
    live = [r.rel for r in [*rel.events, *rel.rules]]     # alive as long as the memo
    reorderings = bdd_enc.reorderings()
    for round_ in range(3):
        # diagrams dropped after their call, built anew each round (collected nodes'
        # addresses are taken again by them)
        dropped = [rel.image(r, core.core.all_micro) & ~u
                   for r in rel.events for u in (core.core.all_micro, bdd_enc.bdd.false)]
        for i, u in enumerate(live + dropped):
            shared = to_z3(bdd_enc, u, enc.cur, ctx, memo, enc.nxt, keep=i < len(live))
            own = to_z3(bdd_enc, u, enc.cur, ctx, None, enc.nxt)
            solver = z3.Solver(ctx=ctx)
            solver.add(enc.domain, shared != own)
            assert solver.check() == z3.unsat, (round_, i)
        del dropped
        bdd_enc.bdd.reorder()             # sifting: rebuilds the nodes below every root
    assert bdd_enc.reorderings() > reorderings
    # a reordering empties what the memo knew (the rebuilt nodes' numbers are not theirs)
    to_z3(bdd_enc, bdd_enc.bdd.true, enc.cur, ctx, memo)
    assert not [k for k in memo if isinstance(k, int)]
