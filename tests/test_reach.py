"""The BDD reachability core (`checker.engines.reach`) against explicit search.

- exact counts on the Noctvale and Eldfall seeds (micro states and stable situations) for
  `resolution="any"` (the semantics: any rule that may fire fires next) and for the former
  spec-order semantics (`"first"`, kept for benchmarks): unordered resolution reaches more
  micro states (other orders of the same rules) and, on these seeds, the same stable ones;
- on random rulesets (`strategies.rulesets`), `resolution="any"`: every verdict equals
  `explore_macro`'s (with and without partial-order reduction), every trace is replayed and
  as long (in events) as its BFS-shortest one, the micro and stable counts equal explicit
  search's; and the same against `any_search` below, a brute-force 0-1 breadth-first
  search over concrete states in which every enabled rule may fire (event steps cost one,
  micro steps nothing), written here independently of the core;
- an ordering rule (`Precedence`) on a hand-built system: the core only lets the rule the
  text puts first fire.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections import deque
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import rulesets, spec_system

from checker.engines.reach import Reach
from checker.engines.reach.bounded import BoundedCore
from checker.interpret import Interpreter, compile_expr, explore_macro, reachable_states
from checker.ir import Property, System
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.differential

ROOT = Path(__file__).resolve().parent.parent
State = tuple[int, ...]
EXAMPLES = int(os.environ.get("RULEPROOF_REACH_EXAMPLES", "30"))


# Eldfall without its `scenario` partition (spec/eldfall.yaml, 41,730,048 situations) is
# past explicit search: these tests use the partitioned copy kept as a test fixture
# (tests/fixtures/eldfall-partitioned.yaml, not the ruleset), small enough for it.
SEED_FILES = {"noctvale": "spec/noctvale.yaml",
              "eldfall-partitioned": "tests/fixtures/eldfall-partitioned.yaml"}


def _seed(name: str) -> System:
    return load_ruleset(ROOT / SEED_FILES[name], SEED_FILES[name]).system



@pytest.mark.parametrize(("seed", "resolution", "micro", "stable"),
                         [("noctvale", "any", 10_732_218, 1_623_528),
                          ("eldfall-partitioned", "any", 1_736_017, 6_488),
                          ("noctvale", "first", 11_289_210, 1_623_528),
                          ("eldfall-partitioned", "first", 172_237, 6_480)])
# eldfall-partitioned (the fixture: spec/eldfall.yaml at 49db158, with its `scenario`
# partition): declarations tied to events, HP 0..2 (the scope re-check), the restatements split
# and the "becomes" edges (Flying auto-cancel, Riders), voluntary Crouched in every scenario,
# a Dodge as a Reaction cancels Crouched, Flying's and Shrouded's table cells and priority
# row as their own rules (1,736,017 micro states and 6,488 situations under `any`, the
# same as the interpreter's explicit search, checked once, 344 s);
# noctvale: the activation checks in any order (no invented step order), one Sanity check
# per kind of source; the next battle (a fighter fights again with its Damned conditions),
# the `enters`/`leaves` bookkeeping of the Wound State moments, and (2026-12-05) whether the
# closest fighter is the Insanity's source, chosen with Frenzy's roll, and (2026-12-07) 1, 2
# or 3 Wounds at the start of each battle: 10,732,218 micro states without the resolution
# counter (the fast core's count; 12,340,698 with it) and 1,623,528 situations under
# `any`, the micro states the same as the interpreter's explicit search (checked once:
# 12,340,698 states with the counter, 10,732,218 without, 1,961 s on a loaded machine; with
# 1 Wound 2,040,314 and 887,736, before the board 1,872,698 and 803,064, before the
# per-source checks 879,098 and 245,304, each also checked).
# Under `any` the counts are the fast core's (`core.py`: micro states without the counter,
# which only numbers the steps of a resolution); under `first`, the counted core's
# (`bounded.py`), with it.
def test_seed_counts(seed: str, resolution: str, micro: int, stable: int) -> None:
    core = Reach(_seed(seed), resolution=resolution)  # type: ignore[arg-type]
    assert core.complete
    assert core.reachable_count() == micro
    assert core.stable_count() == stable
    assert core.stuck_count() == 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["noctvale", "eldfall-partitioned"])
def test_seed_verdicts(seed: str) -> None:
    """Every seed property: the same verdict and trace length (in events) as explicit
    macro search (about 20 s of explicit search per seed: `-m slow`)."""
    agree_explicit(_seed(seed), micro=False)


def test_the_computed_table_stays_at_its_initial_size() -> None:
    """The computed table is a memo; left to grow, it reached 2 million entries per manager
    (about 100 MB per reading variant's core, most of a check's memory). The cap keeps it
    at the size a new manager starts with, and the counts are still exact
    (`test_seed_counts`)."""
    import warnings

    from checker.engines.reach.encode import CACHE_ENTRIES

    core = Reach(_seed("eldfall-partitioned"))     # without the cap: 1,048,576 entries
    assert core.complete
    with warnings.catch_warnings():      # dd warns that 'mem' is in bytes since 0.5.7
        warnings.simplefilter("ignore")
        stats = core.core.enc.bdd.statistics()
    assert stats["cache_lookups"] > 10 * CACHE_ENTRIES    # enough work to have grown it
    assert stats["cache_size"] <= CACHE_ENTRIES


def test_node_budget_is_counted() -> None:
    core = Reach(_seed("noctvale"), node_budget=3_000)
    progress = core.run()
    assert not progress.complete and "node budget" in progress.reason
    statuses = {core.check(p).status for p in core.system.properties}
    assert "too-large" in statuses and "proved" not in statuses


def test_layer_budget_then_exact_chaining() -> None:
    """Stopped after 2 layers, the chained fixpoint still gives the exact sets: the same
    counts and verdicts as the complete layered search (traces only where layers meet)."""
    system = _seed("noctvale")
    core = Reach(system, layer_budget=2, counted=True)
    assert not core.run().complete and core.run().layers == 2
    assert core.reachable_count() == 12_340_698 and core.stable_count() == 1_623_528
    full = Reach(system, counted=True)
    for prop in system.properties:
        partial, exact = core.check(prop), full.check(prop)
        assert partial.status == exact.status, prop.id
        assert (partial.trace is not None) == (exact.layer is not None and exact.layer < 2)


# ------------------------------------------------------------------ against explicit search

def micro_count(core: Reach, states: Iterable[State]) -> int:
    """How many of `states` the core's `reachable_count` counts: all of them for the
    counted core, the distinct ones with the resolution counter left out for the fast one."""
    if not core.fast:
        return len(set(states))
    i = [v.name for v in core.system.vars].index(core.system.res_var)
    return len({s[:i] + s[i + 1:] for s in states})


def agree_explicit(system: System, *, micro: bool = True) -> None:
    core = Reach(system)
    assert core.complete
    oracle = explore_macro(system, system.properties, max_states=50_000)
    plain = explore_macro(system, system.properties, max_states=50_000, reduce=False)
    assert {k: len(v[1]) for k, v in oracle.hits.items()} == \
        {k: len(v[1]) for k, v in plain.hits.items()}
    if micro:
        states, complete = reachable_states(system, max_states=50_000)
        assert complete
        assert core.reachable_count() == micro_count(core, states)
    for prop in system.properties:
        result = core.check(prop)
        hit = oracle.hits.get(prop.id)
        found = result.status in ("violated", "reachable")
        assert found == (hit is not None), (prop.id, result.status)
        if hit is not None:
            assert result.checked == "replayed" and result.trace is not None
            assert len(result.events) == len(hit[1]), prop.id


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_core_agrees_with_explicit_search(text: str) -> None:
    agree_explicit(spec_system(text))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets(edges=True))
def test_core_agrees_with_explicit_search_on_enters_and_leaves(text: str) -> None:
    """The core forgets `_was` in stable situations (every event sets it before any rule
    reads it) and still agrees with explicit search."""
    agree_explicit(spec_system(text))


# ------------------------------------------------------------------ resolution="any"

def any_search(system: System) -> dict[State, int]:
    """Every reachable concrete state with the fewest events that reach it, when any
    enabled rule may fire at each micro step."""
    interp = Interpreter(system)
    index = interp.index
    res = index[system.res_var]
    monitors = [(index[n], compile_expr(w, index)) for n, w in system.monitors]
    guards = {e.id: compile_expr(e.guard, index) for e in system.events}
    inputs = [index[v.name] for v in interp.inputs]
    combos = list(itertools.product(*(range(v.lo, v.hi + 1) for v in interp.inputs)))

    def watch(pre: State, post: State) -> State:
        out = list(post)
        for i, w in monitors:
            out[i] = int(bool(pre[i]) or bool(w(pre)))
        return tuple(out)

    def successors(s: State) -> list[tuple[int, State]]:
        enabled = [r for r in system.rules if interp.is_enabled(r, s)]
        if enabled:
            if s[res] >= system.res_bound:
                return []
            out = []
            for r in enabled:
                nxt = list(interp.run_effects(r, s))
                nxt[res] = s[res] + 1
                out.append((0, watch(s, tuple(nxt))))
            return out
        out = []
        for combo in combos:
            rolled = list(s)
            for i, value in zip(inputs, combo, strict=True):
                rolled[i] = value
            pre = tuple(rolled)
            for ev in system.events:
                if guards[ev.id](pre):
                    out.append((1, watch(s, interp.run_effects(ev, pre))))
        return out

    dist: dict[State, int] = {}
    queue: deque[tuple[int, State]] = deque((0, s) for s in interp.initial_states())
    while queue:
        d, s = queue.popleft()
        if s in dist and dist[s] <= d:
            continue
        dist[s] = d
        for cost, nxt in successors(s):
            if nxt not in dist or dist[nxt] > d + cost:
                (queue.appendleft if cost == 0 else queue.append)((d + cost, nxt))
    return dist


def _any_oracle(system: System, dist: dict[State, int], prop: Property) -> int | None:
    interp = Interpreter(system)
    want = prop.mode == "reachable"
    hits = [d for s, d in dist.items() if interp.holds(prop, s) == want and
            (prop.at == "all" or interp.is_stable(s))]
    return min(hits) if hits else None


def agree_any(system: System, *, keep_layers: bool = True) -> None:
    core = Reach(system, resolution="any", keep_layers=keep_layers)
    assert core.complete
    if not keep_layers:
        assert isinstance(core.core, BoundedCore) and core.core.dropped
    dist = any_search(system)
    assert core.reachable_count() == micro_count(core, dist)
    for prop in system.properties:
        result = core.check(prop)
        want = _any_oracle(system, dist, prop)
        found = result.status in ("violated", "reachable")
        assert found == (want is not None), (prop.id, result.status)
        if want is not None:
            assert result.checked == "replayed" and result.trace is not None
            assert result.trace.replayed
            assert len(result.events) == want, prop.id


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_any_agrees_with_brute_force(text: str) -> None:
    agree_any(spec_system(text))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_frontier_only_layers_agree_with_brute_force(text: str) -> None:
    """A core that keeps only each layer's frontier (what it falls back to at its node
    budget) recomputes a layer's sets when a query needs them: the same counts, verdicts
    and shortest traces."""
    agree_any(spec_system(text), keep_layers=False)


def test_dropping_the_layers_at_the_budget_changes_no_answer() -> None:
    """Eldfall (the partitioned fixture) with a node budget its kept layers exceed: the
    core drops them, completes within the budget, and answers every property as the core
    that kept them, with traces as long (the same first layer meets each target)."""
    system = _seed("eldfall-partitioned")
    full = Reach(system, counted=True)
    assert isinstance(full.core, BoundedCore)
    assert full.complete and not full.core.dropped
    budget = full.core.progress.peak_nodes * 3 // 4
    lean = Reach(system, node_budget=budget, counted=True)
    assert isinstance(lean.core, BoundedCore)
    assert lean.complete and lean.core.dropped
    assert lean.core.progress.peak_nodes > budget     # the count that forced the drop
    assert (lean.reachable_count(), lean.stable_count()) == (1_736_017, 6_488)
    for prop in system.properties:
        a, b = full.check(prop), lean.check(prop)
        assert (a.status, a.layer, len(a.events)) == (b.status, b.layer, len(b.events)), \
            prop.id
        assert b.trace is None or b.trace.replayed


def test_the_check_answers_from_the_core_with_the_same_verdicts_as_without() -> None:
    """The product path: properties and decision-point queries answered from the shared
    core give the verdicts and findings of the Z3 engines and explicit search (core off)."""
    from checker.options import Options
    from checker.plan.check import check

    spec = ROOT / "docs" / "example-mini.yaml"
    runs = [check([spec], Options(use_cache=False, jobs=1, node_budget=budget))
            for budget in (Options().node_budget, 0)]
    (on,), (off,) = (r.checked for r in runs)
    assert [(p.id, p.status) for p in on.result.properties] == \
        [(p.id, p.status) for p in off.result.properties]
    assert [(f.kind, f.rules, f.states) for f in on.result.findings] == \
        [(f.kind, f.rules, f.states) for f in off.result.findings]
    for p_on, p_off in zip(on.result.properties, off.result.properties, strict=True):
        if p_off.trace is not None and p_on.trace is not None:     # both shortest
            assert len(p_on.trace.steps) == len(p_off.trace.steps), p_on.id


def test_a_long_session_keeps_only_the_newest_cores() -> None:
    """`--watch` and the language server check a new System on every save: the cores of
    old ones are dropped, so memory does not grow with every save."""
    import dataclasses

    from checker.engines.reach import api
    from checker.spec.load import load_ruleset

    system = load_ruleset(ROOT / "docs" / "example-mini.yaml").system
    copies = [dataclasses.replace(system, vars=tuple(list(system.vars))) for _ in range(12)]
    for s in copies:
        assert api.shared_core(s, 500_000) is not None
    assert api.cores_held() == api.SHARED_CORES


def test_the_cores_computed_before_the_fork_are_all_kept_until_released() -> None:
    """A check computes every unit's core before its workers fork (Eldfall's and Bushido's
    reading variants: 13 for the bundled rulesets); evicting one there made each worker
    compute it again. Pinned cores are never evicted; the newest unpinned ones still are."""
    import dataclasses

    from checker.engines.reach import api
    from checker.spec.load import load_ruleset

    system = load_ruleset(ROOT / "docs" / "example-mini.yaml").system

    def copy() -> System:
        return dataclasses.replace(system, vars=tuple(list(system.vars)))

    for s in [copy() for _ in range(12)]:          # a previous session's loose cores
        api.shared_core(s, 500_000)
    pinned = [copy() for _ in range(api.SHARED_CORES + 4)]
    cores = [api.shared_core(s, 500_000, pin=True) for s in pinned]
    loose = [copy() for _ in range(api.SHARED_CORES + 3)]
    for s in loose:
        api.shared_core(s, 500_000)
    assert api.cores_held() == len(pinned) + api.SHARED_CORES
    # every pinned core is still the one computed first (the same object, not recomputed)
    assert all(api.shared_core(s, 500_000) is c for s, c in zip(pinned, cores, strict=True))
    for s in pinned:
        api.release_cores(s)
    assert api.cores_held() == api.SHARED_CORES
    for s in loose:
        api.release_cores(s)
    assert api.cores_held() == 0


# ------------------------------------------------------------------ the counter's bound

LOOP = """\
ruleset: loop
source: rules.txt
states:
  Burning: {}
  Soaked: {}
events:
  - {id: ignite, do: [enter Burning]}
rules:
  - {id: burning-soaks, when: Burning, do: [enter Soaked, leave Burning]}
  - {id: soaked-reignites, when: Soaked, do: [leave Soaked, enter Burning]}
"""

CHAIN = """\
ruleset: chain
source: rules.txt
res_bound: 8
vars:
  x: {range: [0, 12], init: 12}
  start: {range: [0, 12], init: 0}
events:
  - {id: set-a, do: ["start = A", "x = A"]}
  - {id: set-b, do: ["start = B", "x = B"]}
rules:
  - {id: climb, when: "x < 12", do: ["x += 1"]}
properties:
  - {id: top, reachable: "x == 12 and start == B"}
"""


@pytest.mark.parametrize(("text", "stuck"), [
    (LOOP, True),                                           # a cycle of micro steps
    (CHAIN.replace("A", "3").replace("B", "6"), True),      # 9 steps: stuck after 8
    (CHAIN.replace("A", "4").replace("B", "6"), False),     # 8 steps: stable at the bound
])
def test_the_fast_core_hands_over_when_a_resolution_can_reach_the_bound(
        text: str, stuck: bool) -> None:
    """The fast core leaves the resolution counter out; when some resolution can reach
    `res_bound` (its heights say so) the counted core answers instead, and both agree with
    the brute-force search (the stuck states, termination's verdict and its trace)."""
    system = spec_system(text)
    core = Reach(system)
    assert core.complete and core.fast is not stuck
    assert (core.stuck_count() > 0) is stuck
    agree_any(system)
    termination = next(p for p in system.properties if p.kind == "termination")
    result = core.check(termination)
    assert result.status == ("violated" if stuck else "proved")
    if stuck:
        assert result.trace is not None and result.trace.replayed
        assert len(result.trace.steps[-1].fired) == system.res_bound


def test_a_question_about_the_counter_is_answered_by_the_counted_core() -> None:
    """The fast core's sets leave `_res` out; a query that reads it (none of the product's
    does) is answered by the counted core, with a trace that replays."""
    from checker.ir import Const, Op, V

    system = spec_system(CHAIN.replace("A", "4").replace("B", "6"))
    core = Reach(system)
    assert core.fast
    at = Op("and", (Op("eq", (V("x"), Const(12))), Op("eq", (V("_res"), Const(8)))))
    result = core.check(Property("late", "late", "reachable", "reachable", at, "all"))
    assert result.status == "reachable" and result.trace is not None
    assert result.checked == "replayed"
    too_late = Op("eq", (V("_res"), Const(9)))
    assert core.check(Property("later", "later", "reachable", "reachable", too_late,
                               "all")).status == "unreachable"


def test_termination_is_answered_by_the_fast_core() -> None:
    """Termination's expression reads `_res`, but its violations are the stuck states,
    which the fast core's heights decide: no counted core is built for it."""
    system = _seed("noctvale")
    core = Reach(system)
    termination = next(p for p in system.properties if p.kind == "termination")
    assert core.check(termination).status == "proved"
    assert core.fast and core._counted_core is None


def _encoded_both_ways(system: System, states: list[tuple[int, ...]]) -> list:
    """(encoding, the set of `states` in it) in the spec's variable order and the reverse."""
    from checker.engines.reach.encode import Encoding

    names = [v.name for v in system.vars]
    out = []
    for order in (names, names[::-1]):
        enc = Encoding(system, order=order)
        every = enc.bdd.false
        for s in states:
            every |= enc.state_cube(s)
        out.append((enc, every))
    return out


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_a_pick_is_the_least_state_whatever_the_variable_order(text: str) -> None:
    """Witnesses start from `Encoding.pick`: the least state of a set in the system's
    order, the same for any variable order (so sifting, which differs with how a check is
    split over processes, never changes a trace)."""
    system = spec_system(text)
    states = sorted(any_search(system))
    for enc, every in _encoded_both_ways(system, states):
        assert enc.pick(every) == states[0]
        if len(states) > 1:
            assert enc.pick(every & ~enc.state_cube(states[0])) == states[1]


@functools.cache
def _noctvale() -> System:
    return _seed("noctvale")


@st.composite
def _noctvale_sets(draw: st.DrawFn) -> tuple[list[tuple[int, ...]], list[str]]:
    system = _noctvale()
    state = st.tuples(*[st.integers(v.lo, v.hi) for v in system.vars])
    names = [v.name for v in system.vars]
    return draw(st.lists(state, min_size=1, max_size=12)), draw(st.lists(
        st.sampled_from(names), unique=True))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(_noctvale_sets())
def test_a_pick_is_the_least_state_of_any_set(drawn) -> None:
    """`Encoding.pick` on arbitrary sets over Noctvale's variables (ranges like 0..6, not
    powers of two): the least state in the system's order, each variable outside `names`
    read as its `lo`, in the spec's variable order and in the reverse one."""
    states, chosen = drawn
    system = _noctvale()
    names = [v.name for v in system.vars]
    for enc, every in _encoded_both_ways(system, states):
        assert enc.pick(every) == min(states)
        lows = [v.lo for v in system.vars]
        projected = [tuple(x if n in chosen else lo for n, x, lo in zip(names, s, lows,
                                                                        strict=True))
                     for s in states]
        assert enc.pick(every, chosen) == min(projected)


@functools.lru_cache(maxsize=1)
def _noctvale_cores() -> tuple:
    """Noctvale's fast core (complete) and its counted core (relations writing `_res`)."""
    fast = Reach(_noctvale()).core
    fast.run()
    return fast, BoundedCore(_noctvale())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_noctvale_sets())
def test_a_preimage_by_the_inverse_relation_is_the_textbook_one(drawn) -> None:
    """`Relations.preimage` (the image under the relation with current and next bits of
    the written variables swapped, the result renamed) is the textbook
    `∃y_W. X[x_W := y_W] ∧ R_t` for every event and rule of both Noctvale cores, on
    arbitrary sets of states and on those sets within the reachable ones."""
    from dd import cudd
    states, _ = drawn
    for core in _noctvale_cores():
        enc = core.enc
        every = enc.bdd.false
        for t in states:
            every |= enc.state_cube(t, core.state_names)
        sets = [every, every | core.all_micro] if hasattr(core, "all_micro") else [every]
        for x in sets:
            for r in (*core.rel.events, *core.rel.rules):
                textbook = cudd.and_exists(enc.bdd.let(r.ren_cur, x), r.rel, r.qnext)
                assert core.rel.preimage(r, x) == textbook, r.transition.id


def _skips_exact(system: System, limit: int, *, counted: bool = False) -> int:
    """How many (transition, reachable micro state) pairs `witness._may_lead_to` skips,
    asserting that the preimage of each is empty; in the fast core, or (`counted`) in the
    core that keeps the resolution counter (`BoundedCore`: its relations also write
    `_res`, which is never a constant)."""
    from checker.engines.reach.witness import _may_lead_to

    core = BoundedCore(system) if counted else Reach(system).core
    enc = core.enc
    states, _ = reachable_states(system, max_states=limit)
    skipped = 0
    for t in sorted(states)[:200]:
        cube = enc.state_cube(t, core.state_names)
        for r in (*core.rel.events, *core.rel.rules):
            if not _may_lead_to(r, t):
                skipped += 1
                assert core.rel.preimage(r, cube) == enc.bdd.false, (r.transition.id, t)
    return skipped


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_a_walk_back_skips_only_steps_that_cannot_end_in_the_state(text: str) -> None:
    """`witness._may_lead_to` (a transition that sets a variable to a constant cannot end
    in a state without it) skips a preimage only where the preimage is empty: checked
    for every event and rule of both cores against reachable micro states."""
    _skips_exact(spec_system(text), 2_000)
    _skips_exact(spec_system(text), 2_000, counted=True)


def test_a_walk_back_skips_most_event_preimages_on_noctvale() -> None:
    skipped = _skips_exact(_seed("noctvale"), 2_000)
    assert skipped > 200    # 200 states: at least one skip per state
    assert _skips_exact(_seed("noctvale"), 2_000, counted=True) > 200


@pytest.mark.parametrize("large_from", [0, 10**9])
def test_siftings_of_either_bound_change_no_set(monkeypatch, large_from: int) -> None:
    """The core sifts at counted points, with CUDD's growth bound 1.2 or, from
    `LARGE_SIFT` live nodes, 1.02 (`CoreBase._sift`): on Noctvale, sifting from 2,000 nodes
    with either bound reaches as many micro states, stable situations and heights as never
    sifting; each sifting uses the bound its threshold selects, and leaves CUDD's default
    set in the manager for its dynamic reordering."""
    from checker.engines.reach import core as core_module
    system = _noctvale()
    never = core_module.Core(system, sift_at=0)
    assert never.run().complete and never.progress.siftings == 0
    monkeypatch.setattr(core_module, "LARGE_SIFT", large_from)
    monkeypatch.setattr(core_module, "_ORDERS", {})    # start from FORCE, not a kept order
    growths: list[float] = []
    sift_once = core_module._sift_once

    def logged(bdd: object, growth: float) -> None:
        growths.append(growth)
        sift_once(bdd, growth)

    monkeypatch.setattr(core_module, "_sift_once", logged)
    sifted = core_module.Core(system, sift_at=2_000)
    assert sifted.run().complete and sifted.progress.siftings == len(growths) > 0
    assert set(growths) == {1.02 if large_from == 0 else 1.2}
    assert sifted.enc.bdd.configure()["max_growth"] == pytest.approx(1.2)   # CUDD's own
    assert sifted.var_order() != never.var_order()
    assert sifted.reachable_count() == never.reachable_count() > 0
    assert sifted.stable_count() == never.stable_count() > 0
    assert len(sifted.heights) == len(never.heights)
