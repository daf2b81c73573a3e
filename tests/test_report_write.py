"""Atomic writes, and nothing written outside the chosen folder or files."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from test_report_support import demo_run

from checker.errors import CheckerError
from checker.options import Options
from checker.report import Outputs, render_all
from checker.report.write import OutputDir, ReportWriteError, write_atomic

pytestmark = pytest.mark.unit


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_write_atomic_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text("old", encoding="utf-8")
    write_atomic(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert tree(tmp_path) == ["r.json"]
    assert (target.stat().st_mode & 0o777) == 0o644


def test_an_interrupted_write_leaves_the_old_file(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "index.html"
    target.write_text("previous report", encoding="utf-8")

    def crash(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "half a report")
    assert target.read_text(encoding="utf-8") == "previous report"
    assert tree(tmp_path) == ["index.html"]


def test_a_failed_write_is_a_checker_error(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(ReportWriteError, match="Permission denied") as err:
        write_atomic(tmp_path / "x.json", "{}")
    assert isinstance(err.value, CheckerError)
    assert tree(tmp_path) == []


def test_writing_to_a_folder_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportWriteError, match="is a folder"):
        write_atomic(tmp_path, "{}")


@pytest.mark.parametrize("name", ["../escape.html", "/etc/passwd", "a/b.html", "..", "",
                                  ".hidden"])
def test_output_dir_refuses_names_outside_it(tmp_path: Path, name: str) -> None:
    with pytest.raises(ReportWriteError):
        OutputDir(tmp_path / "reports").write(name, "x")
    assert tree(tmp_path) == []


def test_html_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "reports").write_text("not a folder", encoding="utf-8")
    with pytest.raises(ReportWriteError, match="is a file"):
        render_all(demo_run(), Options(), Outputs(html=tmp_path / "reports",
                                                  stream=io.StringIO()))


def test_render_all_writes_only_what_was_asked(tmp_path: Path) -> None:
    stream = io.StringIO()
    outputs = Outputs(html=tmp_path / "out" / "html", json=tmp_path / "r.json",
                      sarif=tmp_path / "ci" / "r.sarif", junit=tmp_path / "junit.xml",
                      stream=stream)
    render_all(demo_run(), Options(), outputs)
    assert tree(tmp_path) == ["ci", "ci/r.sarif", "junit.xml", "out", "out/html",
                              "out/html/demo.html", "out/html/eldfall.html",
                              "out/html/index.html", "r.json"]
    lines = stream.getvalue().splitlines()
    assert lines[-4:] == [f"json: {tmp_path / 'r.json'}", f"sarif: {tmp_path / 'ci/r.sarif'}",
                          f"junit: {tmp_path / 'junit.xml'}",
                          f"report: {tmp_path / 'out/html/index.html'}"]


def test_rewriting_keeps_other_files_in_the_folder(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("keep me", encoding="utf-8")
    render_all(demo_run(), Options(), Outputs(html=tmp_path, stream=io.StringIO()))
    render_all(demo_run(), Options(), Outputs(html=tmp_path, stream=io.StringIO()))
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "keep me"
    assert tree(tmp_path) == ["README.md", "demo.html", "eldfall.html", "index.html"]


def test_terminal_can_be_turned_off(tmp_path: Path) -> None:
    stream = io.StringIO()
    render_all(demo_run(), Options(), Outputs(html=tmp_path, terminal=False, stream=stream))
    assert stream.getvalue() == ""


def test_outputs_can_be_given_as_a_mapping(tmp_path: Path) -> None:
    render_all(demo_run(), Options(), {"html": tmp_path / "h", "json": tmp_path / "r.json",
                                       "sarif": None, "junit": None})
    assert tree(tmp_path) == ["h", "h/demo.html", "h/eldfall.html", "h/index.html", "r.json"]
    with pytest.raises(ValueError, match="unknown report outputs"):
        Outputs.of({"pdf": tmp_path / "x.pdf"})
    assert Outputs.of({"html": None}).html == Path("reports")


def test_colour_can_be_forced_or_refused(tmp_path: Path) -> None:
    plain, forced = io.StringIO(), io.StringIO()
    render_all(demo_run(), Options(), Outputs(html=tmp_path, stream=plain), color=False)
    render_all(demo_run(), Options(), Outputs(html=tmp_path, stream=forced), color=True)
    assert "\x1b[" not in plain.getvalue()
    assert "\x1b[" in forced.getvalue()
