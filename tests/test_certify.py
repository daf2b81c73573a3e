"""Z3 certificates of the decision-diagram core's proofs (`checker.engines.reach.certify`).

- on random rulesets (`strategies.rulesets`) every "proved" / "unreachable" of the core is
  certified by Z3 (initiation, consecution, the property), and the same reachable set with
  one state dropped fails initiation or consecution (an `InternalError`, a bug);
- a property the core finds violated refutes the "it excludes the targets" query;
- on Noctvale every core proof is certified, and a resource limit of 1 unit leaves the
  certificate "unchecked" (reported, never read as certified);
- the check records the method: `decision-diagrams` (certified) for a proof by exhaustion.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from strategies import load_spec, rulesets

from checker.engines.reach import Reach
from checker.engines.reach.certify import Certifier
from checker.errors import InternalError
from checker.ir import System
from checker.options import Options
from checker.plan.tasks import check_properties
from checker.results import Method, Status
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.differential

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("RULEPROOF_REACH_EXAMPLES", "30"))


def _load(text: str) -> System:
    with tempfile.TemporaryDirectory() as folder:
        return load_spec(Path(folder), text)


def _noctvale() -> System:
    return load_ruleset(ROOT / "spec" / "noctvale.yaml", "spec/noctvale.yaml").system


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_every_core_proof_is_certified_and_a_dropped_state_is_caught(text: str) -> None:
    system = _load(text)
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
    assert Certifier(system, enc, micro).inductive().status == "certified"
    dropped = enc.pick(micro)
    wrong = Certifier(system, enc, micro & ~enc.state_cube(dropped))
    with pytest.raises(InternalError, match=r"initiation|consecution"):
        wrong.inductive()


def test_noctvale_proofs_certified_and_an_exhausted_limit_is_unchecked() -> None:
    system = _noctvale()
    core = Reach(system, node_budget=500_000)
    proved = [p for p in system.properties if core.check(p).status in ("proved", "unreachable")]
    assert proved
    for prop in proved:
        assert core.certify(prop).status == "certified", prop.id
    starved = Certifier(system, core.core.enc, core.core.all_micro, rlimit=1)
    result = starved.inductive()
    assert result.status == "unchecked" and "resource" in result.detail


def test_the_check_names_the_certified_method() -> None:
    system = _noctvale()
    results = check_properties(system, Options(use_cache=False))
    by_core = [r for r in results if r.method in (Method.DECISION_DIAGRAMS,
                                                  Method.DECISION_DIAGRAMS_UNCHECKED)]
    assert by_core, "some Noctvale property is proved by exhaustion of the core"
    assert all(r.method is Method.DECISION_DIAGRAMS for r in by_core)
    assert all("certified by Z3" in r.reason for r in by_core)
    assert all(r.status is not Status.UNKNOWN for r in results)
    starved = check_properties(system, Options(use_cache=False, cert_rlimit=1))
    unchecked = [r for r in starved if r.method is Method.DECISION_DIAGRAMS_UNCHECKED]
    assert [r.id for r in unchecked] == [r.id for r in by_core]
    assert all("certificate not checked" in r.reason for r in unchecked)
