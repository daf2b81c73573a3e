"""SPIN as an independent cross-check (issue 8): the Promela export of a ruleset, checked by
an exhaustive SPIN safety search, must give the reference interpreter's verdict for every
property both decide: the example, generated specs, and the seed rulesets.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.export.spin import run_spin, run_spin_all, spin_available
from checker.interpret import Interpreter, explore, reachable_states
from checker.model import Property, System
from checker.spec.load import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(spin_available() is not None,
                                reason=f"SPIN cross-check needs spin and gcc: {spin_available()}")


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
    if not path.exists():
        pytest.skip(f"spec/{name}.yaml does not exist yet")
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
