"""Differential: the scope re-check's verdicts agree with explicit breadth-first search on
the widened system, on random small rulesets (tests/strategies.py).

For every property proved at the spec's ranges: the re-check reports a `scope-sensitive`
finding exactly when explicit search on the system with every range widened gives the other
verdict (an UNKNOWN from the re-check is allowed, and must be reported as such); a finding
that names a single range is confirmed by explicit search with only that range widened, and
its trace is replayed by the interpreter. Each generated ruleset gets two more properties
that hold at its own ranges only when nothing pushes a value past them (`x <= hi`,
`count(M) <= 3`), and one more event that raises them under a drawn condition (`grow`), so
that the re-check has verdicts to change."""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import SOURCE, rulesets

from checker.interpret import Interpreter, explore
from checker.ir import Property, Ruleset, System
from checker.options import Options
from checker.plan.tasks import check_properties
from checker.plan.widen import scope_recheck
from checker.results import Status
from checker.spec.load import load_ruleset
from checker.spec.widen import ranges, widened

pytestmark = pytest.mark.differential

OPTIONS = Options(max_depth=15, timeout_ms=20_000, explicit_limit=20_000, use_cache=False)
TALLY: Counter[str] = Counter()      # rulesets, re-checks, changed verdicts, for the curious


def _stable(system: System) -> bool:
    interp = Interpreter(system)
    return all(interp.is_stable(s) for s in interp.initial_states())


def _oracle(system: System, prop: Property) -> Status:
    """The verdict explicit search gives `prop` on `system`."""
    found = explore(system, prop, max_states=OPTIONS.explicit_limit)
    assert found.verdict != "limit"
    if prop.mode == "reachable":
        return Status.PROVED if found.verdict == "holds" else Status.VIOLATED
    return Status.VIOLATED if found.verdict == "fails" else Status.PROVED


def _agree(ruleset: Ruleset) -> None:
    props = check_properties(ruleset.system, OPTIONS)
    found, unknown = scope_recheck(ruleset, props, OPTIONS)
    TALLY["rulesets"] += 1
    TALLY["changed"] += len(found)
    TALLY["unknown"] += len(unknown)
    wide = widened(ruleset)
    assert ruleset.doc is not None
    if wide is None:
        assert found == [] and unknown == [] and ranges(ruleset.doc) == []
        return
    assume(_stable(wide.system))
    flipped = {dict(f.detail)["property"]: f for f in found}
    undecided = {u.id.removeprefix("scope:") for u in unknown}
    every = {r.name: r for r in ranges(ruleset.doc)}
    for p in props:
        if p.status is not Status.PROVED or p.id in undecided:
            assert p.id not in flipped
            continue
        prop = next(q for q in wide.system.properties if q.id == p.id)
        assert (p.id in flipped) == (_oracle(wide.system, prop) is Status.VIOLATED), p.id
        if p.id not in flipped:
            continue
        f = flipped[p.id]
        if f.trace is not None:
            assert f.trace.replayed
        named = [n for n in (r.split(":", 1)[1] for r in f.rules[1:]) if n in every]
        if len(named) == 1:        # that range alone changes the verdict
            one = widened(ruleset, [every[named[0]]])
            assert one is not None
            alone = next(q for q in one.system.properties if q.id == p.id)
            assert _oracle(one.system, alone) is Status.VIOLATED, (p.id, named)


GROW = ["S0", "not S0", "x == 2", "x >= 1", "roll == high", "x == 2 and S0"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(rulesets(), st.sampled_from(GROW))
def test_the_scope_recheck_agrees_with_explicit_search_on_the_widened_system(
        text: str, grow: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "rules.txt").write_text(SOURCE, encoding="utf-8")
        path = Path(folder) / "spec.yaml"
        hi = re.search(r"x: \{range: \[0, (\d)\]", text)
        assert hi is not None
        text += f'  - {{id: cap-x, always: "x <= {hi[1]}"}}\n'
        effects = '"x += 1", "add M"' if "M: {markers" in text else '"x += 1"'
        text = text.replace("events:\n", f'events:\n  - {{id: grow, when: "{grow}", '
                            f'do: [{effects}]}}\n', 1)
        if "M: {markers" in text:
            text += '  - {id: cap-m, always: "count(M) <= 3"}\n'
        path.write_text(text, encoding="utf-8")
        ruleset = load_ruleset(path)
        assume(_stable(ruleset.system))
        _agree(ruleset)
