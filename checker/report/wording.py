"""The report's words: verdicts (`status_label`, `tone`), the message and explanation of a
property result, the titles of finding kinds and the names of the proof methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

from checker.diagnostics import FINDINGS
from checker.results import REACHABLE_KINDS, Status

if TYPE_CHECKING:
    from checker.report.data.views import TraceView

# finding kind → the title of its group in the reports (from the registry)
KIND_TITLES = {kind: c.heading for kind, c in FINDINGS.items()}

METHODS = {
    "bmc": "bounded model checking: a shortest trace",
    "k-induction": "proof by induction",
    "spacer": "proof by Z3's CHC engine (Spacer), re-checked by induction",
    "explicit": "explicit search of every reachable situation",
    "decision-diagrams": "decision diagrams over every reachable situation: a proof "
                         "certified by Z3, a trace replayed by the reference interpreter",
    "decision-diagrams-unchecked": "decision diagrams (certificate not checked: resource "
                                   "limit)",
}


def status_label(kind: str, status: Status) -> str:
    """The status in words; for reachability kinds, proved means a witness was found."""
    if kind in REACHABLE_KINDS:
        return {Status.PROVED: "reachable", Status.VIOLATED: "never reachable",
                Status.UNKNOWN: "unknown"}[status]
    return status.value


def tone(status: Status) -> str:
    return {Status.PROVED: "ok", Status.VIOLATED: "bad", Status.UNKNOWN: "unknown"}[status]


def steps_text(n: int) -> str:
    return f"{n} step" + ("" if n == 1 else "s")


def explanation(kind: str, status: Status, trace: TraceView | None, reason: str,
                relevant: frozenset[str] = frozenset()) -> str:
    """Why the verdict is what it is, in words (the part of the message after the dash);
    a counterexample's last changes to the `relevant` variables come first."""
    if status is Status.UNKNOWN:
        return (f"could not be decided ({reason or 'no reason given'}); "
                "treat it as unchecked")
    if kind in REACHABLE_KINDS:
        if status is Status.PROVED:
            if trace is None:
                return ""
            if not trace.steps:
                return "true from the start"
            return f"a witness gets there in {steps_text(len(trace))}"
        return "no sequence of events leads there"
    if status is Status.PROVED:
        return "holds in every reachable situation"
    if trace is None:
        return ""
    if not trace.steps:
        return "already in the starting situation"
    return f"after {steps_text(len(trace))}: {trace.outcome(relevant)}"


def property_message(kind: str, status: Status, claim: str, trace: TraceView | None,
                     reason: str, relevant: frozenset[str] = frozenset(),
                     readings: str = "") -> str:
    """One sentence a rules writer can read: the verdict (under which reading of an
    ambiguous sentence, when the ruleset has some), what was promised, and why."""
    why = explanation(kind, status, trace, reason, relevant)
    under = ("" if not readings else " under all readings" if readings == "all"
             else f" under the reading {readings}")
    head = f"{status_label(kind, status)}{under}: '{claim}'"
    return f"{head} — {why}" if why else head
