"""The exception families: `SpecError` for bad user input, `OutputError` for an output
that cannot be written, `InternalError` for our bugs.

The error contract of the CLI (`checker.cli.main`):

- `SpecError` carries one or more coded diagnostics and never shows a traceback; the CLI
  prints each as one located line (`file:line:col: error[RP2xx]: message — fix`), exit 2.
- `OutputError`: a report or output file cannot be written where it was asked for; one
  line (`ruleproof: error[output]: ...`), exit 2, and no report file is half-written.
- `InternalError`, and any other exception escaping a stage, is a bug in ruleproof: the
  CLI shows the traceback and says so, exit 255 (never 1, which means "a violation").
"""

from __future__ import annotations

from checker.diagnostics import Diagnostic


class CheckerError(Exception):
    """Root of every exception ruleproof raises on purpose."""


class SpecError(CheckerError):
    """The user's input is wrong: fix the spec, the source text or the command line."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("; ".join(d.message for d in diagnostics))


class InternalError(CheckerError):
    """ruleproof itself is wrong (a trace that does not replay, an impossible state)."""


class OutputError(CheckerError):
    """A report or output file cannot be written where it was asked for: choose another
    output path, or fix the folder's permissions."""
