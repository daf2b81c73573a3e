"""Hypothesis strategies for small random rulesets, and helpers to load spec text.

`rulesets()` draws the YAML text of a small valid spec: a few flag States (stacking or
not), a counted-marker State, a small int variable, one input, events and rules (level-
and `on:`-triggered) with enter/leave/add/remove/assign/emit effects, and
always/never/reachable properties over them. Everything stays tiny so that explicit
search finishes and can serve as the oracle.

`corpus_spec` loads a small hand-written spec body citing the findings corpus's
`rules.txt`. `minimal_subsets` is the brute-force oracle of minimal conflicts that MARCO and the
conflict scan are checked against (`test_slots`, `test_conflicts`). `eldfall_stand_in` is
the spec text the errata-workflow tests use in place of spec/eldfall.yaml.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from hypothesis import strategies as st

from checker.ir import Modifier, Ruleset, System
from checker.spec.load import load_ruleset
from checker.stats import apply_modifier

SOURCE = "Generated rules.\n"
CORPUS = Path(__file__).parent / "corpus" / "findings"
FIXTURES = Path(__file__).parent / "fixtures"


def eldfall_stand_in() -> str:
    """The partitioned Eldfall fixture (tests/fixtures/eldfall-partitioned.yaml: the spec as
    it was at 49db158, with the uncited `scenario` partition), renamed `eldfall` and citing
    `../seeds/eldfall-states.txt`, to be written as `<dir>/spec/eldfall.yaml` beside
    `<dir>/seeds/`. The errata-workflow tests (diff, baseline, drift) use it: they test the
    workflow on a full-size spec, not the verdicts of the text, and the real spec's check
    (about 18 minutes) per edited copy would not fit CI's 90 minutes."""
    text = (FIXTURES / "eldfall-partitioned.yaml").read_text("utf-8")
    for old, new in (("\nruleset: eldfall-partitioned\n", "\nruleset: eldfall\n"),
                     ("\nsource: ../../seeds/eldfall-states.txt\n",
                      "\nsource: ../seeds/eldfall-states.txt\n")):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def load_spec(folder: Path, text: str, name: str = "spec.yaml") -> System:
    """Write `text` (a spec citing `rules.txt`) and the source text into `folder`, load it."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "rules.txt"
    if not source.exists():
        source.write_text(SOURCE, encoding="utf-8")
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return load_ruleset(path).system


def spec_system(text: str) -> System:
    """The system of spec `text` (citing `rules.txt`), loaded from a temporary folder."""
    with tempfile.TemporaryDirectory() as folder:
        return load_spec(Path(folder), text)


def corpus_spec(folder: Path, body: str, name: str = "t") -> Ruleset:
    """Load ruleset `name` whose spec is `body` (after its `ruleset:` and `source:` lines)
    citing the findings corpus's `rules.txt`, written into `folder`."""
    shutil.copy(CORPUS / "rules.txt", folder / "rules.txt")
    path = folder / f"{name}.yaml"
    path.write_text(f"ruleset: {name}\nsource: rules.txt\n" + body, encoding="utf-8")
    return load_ruleset(path)


def minimal_subsets(n: int, unsat: Callable[[tuple[int, ...]], bool]) -> list[tuple[int, ...]]:
    """Brute force: every subset of `range(n)` that is `unsat` and has no `unsat` proper
    subset, smallest first, sorted."""
    out: list[tuple[int, ...]] = []
    for k in range(1, n + 1):
        for sub in itertools.combinations(range(n), k):
            if unsat(sub) and not any(set(m) <= set(sub) for m in out):
                out.append(sub)
    return sorted(out)


def every_order(mods: Sequence[Modifier], base: int, rounding: str) -> set[int]:
    """The oracle for stat values: every value `mods` give from `base`, applied in each of
    their permutations (n! of them: for a handful of modifiers only)."""
    out = set()
    for perm in itertools.permutations(mods):
        value = base
        for m in perm:
            value = apply_modifier(m, value, rounding)
        out.add(value)
    return out


def _quote(s: str) -> str:
    return '"' + s.replace('"', '\\"') + '"'


@st.composite
def conditions(draw: st.DrawFn, flags: list[str], marker: bool, depth: int = 1) -> str:
    atoms = [*flags, *(f"not {f}" for f in flags), "x >= 1", "x == 2", "x <= 1",
             "roll == high", "roll == low"]
    if marker:
        atoms += ["count(M) >= 2", "M"]
    first = draw(st.sampled_from(atoms))
    if depth <= 0 or not draw(st.booleans()):
        return first
    op = draw(st.sampled_from(["and", "or"]))
    return f"{first} {op} {draw(conditions(flags, marker, depth - 1))}"


@st.composite
def effects(draw: st.DrawFn, flags: list[str], marker: bool, events: list[str]) -> list[str]:
    choices = [*(f"enter {f}" for f in flags), *(f"leave {f}" for f in flags),
               "x += 1", "x -= 1", "x = 0", "x = 2"]
    if marker:
        choices += ["add M", "add 2 M", "remove M", "remove all M"]
    if events:
        choices += [f"emit {e}" for e in events]
    return draw(st.lists(st.sampled_from(choices), min_size=1, max_size=2))


@st.composite
def rulesets(draw: st.DrawFn, edges: bool = False, simultaneous: bool = False) -> str:
    """The YAML text of a small random ruleset citing `rules.txt`; with `edges`, a rule's
    `on:` may also be `enters S` / `leaves S` (a State gained / lost in the step) or
    `enters C` / `leaves C` for a condition C (it starts / stops holding in the step).
    `simultaneous`: two or three rules, all triggered by the first event, so that they
    resolve together (the orders of unordered resolution, issue #14)."""
    n_flags = draw(st.integers(1, 3))
    flags = [f"S{i}" for i in range(n_flags)]
    marker = draw(st.booleans())
    lines = ["ruleset: generated", "source: rules.txt"]
    if draw(st.booleans()):
        lines += ["meta:", "  - {id: no-stacking, stacking: none}"]
    lines.append("vars:")
    lines.append(f"  x: {{range: [0, {draw(st.integers(2, 3))}], init: {draw(st.integers(0, 2))}}}")
    lines += ["inputs:", "  roll: [low, high]", "states:"]
    for f in flags:
        stack = draw(st.sampled_from(["", ", stacking: stack", ", stacking: none"]))
        lines.append(f"  {f}: {{terminal: {str(draw(st.booleans())).lower()}{stack}}}")
    if marker:
        lines.append("  M: {markers: {max: 3}}")
    n_events = draw(st.integers(1, 3))
    events = [f"e{i}" for i in range(n_events)]
    lines.append("events:")
    for e in events:
        lines.append(f"  - id: {e}")
        if draw(st.booleans()):
            lines.append(f"    when: {_quote(draw(conditions(flags, marker)))}")
        body = ", ".join(_quote(x) for x in draw(effects(flags, marker, [])))
        lines.append(f"    do: [{body}]")
    n_rules = draw(st.integers(2, 3) if simultaneous else st.integers(0, 3))
    if n_rules:
        lines.append("rules:")
    for i in range(n_rules):
        lines.append(f"  - id: r{i}")
        triggers = events + ([f"{w} {f}" for w in ("enters", "leaves")
                              for f in [*flags, *(["M"] if marker else []), "x == 0",
                                        "x >= 2 and not S0"]] if edges else [])
        if simultaneous:
            lines.append(f"    on: {events[0]}")
        elif draw(st.booleans()):
            lines.append(f"    on: {draw(st.sampled_from(triggers))}")
        if not simultaneous or draw(st.booleans()):
            lines.append(f"    when: {_quote(draw(conditions(flags, marker)))}")
        if simultaneous:     # effects that often clash: the same variable, set or stepped
            clash = ["x = 0", "x = 2", "x += 1", "x -= 1", "enter S0", "leave S0"]
            body = ", ".join(_quote(x) for x in draw(st.lists(st.sampled_from(clash),
                                                              min_size=1, max_size=2)))
        else:
            body = ", ".join(_quote(x) for x in draw(effects(flags, marker, events)))
        lines.append(f"    do: [{body}]")
    lines.append("properties:")
    for i in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["always", "never", "reachable"]))
        lines.append(f"  - {{id: p{i}, {kind}: {_quote(draw(conditions(flags, marker)))}}}")
    return "\n".join(lines) + "\n"
