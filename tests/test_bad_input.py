"""Bad input never shows a traceback: every problem is a coded, located diagnostic.

`tests/corpus/bad/*.yaml` mark each offending line with a trailing `# expect: RP2xx`
(several codes: `# expect: RP203, RP206`; optionally followed by a "quoted" text the rendered
diagnostic must contain). Each marked line must get exactly those codes, and no unmarked
line may get a diagnostic. The files that cannot be YAML fixtures (binary, huge, not UTF-8,
alias bombs, deep nesting) are written to `tmp_path` by the tests below.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from checker.diagnostics import CODES, Diagnostic
from checker.errors import SpecError
from checker.spec import source
from checker.spec.discover import discover
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).parent / "corpus" / "bad"
FIXTURES = sorted(CORPUS.glob("*.yaml"))
DOC = Path(__file__).parent.parent / "docs" / "spec-language.md"

RENDERED = re.compile(r"^(?P<file>[^\n]+):(?P<line>\d+):(?P<col>\d+): error\[(?P<code>RP\d{3})\]: ")
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>RP\d{3}(?:\s*,\s*RP\d{3})*)"
                    r"(?:\s+\"(?P<text>.*)\")?\s*$")


def expectations(path: Path) -> dict[int, tuple[set[str], str | None]]:
    """Marked lines of a fixture: line → (codes, text the diagnostic must contain)."""
    out: dict[int, tuple[set[str], str | None]] = {}
    for lineno, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        m = EXPECT.search(line)
        if m:
            codes = {c.strip() for c in m["codes"].split(",")}
            out[lineno] = (codes, m["text"])
    return out


def diagnostics_of(path: Path, display: str | None = None) -> list[Diagnostic]:
    """The diagnostics loading `path` raises; [] when it loads."""
    try:
        load_ruleset(path, display or path.name)
    except SpecError as exc:
        assert exc.diagnostics, "a SpecError must carry at least one diagnostic"
        return exc.diagnostics
    return []


def assert_well_formed(diag: Diagnostic, file: str) -> None:
    rendered = diag.render()
    m = RENDERED.match(rendered)
    assert m, f"not 'file:line:col: error[RPnnn]: ...': {rendered!r}"
    assert m["file"] == file, rendered
    assert diag.code in CODES and diag.code[2] in "12", rendered
    assert diag.message.strip(), rendered


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.stem for f in FIXTURES])
def test_fixture_gets_exactly_the_marked_codes(fixture: Path) -> None:
    expected = expectations(fixture)
    assert expected, f"{fixture.name} marks no line with '# expect: RPnnn'"
    diags = diagnostics_of(fixture)
    assert diags, f"{fixture.name} loaded without a diagnostic"
    got: dict[int, set[str]] = defaultdict(set)
    rendered: dict[int, list[str]] = defaultdict(list)
    for d in diags:
        assert_well_formed(d, fixture.name)
        assert d.location is not None
        got[d.location.line].add(d.code)
        rendered[d.location.line].append(d.render())
    shown = "\n".join(d.render() for d in diags)
    for line, (codes, text) in expected.items():
        assert got.get(line) == codes, (f"{fixture.name}:{line}: expected {sorted(codes)}, "
                                        f"got {sorted(got.get(line, set()))}\n{shown}")
        if text is not None:
            assert any(text in r for r in rendered[line]), (
                f"{fixture.name}:{line}: no diagnostic contains {text!r}\n{shown}")
    unmarked = sorted(set(got) - set(expected))
    assert not unmarked, f"{fixture.name}: diagnostics on unmarked lines {unmarked}\n{shown}"


def test_corpus_cites_a_source_text_that_exists() -> None:
    text = (CORPUS / "rules.txt").read_text("utf-8")
    assert text.count("Speed is halved.") == 2  # the ambiguity fixtures depend on it


# ------------------------------------------------------------------------------ files

def _only(path: Path, code: str, display: str = "spec.yaml") -> Diagnostic:
    with pytest.raises(SpecError) as exc:
        load_ruleset(path, display)
    diags = exc.value.diagnostics
    assert [d.code for d in diags] == [code], [d.render() for d in diags]
    assert_well_formed(diags[0], display)
    return diags[0]


def test_binary_file(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(b"ruleset: x\x00\x01\x02\xff\xfe" * 100)
    assert "binary" in _only(spec, "RP103").message


def test_file_larger_than_2_mb(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(b"ruleset: x\nsource: rules.txt\n" + b"# padding\n" * 210_000)
    d = _only(spec, "RP102")
    assert "the limit is 2,097,152" in d.message


def test_not_utf8_names_the_line_of_the_bad_byte(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes("ruleset: x\nsource: rules.txt\ntitle: Écrasé\n".encode("latin-1"))
    d = _only(spec, "RP103")
    assert d.location is not None and d.location.line == 3
    assert "0xc9" in d.message


def test_billion_laughs_alias_bomb(tmp_path: Path) -> None:
    lines = ['lol0: &lol0 "lol"']
    for i in range(1, 10):
        prev = f"*lol{i - 1}"
        lines.append(f"lol{i}: &lol{i} [{', '.join([prev] * 10)}]")
    spec = tmp_path / "spec.yaml"
    spec.write_text("\n".join(lines) + "\n", "utf-8")
    d = _only(spec, "RP105")
    assert d.location is not None and d.location.line == 2


@pytest.mark.parametrize("style", ["flow-list", "flow-map", "block-list"])
def test_ten_thousand_deep_nesting(tmp_path: Path, style: str) -> None:
    depth = 10_000
    text = {"flow-list": "[" * depth + "]" * depth,
            "flow-map": "{a: " * depth + "b" + "}" * depth,
            "block-list": "- " * depth + "x"}[style]
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"ruleset: x\nsource: rules.txt\nstates: {text}\n"
                    if style != "block-list" else text + "\n", "utf-8")
    assert "nesting deeper than" in _only(spec, "RP105").message


@pytest.mark.parametrize("char", ["\x01", "\x1b", "\x7f", "\ufffe"])
def test_control_character_is_a_diagnostic(tmp_path: Path, char: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"ruleset: x\nsource: rules.txt\ntitle: a{char}b\n", "utf-8")
    with pytest.raises(SpecError) as exc:
        load_ruleset(spec, "spec.yaml")
    [d] = exc.value.diagnostics
    assert d.code in ("RP103", "RP104") and d.location is not None and d.location.line == 3


def test_too_many_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # composing 100,000 nodes takes seconds in pure-Python PyYAML: test the guard smaller
    monkeypatch.setattr(source, "MAX_NODES", 1_000)
    spec = tmp_path / "spec.yaml"
    spec.write_text("states: [" + ", ".join(["1"] * 1_000) + "]\n", "utf-8")
    assert "more than 1000 YAML nodes" in _only(spec, "RP105").message


def test_empty_file(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("# nothing here\n", "utf-8")
    assert "found an empty file" in _only(spec, "RP201").message


def test_missing_spec_file(tmp_path: Path) -> None:
    assert "No such file" in _only(tmp_path / "nope.yaml", "RP101").message


def test_spec_path_is_a_folder(tmp_path: Path) -> None:
    _only(tmp_path, "RP101")


def test_no_spec_files_in_folder(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as exc:
        discover([tmp_path])
    assert [d.code for d in exc.value.diagnostics] == ["RP107"]


def _spec_citing(tmp_path: Path, source: bytes) -> Path:
    (tmp_path / "rules.txt").write_bytes(source)
    spec = tmp_path / "spec.yaml"
    spec.write_text("ruleset: x\nsource: rules.txt\nstates:\n  Crouched: {}\n", "utf-8")
    return spec


@pytest.mark.parametrize(("source", "code"), [
    (b"Speed is halved.\x00\x00", "RP103"),
    ("Vitesse réduite.".encode("latin-1"), "RP103"),
    (b"Speed is halved.\n" * 70_000, "RP102"),
], ids=["binary", "not-utf8", "over-1-mb"])
def test_bad_source_text_is_located_at_the_source_field(tmp_path: Path, source: bytes,
                                                        code: str) -> None:
    d = _only(_spec_citing(tmp_path, source), code)
    assert d.location is not None and d.location.line == 2
    assert "(the ruleset's 'source')" in d.message


# ------------------------------------------------------------------------------ registry

def _produced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Diagnostic]:
    """The diagnostics of the whole corpus plus one file-level problem of each kind."""
    out = [d for f in FIXTURES for d in diagnostics_of(f)]
    monkeypatch.chdir(tmp_path)
    for name, data in (("binary.yaml", b"\x00"),
                       ("huge.yaml", b"x: 1\n" + b"#" * (3 * 1024 * 1024))):
        (tmp_path / name).write_bytes(data)
        out += diagnostics_of(tmp_path / name)
    out += diagnostics_of(tmp_path / "missing.yaml")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SpecError) as exc:
        discover([Path("empty")])
    return out + exc.value.diagnostics


def test_every_load_and_validate_code_is_exercised(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    registry = {c for c in CODES if c[2] in "12"}
    missing = registry - {d.code for d in _produced(tmp_path, monkeypatch)}
    assert not missing, f"no bad-input test produces {sorted(missing)}"


def _doc_table_examples() -> dict[str, str]:
    """`| RPnnn | ... | `error[RPnnn]: message` |` rows of the doc's diagnostics table."""
    rows: dict[str, str] = {}
    for line in DOC.read_text("utf-8").splitlines():
        m = re.match(r"^\|\s*(RP[12]\d\d)\s*\|.*\|\s*`(error\[RP\d{3}\]: .+)`\s*\|\s*$", line)
        if m:
            rows[m[1]] = m[2].replace("\\|", "|")
    return rows


def test_doc_table_lists_every_code_with_a_message_the_checker_really_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _doc_table_examples()
    registry = {c for c in CODES if c[2] in "12"}
    assert set(rows) == registry, f"table rows {sorted(rows)} vs registry {sorted(registry)}"
    produced = [d.render() for d in _produced(tmp_path, monkeypatch)]
    for code, example in sorted(rows.items()):
        assert any(r.endswith(": " + example) for r in produced), (
            f"docs/spec-language.md: the example for {code} is not a message any bad-input "
            f"test produces: {example!r}")
