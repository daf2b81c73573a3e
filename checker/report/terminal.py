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

from checker.report.advice import TIERS
from checker.report.data import (
    KIND_TITLES,
    FindingView,
    PropertyView,
    QuoteView,
    ReportData,
    RulesetView,
)
from checker.report.data.views import CauseView
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


_Prop = tuple[RulesetView, PropertyView]
WIDTH = 120          # a line of the default output is never longer
FOLD = 3             # warnings of one kind in one ruleset beyond this fold into one line


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(1, width - 1)] + "…"


class TerminalReporter:
    """By default one line per root cause, errors before warnings, a tally and a "start
    here" line; `verbose`: every finding under its root cause, with quotes and trace."""

    report_type = "terminal"

    def __init__(self, console: Console, *, verbose: bool = False,
                 html: str = "reports") -> None:
        self.console = console
        self.verbose = verbose
        self.html = html.rstrip("/")

    def report(self, data: ReportData, written: list[str],
               accepted: frozenset[str] = frozenset()) -> None:
        """`accepted`: fingerprints of baseline entries, counted but not listed."""
        width = max((len(r.id) for r in data.rulesets), default=0)
        for r in data.rulesets:
            self.console.print(self.summary(r, width))
        hidden = 0
        errors: list[tuple[RulesetView, CauseView]] = []
        warnings: list[tuple[RulesetView, CauseView]] = []
        for r in data.rulesets:
            for c in r.causes:
                if all(f.fingerprint in accepted for f in c.findings):
                    hidden += len(c.findings)
                    continue
                (errors if c.severity == "error" else warnings).append((r, c))
        props = [(r, p) for r in data.rulesets for p in r.properties if p.code is not None]
        shown_props = [(r, p) for r, p in props
                       if not (p.status is Status.VIOLATED and p.fingerprint in accepted)]
        hidden += len(props) - len(shown_props)
        bad = [(r, p) for r, p in shown_props if p.status is Status.VIOLATED]
        unknown = [(r, p) for r, p in shown_props if p.status is not Status.VIOLATED]
        if bad or errors:
            self.console.print(Text("Problems to fix, most severe first:", "bold"))
        errors.sort(key=lambda rc: (TIERS.index(rc[1].tier), "lives or dies" not in rc[1].impact,
                                    -rc[1].situations))
        breaking = [rc for rc in errors if rc[1].tier == "game-breaking"]
        for r, c in breaking:            # game-breaking first, then the broken promises
            self._cause(r, c)
        for _, p in bad:
            self._property(p)
        for r, c in errors[len(breaking):]:
            self._cause(r, c)
        if unknown or warnings:
            self.console.print(Text("Warnings:", "bold"))
        for _, p in unknown:
            self._property(p)
        self._warnings(warnings)
        if hidden:
            self.console.print(Text(f"{hidden} accepted in the baseline, not listed again "
                                    "(they are in the HTML/JSON reports)", "dim"))
        self.console.print(self._tally(data, errors, warnings, bad, unknown))
        first = self._start_here(errors, bad, unknown, warnings)
        if first:
            self.console.print(first)
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
        t.append(f"{c.error_causes} problem" + ("" if c.error_causes == 1 else "s"),
                 STYLES["bad"] if c.error_causes else "")
        warn = c.causes - c.error_causes
        t.append(f", {warn} warning" + ("" if warn == 1 else "s"))
        t.append(f" ({c.findings} finding" + ("" if c.findings == 1 else "s"))
        if c.resolved:
            t.append(f", {c.resolved} resolved")
        t.append(")")
        cov = r.coverage
        t.append(f" · uncovered {cov.uncovered}")
        if r.seconds is not None:
            t.append(f" · {r.seconds:.2f} s", "dim")
        return t

    def _line(self, where: str, severity: str, code: str, message: str,
              tail: str = "") -> Text:
        t = Text()
        t.append(f"{_clean(where)}: ", STYLES["where"])
        t.append(f"{severity}[{code}]", STYLES.get(severity, ""))
        room = WIDTH - len(where) - len(severity) - len(code) - 6 - len(tail)
        t.append(": " + (_clip(_clean(message), room) if not self.verbose else _clean(message)))
        if tail:
            t.append(tail, "dim")
        return t

    def _cause(self, r: RulesetView, c: CauseView) -> None:
        n = c.situations
        tail = f" ({n} situations)" if n > 1 else ""
        where, codes = str(c.location), "/".join(c.codes)
        room = WIDTH - len(where) - len(c.severity) - len(codes) - 6 - len(tail)
        text = c.headline if len(c.headline) <= room or self.verbose else c.short
        self.console.print(self._line(where, c.severity, codes, text, tail))
        if self.verbose:
            self.console.print(Text(f"    what to do: {c.decision} e.g. {c.errata}"))
            self.console.print(Text(f"    report: {self.anchor(r, c.anchor)}", "dim"))
            for f in c.findings:
                self._finding(f, r.source_file)

    def _warnings(self, warnings: list[tuple[RulesetView, CauseView]]) -> None:
        groups: dict[tuple[str, str], list[tuple[RulesetView, CauseView]]] = {}
        for r, c in warnings:
            groups.setdefault((r.id, c.kinds[0]), []).append((r, c))
        for (rid, kind), group in groups.items():
            if self.verbose or len(group) <= FOLD:
                for r, c in group:
                    self._cause(r, c)
                continue
            r, c = group[0]
            names = ", ".join(s for _, g in group for s in g.states[:1]) or \
                ", ".join(g.rules[0] for _, g in group if g.rules)
            title = KIND_TITLES.get(kind, kind)
            self.console.print(self._line(f"{rid}", c.severity, c.codes[0],
                                          f"{len(group)} × {title.lower()}: {names}"))

    def _tally(self, data: ReportData, errors: list[tuple[RulesetView, CauseView]],
               warnings: list[tuple[RulesetView, CauseView]], bad: list[_Prop],
               unknown: list[_Prop]) -> Text:
        t = data.totals
        findings = sum(c.situations for _, c in errors + warnings)
        words = [f"{len(errors)} problem" + ("" if len(errors) == 1 else "s")]
        if bad:
            words.append(f"{len(bad)} broken promise" + ("" if len(bad) == 1 else "s"))
        words.append(f"{len(warnings)} warning" + ("" if len(warnings) == 1 else "s"))
        if unknown:
            words.append(f"{len(unknown)} unknown")
        tone = "bad" if errors or bad else ("unknown" if unknown else "ok")
        text = Text("total: ", "bold")
        text.append(", ".join(words), STYLES[tone])
        text.append(f" ({findings} finding{'' if findings == 1 else 's'}) · {t.proved} of "
                    f"{t.properties} properties proved")
        return text

    def _start_here(self, errors: list[tuple[RulesetView, CauseView]], bad: list[_Prop],
                    unknown: list[_Prop], warnings: list[tuple[RulesetView, CauseView]]
                    ) -> Text | None:
        if bad and not (errors and errors[0][1].tier == "game-breaking"):
            r, p = bad[0]
            link = self.anchor(r, p.anchor)
            claim = _clip(_clean(p.claim), WIDTH - 40 - len(link))
            return Text(f"start here: the broken promise '{claim}' — {link}")
        pick = errors[0] if errors else (warnings[0] if warnings else None)
        if pick is None:
            if unknown:
                return Text("start here: the unknown results — try a larger --timeout or "
                            "--node-budget, or narrower variable ranges")
            return None
        r, c = pick
        link = self.anchor(r, c.anchor)
        room = WIDTH - 16 - len(link)
        text = next((t for t in (c.headline, c.short) if len(t) <= room), c.subject)
        return Text("start here: " + _clip(_clean(text), room) + f" — {link}")

    def anchor(self, r: RulesetView, anchor: str) -> str:
        return f"{self.html}/{r.page}#{anchor}"

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
        tail = " — try a larger --timeout or --node-budget" \
            if p.status is Status.UNKNOWN else ""
        self.console.print(self._line(str(p.location), p.severity, p.code, p.message, tail))
        if self.verbose and p.trace is not None and p.status is Status.VIOLATED:
            self.console.print(Text(f"    trace: {steps_text(len(p.trace))} — "
                                    + " → ".join(_clean(s.text) for s in p.trace.steps)))

    def _finding(self, f: FindingView, source: str) -> None:
        self.console.print(Text(f"  {f.location}: {f.code}: {_clean(f.message)}"))
        if f.trace is not None:
            steps = " → ".join(_clean(s.text) for s in f.trace.steps) or "the starting situation"
            self.console.print(Text(f"    trace: {steps_text(len(f.trace))} — {steps}"))
        self._quotes(f.citations, source)


def print_report(data: ReportData, console: Console, written: list[str], *,
                 accepted: frozenset[str] = frozenset(), verbose: bool = False,
                 html: str = "reports") -> None:
    """Print `data` to `console`; `written` lines ("report: reports/index.html") go last.
    `html`: the HTML report folder (the anchors of the "start here" line)."""
    reporter = TerminalReporter(console, verbose=verbose, html=html)
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


class PlainProgress:
    """Progress off a terminal: a line on `stream` (stderr by default) at least every
    `every` seconds of a check, saying what is being checked and how far it is; nothing for
    a check shorter than that. Pass `update` as the plan's progress callback."""

    def __init__(self, stream: TextIO | None = None, *, every: float = 10.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.state: tuple[str, str, int, int] | None = None
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.started = 0.0

    def __enter__(self) -> PlainProgress:
        import time
        self.started = time.monotonic()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=1.0)

    def update(self, ruleset: str, item: str, done: int, total: int) -> None:
        with self.lock:
            self.state = (ruleset, item, done, total)

    __call__ = update

    def _run(self) -> None:
        import time
        while not self.stop.wait(self.every):
            with self.lock:
                state = self.state
            elapsed = int(time.monotonic() - self.started)
            if state is None:
                line = f"checking… ({elapsed} s)"
            else:
                ruleset, item, done, total = state
                line = (f"checking {_clean(ruleset)}: {_clean(item)} ({done}/{total or '?'}"
                        f", {elapsed} s)")
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                return


@contextmanager
def progress(stream: TextIO | None = None, *, delay: float = 1.0) -> Iterator[ProgressCallback]:
    """`TerminalProgress` on `stream` as a context manager yielding the callback."""
    with TerminalProgress(stream=stream, delay=delay) as live:
        yield live.update
