"""Fuzzing `load_ruleset`: whatever the bytes, it either loads or raises `SpecError` whose
diagnostics render as `file:line:col: error[RPnnn]: ...`. Any other exception is a bug.

The default profile is derandomized (the same 200 examples per strategy every run); the
`slow` variant runs 3,000 more, on demand only (`pytest -m slow tests/test_fuzz_loader.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from checker.errors import SpecError
from checker.spec.load import load_ruleset

# A failing hypothesis test makes its pytest plugin touch mypy_extensions.TypedDict, whose
# DeprecationWarning (an error under filterwarnings=error) turns the report into INTERNALERROR.
pytestmark = [
    pytest.mark.differential,
    pytest.mark.filterwarnings(
        "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"),
]

ROOT = Path(__file__).resolve().parent.parent
RENDERED = re.compile(r"^fuzz\.yaml:\d+:\d+: error\[RP[12]\d\d\]: \S")

FAST = settings(max_examples=200, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=3000, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# A seed-like spec touching every construct the loader knows, citing the Eldfall text.
BASE = f"""\
# yaml-language-server: $schema=../docs/spec.schema.json
ruleset: eldfall
title: Eldfall excerpt
source: {ROOT / "seeds" / "eldfall-states.txt"}
meta:
  - id: no-stacking
    stacking: none
    cite: "States of the same name cannot stack."
  - {{id: order, resolves: active-player-orders}}
phases: [strategic, activation, end]
vars:
  hp: {{range: [0, 2], init: 2}}
  wound: {{values: [active, downed], init: active}}
  round: {{range: [1, 3], scope: global, init: [1, 2]}}
inputs:
  toughness_roll: [pass, fail]
  in_reach: bool
  d6: {{range: [1, 6]}}
states:
  Crouched: {{cite: "Grants Light Cover against Ranged Attacks (model counts as in Light Cover)."}}
  Flying: {{}}
  Incapacitated: {{}}
  Dead: {{terminal: true, cite: "Retains all other States it had when entering Dead."}}
  Stunned: {{markers: {{max: 3}}, stacking: stack}}
  Bleed: {{markers: {{values: [1, 2], max: 2}}}}
events:
  - id: suffer-wound
    when: not Dead
    do: ["hp -= 1", add Stunned]
  - id: take-flight
    when: not Crouched and not Dead and in_reach
    do: [enter Flying]
  - id: new-round
    scope: global
    do: ["round = 2"]
rules:
  - id: incapacitated-at-0
    cite: "Triggered when the model's HP reaches 0."
    when: hp == 0 and not Dead
    do: [enter Incapacitated, "wound = downed"]
  - id: crouched-cancels-flying
    cite: "Flying State is automatically canceled if the model becomes Crouched."
    when: Crouched
    do: [leave Flying]
  - id: bleeding-roll
    cite: "At the start of each of its Strategic Phases, a Bleeding model
      must perform a Toughness roll."
    on: strategic-phase
    when: Bleed and toughness_roll == fail
    do: [emit suffer-wound, remove highest Bleed -> hp]
    repeat_while: count(Bleed) >= 2 and highest(Bleed) > max(1, abs(-1))
  - id: stunned-fades
    on: [end-phase, new-round]
    do: [remove Stunned, remove all Bleed]
prevents:
  - {{id: dead-cannot-fly, when: Dead, blocks: [Flying]}}
decisions:
  action: [melee_attack, assist_self, dodge, nothing]
  movement: [idle, walk, run]
constraints:
  - id: blinded-actions
    cite: "May only declare Assist (targeting self), Dodge, or Nothing as its Action or Reaction."
    when: Crouched
    only: {{action: [assist_self, dodge, nothing]}}
  - id: crouched-walk
    when: Crouched and d6 >= 4
    forbid: {{movement: [run]}}
    must: {{action: dodge}}
    overrides: [blinded-actions]
facts:
  - {{id: blinded-no-los, when: Incapacitated, set: {{los: none}}}}
stats:
  speed: {{base: 4, round: up}}
modifiers:
  - {{id: crouched-speed, when: Crouched, stat: speed, op: halve}}
  - {{id: flying-speed, when: Flying, stat: speed, op: add 2}}
procedures:
  - id: panicked
    when: Incapacitated
    steps:
      - {{id: engaged, if: in_reach, must: {{movement: idle}}}}
      - {{id: run, must: {{movement: run}}}}
properties:
  - {{id: dead-terminal, terminal: Dead}}
  - {{id: hp-bounded, always: "hp <= 2"}}
  - {{id: crouched-grounded, always: "Crouched implies not Flying"}}
  - {{id: no-flying-dead, never: "Dead and Flying"}}
  - {{id: can-die, reachable: "Dead or wound == downed"}}
rulings:
  - {{id: crouched-dodges, when: Crouched and d6 >= 4, expect: {{action: dodge}}}}
informal:
  - cite: {{quote: "Fail: The model suffers 1 Wound.", occurrence: 2}}
    reason: Poisoned is not modelled
undefined:
  - {{name: Petrified, cite: "Cannot be removed"}}
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def check(data: bytes, workdir: Path) -> None:
    """`data` loads, or fails with well-formed diagnostics; anything else fails the test."""
    path = workdir / "fuzz.yaml"
    path.write_bytes(data)
    note(f"input: {data!r}")
    try:
        load_ruleset(path, "fuzz.yaml")
    except SpecError as exc:
        assert exc.diagnostics, f"SpecError without diagnostics for input {data!r}"
        for d in exc.diagnostics:
            assert RENDERED.match(d.render()), f"malformed {d.render()!r} for input {data!r}"
    except Exception as exc:
        pytest.fail(f"{type(exc).__name__}: {exc}\n--- input that caused it ---\n"
                    f"{data.decode('utf-8', 'replace')}", pytrace=False)


def test_base_spec_loads(workdir: Path) -> None:
    path = workdir / "base.yaml"
    path.write_text(BASE, "utf-8")
    ruleset = load_ruleset(path, "base.yaml")
    assert ruleset.id == "eldfall" and len(ruleset.system.rules) == 4


# ------------------------------------------------------------------------------ strategies

YAMLISH_TOKENS = [
    "ruleset: x\n", "source: rules.txt\n", "states:\n", "rules:\n", "vars:\n", "events:\n",
    "properties:\n", "models: [a, b]\n", "  ", "    ", "- ", "-", ": ", ":", "{", "}", "[",
    "]", ", ", "&a ", "*a", "!!str ", "!!python/name:os.system ", "!!binary ", "'", '"',
    "# ", "\n", "\r\n", "\t", "---\n", "...\n", "? ", "|\n", ">-\n", "%YAML 1.1\n", "id: r",
    "when: ", "do: [", "enter X", "on: e", "cite: ", "range: [0, 3]", "values: [a, b]",
    "X: {}", "null", "~", "yes", "on", "0x1F", "1e9", "-7", "2024-01-01", ".inf", "é", "\u2019",
    "\u00a0", "\x00", "\ufeff", "\\", "@", "`", "%",
]

EXPR_JUNK = [" and", " or ", "(", ")", "==", " not ", ":", ".", "->", "-", "+", "*", "count(",
             "highest(", "any(", "all(", "min(1,", "9999999999999999999999", "other.", "a.",
             "Bleed:9", "true", " implies ", "'", '"', ",", "!", "&&", "\u2212", "  ", "_"]

Mutation = Callable[[list[str]], list[str]]


@st.composite
def mutations(draw: st.DrawFn) -> Mutation:
    kind = draw(st.sampled_from(["delete", "duplicate", "swap", "char", "junk", "indent"]))
    i = draw(st.integers(0, 10_000))
    j = draw(st.integers(0, 10_000))
    char = draw(st.characters(codec="utf-8") | st.sampled_from(list(" :-[]{}#'\"\t,&*!")))
    junk = draw(st.sampled_from(EXPR_JUNK))

    def apply(lines: list[str]) -> list[str]:
        if not lines:
            return lines
        k, m = i % len(lines), j % len(lines)
        out = list(lines)
        match kind:
            case "delete":
                del out[k]
            case "duplicate":
                out.insert(k, out[k])
            case "swap":
                out[k], out[m] = out[m], out[k]
            case "char":
                line = out[k]
                p = j % (len(line) + 1)
                out[k] = line[:p] + char + line[p + 1:]
            case "junk":
                exprs = [n for n, t in enumerate(out) if re.search(
                    r"(when|always|never|reachable|repeat_while|if|do): ", t)]
                n = exprs[i % len(exprs)] if exprs else k
                line = out[n]
                p = line.index(": ") + 2 + j % max(1, len(line) - line.index(": ") - 2) \
                    if ": " in line else 0
                out[n] = line[:p] + junk + line[p:]
            case "indent":
                out[k] = (" " if j % 2 else "") + out[k][2 if j % 2 == 0 else 0:]
        return out

    return apply


mutated_specs = st.lists(mutations(), min_size=1, max_size=6).map(
    lambda ms: _apply_all(ms, BASE.splitlines()))


def _apply_all(ms: list[Mutation], lines: list[str]) -> bytes:
    for m in ms:
        lines = m(lines)
    return ("\n".join(lines) + "\n").encode("utf-8")


yamlish_text = st.lists(st.sampled_from(YAMLISH_TOKENS) | st.text(max_size=8),
                        max_size=80).map(lambda parts: "".join(parts).encode("utf-8",
                                                                              "surrogatepass"))


# ------------------------------------------------------------------------------ tests

@FAST
@given(data=st.binary(max_size=2000))
def test_random_bytes(workdir: Path, data: bytes) -> None:
    check(data, workdir)


@FAST
@given(data=yamlish_text)
def test_random_yamlish_text(workdir: Path, data: bytes) -> None:
    check(data, workdir)


@FAST
@given(data=mutated_specs)
def test_mutated_seed_spec(workdir: Path, data: bytes) -> None:
    check(data, workdir)


@pytest.mark.slow
@pytest.mark.skipif("'slow' not in config.getoption('markexpr')",
                    reason="on demand: pytest -m slow tests/test_fuzz_loader.py")
@SLOW
@given(data=st.binary(max_size=4000) | yamlish_text | mutated_specs)
def test_fuzz_loader_many_examples(workdir: Path, data: bytes) -> None:
    check(data, workdir)
