"""`ReportData`, the report view-model: built once from a `Run` by `build_report`; every
writer (terminal, JSON, SARIF, JUnit, HTML) reads only this.

Building it is pure (no printing, no files, no clock): the same run gives the same data.
Here results are put into rulebook language: status words, a message per property that
quotes what the ruleset promises, traces as "what changed" per step, quotes with their
rulebook lines, and the rulebook's sentences with their coverage and the findings that cite
them. Paths are made relative to `base` (the working directory).

Modules: `views` (the view-model types), `build` (`build_report`, `Views`: results →
views); the words themselves are in `checker.report.wording`.
"""

from checker.report.data.build import Views, anchor, build_report, relative
from checker.report.data.build import _page_name as _page_name  # for the tests
from checker.report.data.views import (
    FINDING_BACKED,
    USER_KINDS,
    Counts,
    DiagramView,
    FindingView,
    PropertyView,
    QuoteView,
    ReportData,
    RulesetView,
    SentenceView,
    TraceView,
    Where,
)
from checker.report.wording import (
    KIND_TITLES,
    METHODS,
    explanation,
    property_message,
    status_label,
    steps_text,
    tone,
)
from checker.results import REACHABLE_KINDS

__all__ = ["FINDING_BACKED", "KIND_TITLES", "METHODS", "REACHABLE_KINDS", "USER_KINDS",
           "Counts", "DiagramView", "FindingView", "PropertyView", "QuoteView", "ReportData",
           "RulesetView", "SentenceView", "TraceView", "Views", "Where", "anchor",
           "build_report", "explanation", "property_message", "relative", "status_label",
           "steps_text", "tone"]
