"""Budgets are counts; the wall clock is only a safety net (issue #19).

- the defaults: every Z3 query has a resource limit (`Options.rlimit`), and the wall-clock
  timeout is far above what the count allows, so it does not decide a verdict;
- the shared explicit search stopped by its wall-clock safety net (0 s here): every
  property it did not settle is UNKNOWN with that reason, not handed to engines whose
  answer would then depend on the clock; a violation it found keeps its replayed trace.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.options import Options
from checker.plan.tasks import Expired, check_properties, shared_search
from checker.results import Status, StopReason
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "example-mini.yaml"


def test_the_defaults_are_counted_budgets() -> None:
    o = Options()
    assert o.rlimit > 0 and o.cert_rlimit > 0 and o.node_budget > 0
    assert o.search_states > 0 and o.explicit_limit > 0 and o.max_depth > 0
    assert o.timeout_ms >= 600_000 and o.explicit_seconds >= 600


def test_the_explicit_search_safety_net_gives_unknown_with_its_reason() -> None:
    system = load_ruleset(SPEC, "docs/example-mini.yaml").system
    options = Options(node_budget=0, explicit_seconds=0.0, use_cache=False)
    _, macro = shared_search(system, options)
    assert isinstance(macro, Expired) and "safety net" in macro.why
    results = check_properties(system, options)
    open_ = [r for r in results if r.id not in macro.hits]
    assert open_, "the search stopped before it settled every property"
    for r in open_:
        assert r.status is Status.UNKNOWN and r.method is None
        assert r.reason.startswith(StopReason.TIMEOUT.value) and "safety net" in r.reason
    for r in results:
        if r.id in macro.hits:
            assert r.status is not Status.UNKNOWN and r.trace is not None
