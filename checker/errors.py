"""The exception families: `SpecError` for bad user input, `InternalError` for our bugs.

A `SpecError` carries one or more coded diagnostics and never shows a traceback; the CLI
prints its diagnostics and exits 2. Anything else escaping a stage is a bug in ruleproof:
the CLI shows the traceback and exits 255.
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
