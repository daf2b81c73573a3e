"""The terminal report (rich): a summary line per ruleset, then every violated property and
open finding as `file:line:col: severity[code]: message` with the rulebook quotes under it.
Colour only when the stream is a terminal (and NO_COLOR is unset); spec and rulebook text is
never read as rich markup. `TerminalProgress` is the live display shown while a run is
checking (its `update` is `checker.plan.tasks.check`'s progress callback)."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from checker.report.data import (
    FindingView,
    PropertyView,
    QuoteView,
    ReportData,
    RulesetView,
)
from checker.report.wording import steps_text
from checker.results import Status

STYLES = {"ok": "green", "bad": "bold red", "unknown": "bold yellow", "note": "dim",
          "error": "bold red", "warning": "yellow", "where": "bold", "quote": "cyan"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def console_for(stream: TextIO | None = None, *, color: bool | None = None) -> Console:
    """A console on `stream` (stdout by default). `color`: None colours only a terminal
    (and not with NO_COLOR set), True always, False never."""
    out = stream if stream is not None else sys.stdout
    if color is False:
        return Console(file=out, highlight=False, emoji=False, soft_wrap=True,
                       color_system=None, force_terminal=False)
    return Console(file=out, highlight=False, emoji=False, soft_wrap=True,
                   force_terminal=True if color else None)


def _clean(text: str) -> str:
    """Text from a spec or rulebook with terminal control characters made visible."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class TerminalReporter:
    report_type = "terminal"

    def __init__(self, console: Console) -> None:
        self.console = console

    def report(self, data: ReportData, written: list[str],
               accepted: frozenset[str] = frozenset()) -> None:
        """`accepted`: fingerprints of baseline entries, counted but not listed."""
        width = max((len(r.id) for r in data.rulesets), default=0)
        for r in data.rulesets:
            self.console.print(self.summary(r, width))
        hidden = 0
        for r in data.rulesets:
            for p in r.properties:
                if p.code is None:
                    continue
                if p.status is Status.VIOLATED and p.fingerprint in accepted:
                    hidden += 1
                else:
                    self._property(p)
            for f in r.open_findings:
                if f.fingerprint in accepted:
                    hidden += 1
                else:
                    self._finding(f, r.source_file)
        if hidden:
            self.console.print(Text(f"{hidden} accepted in the baseline, not listed again "
                                    "(they are in the HTML/JSON reports)", "dim"))
        for line in written:
            self.console.print(Text(line))

    def summary(self, r: RulesetView, width: int = 0) -> Text:
        c = r.counts
        t = Text()
        t.append(_clean(r.id).ljust(width), "bold")
        t.append(f"  {c.properties} properties: ")
        parts: list[tuple[str, str]] = [(f"{c.proved} proved", "ok")]
        if c.violated:
            parts.append((f"{c.violated} violated", "bad"))
        if c.unknown:
            parts.append((f"{c.unknown} unknown", "unknown"))
        for i, (words, tone) in enumerate(parts):
            if i:
                t.append(", ")
            t.append(words, STYLES[tone])
        t.append(" · ")
        total = c.findings + c.resolved
        t.append(f"{total} finding" + ("" if total == 1 else "s"),
                 STYLES["bad"] if c.findings else "")
        if c.resolved:
            t.append(f" ({c.resolved} resolved by the text)")
        cov = r.coverage
        t.append(f" · formalized {cov.formalized} · informal {cov.informal} · "
                 f"uncovered {cov.uncovered}")
        if r.seconds is not None:
            t.append(f" · {r.seconds:.2f} s", "dim")
        return t

    def _head(self, where: str, severity: str, code: str, message: str) -> Text:
        t = Text()
        t.append(f"{_clean(where)}: ", STYLES["where"])
        t.append(f"{severity}[{code}]", STYLES.get(severity, ""))
        t.append(f": {_clean(message)}")
        return t

    def _quotes(self, quotes: tuple[QuoteView, ...], source: str) -> None:
        for q in quotes:
            t = Text("    ")
            t.append(f"{_clean(q.element)}: ", "dim")
            t.append(f"\"{_clean(q.quote)}\"", STYLES["quote"])
            t.append(f" ({_clean(source)}:{q.line})", "dim")
            self.console.print(t)

    def _property(self, p: PropertyView) -> None:
        assert p.code is not None
        assert p.severity is not None
        self.console.print(self._head(str(p.location), p.severity, p.code, p.message))
        if p.trace is not None and p.status is Status.VIOLATED:
            self.console.print(Text(f"    trace: {steps_text(len(p.trace))} — "
                                    + " → ".join(_clean(s.text) for s in p.trace.steps)))

    def _finding(self, f: FindingView, source: str) -> None:
        self.console.print(self._head(str(f.location), f.severity, f.code, f.message))
        if f.trace is not None:
            steps = " → ".join(_clean(s.text) for s in f.trace.steps) or "the starting situation"
            self.console.print(Text(f"    trace: {steps_text(len(f.trace))} — {steps}"))
        self._quotes(f.citations, source)


def print_report(data: ReportData, console: Console, written: list[str], *,
                 accepted: frozenset[str] = frozenset()) -> None:
    """Print `data` to `console`; `written` lines ("report: reports/index.html") go last."""
    reporter = TerminalReporter(console)
    reporter.report(data, written, accepted)


# ============================================================================ live progress

ProgressCallback = Callable[[str, str, int, int], None]   # (ruleset, item, done, total)


class TerminalProgress:
    """A live progress display for `checker.plan.tasks.check`: pass `update` as its progress
    callback. Once the run has taken `delay` seconds it shows which property is being
    checked and how many are done; it disappears when the `with` block ends. Shown only
    when `enabled` (default: when `stream` is a terminal); otherwise `update` does nothing.
    """

    def __init__(self, enabled: bool | None = None, *, stream: TextIO | None = None,
                 delay: float = 1.0) -> None:
        self.console = console_for(stream, color=None if enabled is None else enabled)
        self.enabled = self.console.is_terminal if enabled is None else enabled
        self.delay = delay
        self.lock = threading.Lock()
        self.state: tuple[str, str, int, int] | None = None
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.closed = False
        self.timer = threading.Timer(delay, self._start)
        self.timer.daemon = True

    def __enter__(self) -> TerminalProgress:
        if self.enabled:
            self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, ruleset: str, item: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self.lock:
            self.state = (ruleset, item, done, total)
            self._show()

    __call__ = update

    def _start(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.progress = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                MofNCompleteColumn(), TimeElapsedColumn(), console=self.console,
                transient=True)
            self.task = self.progress.add_task("checking", total=None)
            self.progress.start()
            self._show()

    def _show(self) -> None:
        if self.progress is None or self.task is None or self.state is None:
            return
        ruleset, item, done, total = self.state
        self.progress.update(self.task, description=f"{_clean(ruleset)}: checking "
                             f"{_clean(item)}", completed=done, total=total or None)

    def close(self) -> None:
        self.timer.cancel()
        with self.lock:
            self.closed = True
            if self.progress is not None:
                self.progress.stop()
                self.progress = None


@contextmanager
def progress(stream: TextIO | None = None, *, delay: float = 1.0) -> Iterator[ProgressCallback]:
    """`TerminalProgress` on `stream` as a context manager yielding the callback."""
    with TerminalProgress(stream=stream, delay=delay) as live:
        yield live.update
