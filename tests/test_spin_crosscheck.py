"""SPIN as an independent cross-check (issue 8): the Promela export of a ruleset, checked by
an exhaustive SPIN safety search, must give the reference interpreter's verdict for every
property both decide: the example, generated specs, and the seed rulesets.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.engines import check_property
from checker.export.spin import SpinResult, run_spin, run_spin_all, spin_available
from checker.graph.analyze import cone
from checker.interpret import Interpreter, explore, reachable_states
from checker.ir import (
    FALSE,
    TRUE,
    Assign,
    Const,
    LExpr,
    Op,
    Property,
    System,
    V,
    Var,
    conj,
    disj,
    lvars,
    neg,
    post_state,
)
from checker.options import Options
from checker.spec.load import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(spin_available() is not None,
                       reason=f"SPIN cross-check needs spin and gcc: {spin_available()}"),
]


def crosscheck(system: System, props: list[Property], base: Path, *, max_states: int = 200_000,
               opt: str = "-O0", single: bool = False,
               timeout_s: float = 600.0) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Rows (property, explore verdict, SPIN verdict and detail) for the properties explore
    decides, and the ids explore could not decide (its state limit). SPIN checks them all
    with one compilation (`run_spin_all`); with `single`, also one model per property
    (`run_spin`, the exported models), which must say the same."""
    oracle = {p.id: explore(system, p, max_states=max_states).verdict for p in props}
    todo = [p for p in props if oracle[p.id] != "limit"]
    batch = run_spin_all(system, todo, workdir=base / "all", timeout_s=timeout_s, cc_opt=opt,
                         max_depth=100_000, hash_bits=18)
    got = [f"{r.verdict}: {r.detail}" for r in batch]
    if single:
        with ThreadPoolExecutor(max_workers=2) as pool:
            alone = list(pool.map(lambda ip: run_spin(system, ip[1], workdir=base / str(ip[0]),
                                                      timeout_s=timeout_s, cc_opt=opt,
                                                      max_depth=100_000, hash_bits=18),
                                  enumerate(todo)))
        got = [g if g.split(":")[0] == a.verdict else f"{g} BUT alone {a.verdict}: {a.detail}"
               for g, a in zip(got, alone, strict=True)]
    rows = [(p.id, oracle[p.id], g) for p, g in zip(todo, got, strict=True)]
    return rows, [p.id for p in props if oracle[p.id] == "limit"]


def _disagreements(rows: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Rows where both decided and disagree, or SPIN did not decide a small system."""
    return [r for r in rows if not r[2].startswith(r[1] + ":")]


# ----------------------------------------------------------------------------- the example

def test_example_mini_agrees(tmp_path: Path) -> None:
    system = load_ruleset(ROOT / "docs" / "example-mini.yaml").system
    rows, undecided = crosscheck(system, list(system.properties), tmp_path, single=True)
    assert not undecided
    assert len(rows) == len(system.properties) >= 15
    assert not _disagreements(rows)
    assert {want for _, want, _ in rows} == {"holds", "fails"}


# ----------------------------------------------------------------------------- generated specs

FLAGS = ("Prone", "Stunned", "Hidden")


@st.composite
def specs(draw: st.DrawFn) -> str:
    """A small valid spec: flag States (maybe terminal, maybe stacking), a counted marker
    State, an int var, one input, optional phases and two models, events (emitting earlier
    events), level- and edge-triggered rules (maybe repeat_while), and properties."""
    two = draw(st.booleans())
    flags = FLAGS[:draw(st.integers(2, 3))]
    hi = draw(st.integers(1, 3))
    roll = draw(st.sampled_from([["pass", "fail"], ["low", "mid", "high"], "bool"]))
    labels = ["false", "true"] if roll == "bool" else roll
    markers = draw(st.booleans())
    phases = draw(st.booleans())
    spec: dict[str, object] = {"ruleset": "gen", "source": "rules.txt"}
    if two:
        spec["models"] = ["a", "b"]
    if phases:
        spec["phases"] = ["start", "end"]
    if draw(st.booleans()):
        spec["meta"] = [{"id": "no-stack", "stacking": "none"}]
    spec["vars"] = {"n": {"range": [0, hi], "init": draw(st.integers(0, hi))}}
    spec["inputs"] = {"roll": roll}
    states: dict[str, dict[str, object]] = {}
    for f in flags:
        decl: dict[str, object] = {}
        if draw(st.integers(0, 4)) == 0:
            decl["terminal"] = True
        if draw(st.integers(0, 3)) == 0:
            decl["stacking"] = draw(st.sampled_from(["none", "stack"]))
        states[f] = decl
    if markers:
        states["Bleed"] = {"markers": {"max": 2}}
    spec["states"] = states

    def atom() -> str:
        options = [*flags, *(f"not {f}" for f in flags), f"n >= {draw(st.integers(1, hi))}",
                   "n == 0", f"roll == {draw(st.sampled_from(labels))}"]
        if markers:
            options.append("count(Bleed) >= 1")
        if two:
            options += [f"other.{f}" for f in flags] + [f"any({f})" for f in flags]
        return draw(st.sampled_from(options))

    def cond() -> str:
        parts = [atom() for _ in range(draw(st.integers(1, 2)))]
        return f" {draw(st.sampled_from(['and', 'or']))} ".join(parts)

    def effects(emittable: list[str]) -> list[str]:
        options = [*(f"enter {f}" for f in flags), *(f"leave {f}" for f in flags),
                   "n += 1", "n -= 1", "n = 0", *(f"emit {e}" for e in emittable)]
        if markers:
            options += ["add Bleed", "remove 1 Bleed", "remove all Bleed"]
        return [draw(st.sampled_from(options)) for _ in range(draw(st.integers(1, 2)))]

    events: list[dict[str, object]] = []
    for i in range(draw(st.integers(1, 3))):
        ev: dict[str, object] = {"id": f"e{i}", "do": effects([f"e{j}" for j in range(i)])}
        if draw(st.booleans()):
            ev["when"] = cond()
        events.append(ev)
    spec["events"] = events
    triggers = [e["id"] for e in events] + (["end-phase"] if phases else [])
    rules: list[dict[str, object]] = []
    for i in range(draw(st.integers(1, 3))):
        rule: dict[str, object] = {"id": f"r{i}", "when": cond(),
                                   "do": effects([str(e["id"]) for e in events])}
        if draw(st.booleans()):
            rule["on"] = draw(st.sampled_from(triggers))
            if draw(st.integers(0, 3)) == 0:
                rule["repeat_while"] = cond()
        rules.append(rule)
    spec["rules"] = rules
    props: list[dict[str, object]] = []
    for i in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["always", "never", "reachable", "implies"]))
        if kind == "implies":
            props.append({"id": f"p{i}", "always": f"{atom()} implies {atom()}"})
        else:
            props.append({"id": f"p{i}", kind: cond()})
    if draw(st.booleans()):
        props.append({"id": "cap", "always": f"n <= {draw(st.integers(0, hi))}"})
    if draw(st.booleans()):
        props.append({"id": "term", "terminal": draw(st.sampled_from(flags))})
    spec["properties"] = props
    return yaml.safe_dump(spec, sort_keys=False)


def test_generated_specs_agree(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp("gen")
    tally = {"specs": 0, "properties": 0, "holds": 0, "fails": 0}

    @settings(max_examples=22, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(specs())
    def agree(text: str) -> None:
        work = Path(tempfile.mkdtemp(dir=base))
        (work / "rules.txt").write_text("Generated rules.\n", encoding="utf-8")
        (work / "spec.yaml").write_text(text, encoding="utf-8")
        system = load_ruleset(work / "spec.yaml").system
        rows, undecided = crosscheck(system, list(system.properties), work / "spin")
        assert not undecided, text
        assert not _disagreements(rows), (text, _disagreements(rows))
        tally["specs"] += 1
        tally["properties"] += len(rows)
        for _, want, _ in rows:
            tally[want] += 1

    agree()
    assert tally["specs"] >= 20 and tally["fails"] > 0 and tally["holds"] > 0, tally


# ----------------------------------------------------------------------------- seed rulesets

def _oracle_by_enumeration(system: System, props: list[Property],
                           max_states: int) -> dict[str, str] | None:
    """`explore`'s verdict for each invariant from one enumeration of the reachable states
    (`explore` would walk the whole graph again for every property that holds), or None
    when the enumeration hits `max_states`. Violations are confirmed by `explore` itself."""
    states, complete = reachable_states(system, max_states=max_states)
    if not complete:
        return None
    interp = Interpreter(system)
    res = interp.index[system.res_var]
    verdicts: dict[str, str] = {}
    for p in props:
        bad = any((interp.checked_here(p, s) and not interp.holds(p, s))
                  or (p.kind == "termination" and not interp.is_stable(s)
                      and s[res] >= system.res_bound) for s in states)
        verdicts[p.id] = "fails" if bad else "holds"
        if bad:
            assert explore(system, p, max_states=max_states).verdict == "fails", p.id
    return verdicts


@pytest.mark.slow
@pytest.mark.parametrize("name", ["eldfall", "noctvale", "bushido"])
def test_seed_ruleset_invariants_agree(name: str, tmp_path: Path) -> None:
    path = ROOT / "spec" / f"{name}.yaml"
    assert path.exists(), f"spec/{name}.yaml is missing"
    system = load_ruleset(path).system
    invariants = [p for p in system.properties if p.mode == "invariant"]
    limit = 200_000
    oracle = _oracle_by_enumeration(system, invariants, limit)
    if oracle is None:
        pytest.skip(f"{name}: more than {limit} reachable states, the interpreter's explicit "
                    "search limit; no oracle to compare SPIN with")
    results = run_spin_all(system, invariants, workdir=tmp_path, timeout_s=1800, cc_opt="-O2")
    rows = [(p.id, oracle[p.id], f"{r.verdict}: {r.detail}")
            for p, r in zip(invariants, results, strict=True)]
    assert not _disagreements(rows), _disagreements(rows)


# ----------------------------------------------------------------------------- slices
#
# The seed test above needs every reachable state enumerated, which Bushido's millions of
# states do not allow; nor does SPIN finish on the whole of Bushido (2 GB were exhausted;
# with the macro reduction, 7 million states and 2.7 GB after 8 minutes, still growing).
# Here SPIN checks each invariant on an over-approximation small enough to enumerate, so
# "holds" there is "holds" on the system; a violation found there may be spurious and is
# checked again on ruleproof's own slice, then on the whole system. Termination, whose cone
# is the whole system, is checked block by block (`spin_termination`). SPIN's verdicts are
# compared with ruleproof's (`check_property`): PROVED ↔ holds, VIOLATED ↔ a violation of
# the whole system. Every model is exported with `macro=True` (`checker.export.promela`).

SPIN_OPTS: dict[str, Any] = {"timeout_s": 900.0, "memlim_mb": 6000, "hash_bits": 22,
                             "max_depth": 2_000_000, "cc_opt": "-O1",
                             "cc_flags": ("-DCOLLAPSE",), "macro": True}


def influence(system: System, prop: Property) -> set[str]:
    """`checker.graph.analyze.cone_vars` without its seed of every event guard's variables:
    what `prop` reads, closed under the rules that write it (their guards, writes and
    reads), what the events' new values of it read, and what its monitors watch."""
    out = set(lvars(prop.expr))
    posts = [post_state(ev.effects) for ev in system.events]
    while True:
        before = len(out)
        for r in system.rules:
            writes = {a.var for a in r.effects}
            if writes & out:
                out |= lvars(r.guard) | writes
                for a in r.effects:
                    out |= lvars(a.value)
        for post in posts:
            for var, value in post.items():
                if var in out:
                    out |= lvars(value)
        for seen, watched in system.monitors:
            if seen in out:
                out |= lvars(watched)
        if len(out) == before:
            return out


def weaker(e: LExpr, drop: set[str], strong: bool = False) -> LExpr:
    """A formula that `e` implies (with `strong`, one that implies `e`): every atom — a
    subformula not built with not/and/or/implies — that reads a variable in `drop` becomes
    true (false), by the polarity it occurs in."""
    match e:
        case Op("not", (a,)):
            return neg(weaker(a, drop, not strong))
        case Op("and", args):
            return conj(*(weaker(a, drop, strong) for a in args))
        case Op("or", args):
            return disj(*(weaker(a, drop, strong) for a in args))
        case Op("implies", (a, b)):
            return disj(neg(weaker(a, drop, not strong)), weaker(b, drop, strong))
    if lvars(e) & drop:
        return FALSE if strong else TRUE
    return e


def abstraction(system: System, prop: Property) -> tuple[System, bool]:
    """An over-approximation of `system` for `prop`, and whether it is a slice (which idles,
    see `checker.export.promela`): every event guard weakened (`weaker`) to ignore the
    variables outside `influence(system, prop)` except the inputs, then sliced by
    `checker.graph.analyze.cone`. A weaker guard only adds steps, and the slice
    over-approximates the projection of the system (the docstring of `_cone`); so the
    projection of every reachable state is reachable here and "holds" here is "holds"."""
    keep = influence(system, prop)
    drop = {v.name for v in system.vars if v.name not in keep and v.kind != "input"}
    events = tuple(dataclasses.replace(ev, guard=weaker(ev.guard, drop)) for ev in system.events)
    weak = dataclasses.replace(system, events=events)
    sliced = cone(weak, prop)
    return sliced, sliced is not weak


def rule_blocks(system: System) -> list[tuple[System, bool, frozenset[str]]]:
    """Slices (`abstraction`, and whether it idles) whose rules together are all the rules of
    `system`, each with the rules it *owns*: every rule is owned by exactly one slice. For
    the first rule not yet covered, the abstraction for a property that reads what the rule
    writes; it owns its rules not covered before. The rules of a slice are closed under
    "the rules that write a variable one of them reads or writes" (`cone` keeps every rule
    that writes its cone), so no rule outside it changes how its rules fire."""
    reads: set[str] = set()
    for r in system.rules:
        reads |= lvars(r.guard)
        for a in r.effects:
            reads |= lvars(a.value)
    book = {v.name for v in system.vars if v.kind in ("res", "seen")}
    assert not reads & book, "a rule reads the resolution counter or a monitor"
    blocks: list[tuple[System, bool, frozenset[str]]] = []
    covered: set[str] = set()
    for r in system.rules:
        if r.id in covered:
            continue
        writes = Op("and", tuple(Op("eq", (V(a.var), V(a.var))) for a in r.effects))
        seed = Property(f"rules:{r.id}", r.id, "always", "invariant", writes)
        sliced, idle = abstraction(system, seed)
        assert r in sliced.rules
        owned = frozenset(x.id for x in sliced.rules) - covered
        covered |= owned
        blocks.append((sliced, idle, owned))
    return blocks


def bounded(block: System, owned: frozenset[str], bound: int) -> tuple[System, Property]:
    """`block` with a counter `_owned` of the firings of its `owned` rules in the current
    resolution (reset by every event; bookkeeping, so it does not make a rule enabled), and
    the property that it never exceeds `bound`."""
    count = Var("_owned", 0, bound + 1, (0,), "res")
    up = Assign("_owned", Op("min", (Op("add", (V("_owned"), Const(1))), Const(bound + 1))))
    events = tuple(dataclasses.replace(ev, effects=(Assign("_owned", Const(0)), *ev.effects))
                   for ev in block.events)
    rules = tuple(dataclasses.replace(r, effects=(*r.effects, up)) if r.id in owned else r
                  for r in block.rules)
    prop = Property("owned-firings", "rules", "always", "invariant",
                    Op("le", (V("_owned"), Const(bound))), at="all")
    model = dataclasses.replace(block, vars=(*block.vars, count), events=events, rules=rules,
                                properties=(prop,))
    return model, prop


@dataclass
class SpinCheck:
    """SPIN's verdict on one property and how it was reached."""

    verdict: str                                   # holds / fails / unknown
    on: str                                        # abstraction / cone / system / rule blocks
    detail: str
    runs: list[tuple[str, SpinResult]] = field(default_factory=list)


def spin_on_slices(system: System, prop: Property, base: Path,
                   opts: dict[str, Any] | None = None) -> SpinCheck:
    """Decide the invariant `prop` with SPIN: on `abstraction`, then (a violation there may
    be spurious) on `cone(system, prop)`, then on `system` itself; the first "holds" or the
    violation on `system` is the verdict, "unknown" stops. The termination property, whose
    cone is the whole system, is decided by `spin_termination` first. `opts` are passed to
    `run_spin` (default `SPIN_OPTS`)."""
    opts = SPIN_OPTS if opts is None else opts
    runs: list[tuple[str, SpinResult]] = []
    if prop.kind == "termination":
        got = spin_termination(system, base / "blocks", runs, opts)
        if got is not None:
            return got
    sliced = cone(system, prop)
    levels = [("abstraction", *abstraction(system, prop)), ("cone", sliced, sliced is not system)]
    seen: list[System] = []
    for on, model, idle in levels:
        if model is system or any(model == m for m in seen):
            continue
        seen.append(model)
        r = run_spin(model, prop, workdir=base / on, idle_monitors=idle, **opts)
        runs.append((on, r))
        if r.verdict != "fails":
            return SpinCheck(r.verdict, on, r.detail, runs)
    r = run_spin(system, prop, workdir=base / "system", **opts)
    runs.append(("system", r))
    return SpinCheck(r.verdict, "system", r.detail, runs)


def spin_termination(system: System, base: Path, runs: list[tuple[str, SpinResult]],
                     opts: dict[str, Any]) -> SpinCheck | None:
    """Termination from rule blocks (`rule_blocks`). In any resolution of the system the
    rules of a block fire exactly as in the block's own resolution from the same state (no
    other rule changes what they read or write), and the projection of that state is
    reachable in the block, which over-approximates; the block's resolution is bounded by
    `res_bound` micro steps like the system's, which fires at least as many rules. So if
    SPIN shows that the owned rules of block k fire at most n_k times in any resolution of
    the block (`bounded`), a resolution of the system has at most the sum of the n_k micro
    steps; when that sum is below `res_bound` none gets stuck: "holds". Each n_k is first
    the number of owned rules, doubled while violated; if the sum is too large, each is
    lowered to the least that holds. None when this does not settle it."""
    blocks = rule_blocks(system)

    def within(k: int, bound: int) -> bool | None:
        block, idle, owned = blocks[k]
        model, prop = bounded(block, owned, bound)
        r = run_spin(model, prop, workdir=base / f"{k}-{bound}", idle_monitors=idle, **opts)
        runs.append((f"block {k} ({len(block.rules)} rules, {len(owned)} owned) fires them "
                     f"at most {bound} times", r))
        return None if r.verdict == "unknown" else r.verdict == "holds"

    bounds: list[int] = []
    for k, (_, _, owned) in enumerate(blocks):
        bound = len(owned)
        while not (ok := within(k, bound)) and ok is not None and bound < system.res_bound:
            bound = min(2 * bound, system.res_bound)
        if not ok:
            return None
        bounds.append(bound)
    if sum(bounds) >= system.res_bound:
        for k in range(len(blocks)):
            fails, holds = -1, bounds[k]
            while holds - fails > 1:
                mid = (fails + holds) // 2
                ok = within(k, mid)
                if ok is None:
                    return None
                fails, holds = (fails, mid) if ok else (mid, holds)
            bounds[k] = holds
    total = sum(bounds)
    if total >= system.res_bound:
        return None
    return SpinCheck("holds", "rule blocks", f"{len(bounds)} blocks, resolutions within "
                     f"{' + '.join(map(str, bounds))} = {total} < {system.res_bound} micro "
                     "steps", runs)


SMALL_OPTS: dict[str, Any] = {**SPIN_OPTS, "timeout_s": 120.0, "memlim_mb": 1024,
                              "hash_bits": 16, "max_depth": 100_000, "cc_opt": "-O0",
                              "cc_flags": ()}


def test_slices_and_macro_export_on_generated_specs(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The reductions used for Bushido, against explicit search on generated specs: the
    macro export of the whole system gives explore's verdict; "holds" on a cone (exported
    without the macro reduction), on an abstraction or on the rule blocks (termination) is
    never wrong; and `spin_on_slices` gives explore's verdict."""
    base = tmp_path_factory.mktemp("slices")
    tally = {"properties": 0, "holds": 0, "fails": 0, "abstraction": 0, "blocks": 0,
             "fell back": 0}

    @settings(max_examples=6, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(specs())
    def agree(text: str) -> None:
        work = Path(tempfile.mkdtemp(dir=base))
        (work / "rules.txt").write_text("Generated rules.\n", encoding="utf-8")
        (work / "spec.yaml").write_text(text, encoding="utf-8")
        system = load_ruleset(work / "spec.yaml").system
        for k, p in enumerate(q for q in system.properties if q.mode == "invariant"):
            want = explore(system, p, max_states=200_000).verdict
            assert want in ("holds", "fails"), (text, p.id, want)
            whole = run_spin(system, p, workdir=work / f"{k}-whole", **SMALL_OPTS)
            assert whole.verdict == want, (text, p.id, want, whole)
            sliced = cone(system, p)
            plain = run_spin(sliced, p, workdir=work / f"{k}-cone", idle_monitors=sliced
                             is not system, **{**SMALL_OPTS, "macro": False})
            assert plain.verdict == "fails" or want == "holds", (text, p.id, plain)
            got = spin_on_slices(system, p, work / str(k), SMALL_OPTS)
            assert got.verdict == want, (text, p.id, want, got)
            for on, r in got.runs:     # none is unknown; "holds" on a level is right
                assert r.verdict != "unknown", (text, p.id, on, r)
                assert r.verdict == "fails" or want == "holds" or on.startswith("block"), \
                    (text, p.id, on, r)
            tally["properties"] += 1
            tally[want] += 1
            tally["abstraction"] += got.on == "abstraction"
            tally["blocks"] += got.on == "rule blocks"
            tally["fell back"] += got.on in ("cone", "system") and want == "holds"

    agree()
    print(tally)
    assert tally["fails"] > 0 and tally["abstraction"] > 0 and tally["blocks"] > 0, tally


def test_a_spurious_violation_on_the_abstraction_is_checked_on_the_cone(tmp_path: Path) -> None:
    """The abstraction drops the guard `Hidden` (outside the property's influence), so it
    can reach Stunned, which the system cannot: the violation there is not the verdict."""
    spec = {"ruleset": "spurious", "source": "rules.txt", "states": {"Hidden": {}, "Stunned": {}},
            "events": [{"id": "stun", "when": "Hidden", "do": ["enter Stunned"]}],
            "properties": [{"id": "never-stunned", "never": "Stunned"}]}
    (tmp_path / "rules.txt").write_text("Generated rules.\n", encoding="utf-8")
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    system = load_ruleset(tmp_path / "spec.yaml").system
    prop = next(p for p in system.properties if p.id == "never-stunned")
    got = spin_on_slices(system, prop, tmp_path / "spin", SMALL_OPTS)
    assert [(on, r.verdict) for on, r in got.runs] == [("abstraction", "fails"),
                                                      ("cone", "holds")]
    assert (got.verdict, got.on) == ("holds", "cone")
    assert explore(system, prop).verdict == "holds"


AGREES = {"proved": "holds", "violated": "fails"}
INCONCLUSIVE_ALLOWED = {"eldfall": 0, "noctvale": 0, "bushido": 0}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["eldfall", "noctvale", "bushido"])
def test_seed_invariants_agree_with_spin_on_cones(name: str, tmp_path: Path) -> None:
    """Every invariant of a seed ruleset, decided by ruleproof (`check_property`) and by
    SPIN (`spin_on_slices`): the verdicts agree, none is skipped, and SPIN leaves at most
    `INCONCLUSIVE_ALLOWED` undecided."""
    system = load_ruleset(ROOT / "spec" / f"{name}.yaml").system
    invariants = [p for p in system.properties if p.mode == "invariant"]
    rows: list[tuple[str, str, SpinCheck]] = []
    start = time.monotonic()
    for k, p in enumerate(invariants):
        ours = check_property(system, p, Options()).status.value
        rows.append((p.id, ours, spin_on_slices(system, p, tmp_path / str(k))))
    lines = [f"{name}: {len(rows)} invariants in {time.monotonic() - start:.0f} s"]
    for ident, ours, got in rows:
        lines.append(f"  {ident}: ruleproof {ours}, SPIN {got.verdict} on the {got.on}: "
                     f"{got.detail}")
        lines += [f"      {on}: {r.verdict}, {r.states} states, {r.memory_mb:.0f} MB, "
                  f"{r.seconds:.1f} s" for on, r in got.runs]
    print("\n".join(lines))
    assert len(rows) == len(invariants) > 0
    inconclusive = [(ident, got.on, got.detail) for ident, _, got in rows
                    if got.verdict == "unknown"]
    disagree = [(ident, ours, got.verdict, got.on, got.detail) for ident, ours, got in rows
                if got.verdict != "unknown" and AGREES.get(ours) != got.verdict]
    assert not disagree, disagree
    assert len(inconclusive) <= INCONCLUSIVE_ALLOWED[name], inconclusive
