"""Stage `load`: YAML → data + source map; `load_ruleset` end to end; the doc's examples."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from checker.diagnostics import Location
from checker.errors import SpecError
from checker.spec.load import load_ruleset
from checker.spec.source import SourceMap, load_spec

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {"eldfall": "eldfall-states.txt", "noctvale": "noctvale-conditions.txt",
         "bushido": "bushido-model-states.txt"}


def _write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), "utf-8")
    return path


# ------------------------------------------------------------------------------ source map

SPEC = """\
ruleset: demo
source: "rules.txt"
states:
  Crouched: {}
  Flying: {cite: 'Flying State'}
rules:
  - id: crouched-cancels-flying
    when: Crouched
    do: [leave Flying, "hp -= 1"]
    cite:
      - first
      - {quote: second, occurrence: 2}
"""


@pytest.mark.parametrize(("path", "line", "col"), [
    ((), 1, 1),
    (("ruleset",), 1, 10),
    (("ruleset", "<key>"), 1, 1),
    (("source",), 2, 9),                        # a quoted scalar starts at its quote
    (("states", "Crouched"), 4, 13),
    (("states", "Crouched", "<key>"), 4, 3),
    (("states", "Flying", "cite"), 5, 18),
    (("rules", 0), 7, 5),                       # a list item's mapping starts at its first key
    (("rules", 0, "id"), 7, 9),
    (("rules", 0, "when", "<key>"), 8, 5),
    (("rules", 0, "do", 0), 9, 10),
    (("rules", 0, "do", 1), 9, 24),
    (("rules", 0, "cite", 1, "occurrence"), 12, 37),
])
def test_source_map_locates_every_value_and_key(tmp_path: Path, path: tuple[str | int, ...],
                                                line: int, col: int) -> None:
    tree = load_spec(_write(tmp_path, SPEC), "spec.yaml")
    assert tree.source_map.locations[path] == Location("spec.yaml", line, col)


def test_source_map_falls_back_to_the_nearest_located_ancestor(tmp_path: Path) -> None:
    sm = load_spec(_write(tmp_path, SPEC), "spec.yaml").source_map
    assert sm.at(("rules", 0, "on")) == sm.at(("rules", 0)) == Location("spec.yaml", 7, 5)
    assert sm.at(("nothing", "here")) == Location("spec.yaml", 1, 1)
    assert SourceMap("x.yaml", {}).at(("a",)) == Location("x.yaml", 1, 1)


def test_display_name_is_used_in_locations(tmp_path: Path) -> None:
    tree = load_spec(_write(tmp_path, SPEC), "spec/demo.yaml")
    assert tree.display == "spec/demo.yaml"
    assert str(tree.source_map.at(("source",))) == "spec/demo.yaml:2:9"
    assert tree.text == SPEC


def test_crlf_line_endings_and_bom_keep_lines_right(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + SPEC.replace("\n", "\r\n").encode("utf-8"))
    tree = load_spec(path, "spec.yaml")
    assert tree.data["rules"][0]["do"] == ["leave Flying", "hp -= 1"]
    assert tree.source_map.at(("rules", 0, "do", 1)) == Location("spec.yaml", 9, 24)


def test_scalars_keep_their_yaml_types_and_keys_stay_text(tmp_path: Path) -> None:
    tree = load_spec(_write(tmp_path, """\
        on: [1, 2.5, yes, "yes", null, ~]
        1: 2024-01-01
        yes: no
        """), "spec.yaml")
    assert tree.data == {"on": [1, 2.5, True, "yes", None, None], "1": "2024-01-01",
                         "yes": False}


def test_empty_document_is_none(tmp_path: Path) -> None:
    assert load_spec(_write(tmp_path, "# only a comment\n"), "spec.yaml").data is None


def test_depth_limit_is_inclusive(tmp_path: Path) -> None:
    ok = "a: " + "[" * 39 + "]" * 39 + "\n"   # the mapping plus 39 lists: 40 levels
    assert load_spec(_write(tmp_path, ok), "spec.yaml").data is not None
    with pytest.raises(SpecError) as exc:
        load_spec(_write(tmp_path, "a: " + "[" * 40 + "]" * 40 + "\n"), "spec.yaml")
    assert exc.value.diagnostics[0].code == "RP105"


# ------------------------------------------------------------------------------ load_ruleset

def test_example_mini_loads_with_elements_located(tmp_path: Path) -> None:
    ruleset = load_ruleset(ROOT / "docs" / "example-mini.yaml", "docs/example-mini.yaml")
    assert ruleset.id == "eldfall"
    assert ruleset.source_file == "docs/../seeds/eldfall-states.txt"
    text = (ROOT / "docs" / "example-mini.yaml").read_text("utf-8").splitlines()
    for ident, element in ruleset.elements.items():
        if element.section in ("rules", "events", "constraints", "properties", "meta"):
            line = text[element.location.line - 1]
            assert f"id: {ident}" in line, (ident, element.location, line)
    for citation in ruleset.citations:
        source_line = ruleset.source.text.splitlines()[citation.line - 1]
        assert ruleset.source.text[citation.start:citation.end] in source_line


def test_quote_locations_point_at_each_cite_item(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text("Speed is halved.\nArmor is halved.\n", "utf-8")
    path = _write(tmp_path, """\
        ruleset: demo
        source: rules.txt
        states:
          Crouched:
            cite:
              - "Speed is halved."
              - "Armour is halved."
        """)
    with pytest.raises(SpecError) as exc:
        load_ruleset(path, "spec.yaml")
    [d] = exc.value.diagnostics
    assert (d.code, d.location) == ("RP207", Location("spec.yaml", 7, 9))
    assert d.fix == "closest passage: 'Armor is halved.'"


def test_source_path_is_relative_to_the_spec(tmp_path: Path) -> None:
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "rules.txt").write_text("States of the same name cannot stack.\n",
                                                  "utf-8")
    (tmp_path / "spec").mkdir()
    path = _write(tmp_path / "spec", """\
        ruleset: demo
        source: ../texts/rules.txt
        meta:
          - {id: no-stacking, stacking: none, cite: "States of the same name cannot stack."}
        """)
    ruleset = load_ruleset(path, "spec/spec.yaml")
    assert ruleset.source_file == "spec/../texts/rules.txt"
    assert [c.line for c in ruleset.citations] == [1]


# ------------------------------------------------------------------------------ the doc

@dataclass(frozen=True)
class DocExample:
    seed: str
    expect: str | None
    line: int
    text: str


def doc_examples() -> list[DocExample]:
    """Every ```yaml block of docs/spec-language.md preceded by `<!-- example: seed -->`."""
    lines = (ROOT / "docs" / "spec-language.md").read_text("utf-8").splitlines()
    out: list[DocExample] = []
    marker = re.compile(r"^<!-- example: (\w+)(?:, expect: (RP\d{3}))? -->$")
    i = 0
    while i < len(lines):
        m = marker.match(lines[i])
        if m:
            j = i + 1
            while not lines[j].strip():
                j += 1
            assert lines[j] == "```yaml", f"spec-language.md:{j + 1}: a yaml block must follow"
            end = lines.index("```", j + 1)
            out.append(DocExample(m[1], m[2], j + 2, "\n".join(lines[j + 1:end]) + "\n"))
            i = end
        i += 1
    return out


EXAMPLES = doc_examples()


def test_doc_has_examples_for_every_seed() -> None:
    assert len(EXAMPLES) >= 25
    assert {e.seed for e in EXAMPLES} == set(SEEDS)


def _as_spec(example: DocExample, tmp_path: Path) -> Path:
    """The example as a spec file in `tmp_path/spec/`, next to a `seeds/` folder."""
    (tmp_path / "seeds").symlink_to(ROOT / "seeds", target_is_directory=True)
    (tmp_path / "spec").mkdir()
    data = yaml.safe_load(example.text)
    assert isinstance(data, dict)
    head = ""
    if "ruleset" not in data:
        head += f"ruleset: {example.seed}\n"
    if "source" not in data:
        head += f"source: ../seeds/{SEEDS[example.seed]}\n"
    path = tmp_path / "spec" / "example.yaml"
    path.write_text(head + example.text, "utf-8")
    return path


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_doc_example_loads(example: DocExample, tmp_path: Path) -> None:
    path = _as_spec(example, tmp_path)
    if example.expect is None:
        try:
            load_ruleset(path, "example.yaml")
        except SpecError as exc:
            shown = "\n".join(d.render() for d in exc.diagnostics)
            pytest.fail(f"docs/spec-language.md:{example.line}: example does not load:\n{shown}")
    else:
        with pytest.raises(SpecError) as exc:
            load_ruleset(path, "example.yaml")
        assert {d.code for d in exc.value.diagnostics} == {example.expect}


def test_doc_examples_quote_the_seeds() -> None:
    """Each example that formalizes something cites its seed (the point of the examples)."""
    for example in EXAMPLES:
        data = yaml.safe_load(example.text)
        if set(data) - {"ruleset", "title", "source", "phases", "vars", "inputs", "states",
                        "decisions", "stats", "models"}:
            assert "cite:" in example.text, f"spec-language.md:{example.line}: no cite"
