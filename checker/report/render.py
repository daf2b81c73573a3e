"""`render_all`: build the view-model once and hand it to every writer the user asked for.

Every report is rendered in memory first and only then written, each file atomically, so
an error or an interrupt while rendering leaves every previous report as it was.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TextIO

from checker.errors import OutputError
from checker.options import Options
from checker.report import terminal
from checker.report.data import ReportData, build_report
from checker.report.html import HtmlReporter
from checker.report.json_report import JsonReporter
from checker.report.junit import JunitReporter
from checker.report.sarif import SarifReporter
from checker.report.write import OutputDir, ensure_folder, write_atomic
from checker.results.run import Run

DEFAULT_HTML = Path("reports")


class Reporter(Protocol):
    """A writer of one single-file format."""

    report_type: str

    def render(self, data: ReportData) -> str: ...


@dataclass(frozen=True)
class Outputs:
    """Where the reports go. `html` is a folder (the HTML report is always written; the
    command line's default is reports/); the others are files, written only when given."""

    html: Path = DEFAULT_HTML
    json: Path | None = None
    sarif: Path | None = None
    junit: Path | None = None
    terminal: bool = True
    stream: TextIO | None = None          # the terminal report's stream (stdout by default)
    dot: str | None = None                # Graphviz's dot (default: found on PATH)
    accepted: frozenset[str] = frozenset()  # baseline fingerprints: counted, not listed,
    #                                         on the terminal (the files keep everything)
    verbose: bool = False                 # the terminal lists every finding

    @classmethod
    def of(cls, outputs: Outputs | Mapping[str, Path | None]) -> Outputs:
        """`outputs` itself, or an `Outputs` from {"html": .., "json": .., "sarif": ..,
        "junit": ..} (missing or None: not written; html None: reports/)."""
        if isinstance(outputs, Outputs):
            return outputs
        unknown = set(outputs) - {"html", "json", "sarif", "junit"}
        if unknown:
            raise ValueError(f"unknown report outputs {sorted(unknown)}")
        return cls(html=outputs.get("html") or DEFAULT_HTML, json=outputs.get("json"),
                   sarif=outputs.get("sarif"), junit=outputs.get("junit"))


def render_all(run: Run, options: Options, outputs: Outputs | Mapping[str, Path | None], *,
               color: bool | None = None) -> None:
    """Write every report for `run`, then print the terminal report, which ends by naming
    the files written. `color`: None colours only a terminal (and not with NO_COLOR set),
    True always, False never. Raises `OutputError` when a file cannot be written."""
    out = Outputs.of(outputs)
    data = build_report(run, options)
    written = write_files(data, out)
    if out.terminal:
        stream = out.stream if out.stream is not None else sys.stdout
        terminal.print_report(data, terminal.console_for(stream, color=color), written,
                              accepted=out.accepted, verbose=out.verbose,
                              html=out.html.as_posix())


def write_files(data: ReportData, outputs: Outputs) -> list[str]:
    """Write the HTML, JSON, SARIF and JUnit reports; return "report: PATH" lines."""
    wanted: list[tuple[Reporter, Path | None]] = [
        (JsonReporter(), outputs.json), (SarifReporter(), outputs.sarif),
        (JunitReporter(), outputs.junit)]
    files = [(r.report_type, path, r.render(data)) for r, path in wanted if path is not None]
    folder = OutputDir(outputs.html)
    pages = HtmlReporter(dot=outputs.dot).render(data)
    # every destination is checked before the first file is written: a report folder that
    # cannot be made (e.g. under a regular file) fails the run with nothing half-written
    folder.prepare()
    for _, path, _ in files:
        if path.is_dir():
            raise OutputError(f"cannot write the report to {str(path)!r}: it is a folder")
        ensure_folder(path.parent)
    written: list[str] = []
    for what, path, text in files:
        write_atomic(path, text)
        written.append(f"{what}: {path}")
    for name, html in pages.items():
        if name != "index.html":
            folder.write(name, html)
    index = folder.write("index.html", pages["index.html"])
    written.append(f"report: {index}")
    return written
