"""Results as data: property verdicts, findings, traces. Engines produce them, the report
writers consume them; nothing here prints or imports z3.

Status values are only ever set from an engine's answer (see `checker.engines`); UNKNOWN
always carries the reason the engine stopped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

from checker.diagnostics import FINDINGS


class Status(StrEnum):
    """The one vocabulary of a verdict. Each output format maps it in one place: the words
    (`checker.report.data.status_label`), the diagnostic code and so the severity
    (`PropertyView.code`), JUnit's outcome (`checker.report.junit`)."""

    PROVED = "proved"
    VIOLATED = "violated"
    UNKNOWN = "unknown"


# property kinds that ask whether something can happen: PROVED means "reachable" (a
# witness), VIOLATED "never reachable"
REACHABLE_KINDS = frozenset({"reachable", "state-reachable", "rule-fires", "vacuity"})


def fingerprint(*parts: str) -> str:
    """The one fingerprint of a reported result (baselines, SARIF, report anchors): the
    sha256 of `parts` joined by "|", 16 hex digits."""
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


class Method(StrEnum):
    BMC = "bmc"
    K_INDUCTION = "k-induction"
    SPACER = "spacer"
    EXPLICIT = "explicit"
    DECISION_DIAGRAMS = "decision-diagrams"    # the core: its exhaustion certified by Z3,
    #                                            or its shortest trace, replayed
    DECISION_DIAGRAMS_UNCHECKED = "decision-diagrams-unchecked"   # certificate: out of rlimit


class StopReason(StrEnum):
    """Why an engine stopped without a verdict."""

    TIMEOUT = "timeout"
    RESOURCE_LIMIT = "resource limit"
    INCOMPLETE = "engine incomplete"
    BOUND_REACHED = "bound reached"
    STATE_LIMIT = "state limit"

    def describe(self, detail: str = "") -> str:
        return f"{self.value}: {detail}" if detail else self.value


@dataclass(frozen=True)
class Step:
    """One macro step of a trace: an event with the inputs rolled for it, the rules that
    fired while resolving it — in firing order, the choice made: resolution is unordered, so
    they are part of the trace and `checker.interpret.replay` checks each may fire — and
    the values that changed (display names → shown values)."""

    event: str                                    # event instance id ("" for the initial state)
    inputs: tuple[tuple[str, str], ...] = ()
    fired: tuple[str, ...] = ()                   # rule instance ids, in firing order
    changed: tuple[tuple[str, str], ...] = ()     # (variable, new value) that changed
    state: tuple[tuple[str, int], ...] = ()       # full state after the step (raw values)


@dataclass(frozen=True)
class Trace:
    steps: tuple[Step, ...]
    replayed: bool = False                        # replayed by the reference interpreter
    # the initial state the trace starts from (raw values) when its initial resolution
    # fired rules: step 0 shows the state after them, from which the start cannot be read
    # back; empty when step 0's state is the start
    start: tuple[tuple[str, int], ...] = ()

    def __len__(self) -> int:
        return len(self.steps)


@dataclass(frozen=True)
class PropertyResult:
    id: str
    kind: str
    status: Status
    method: Method | None
    reason: str = ""
    trace: Trace | None = None
    states: tuple[str, ...] = ()
    source: str = ""                              # spec element id
    text: str = ""
    seconds: float = 0.0
    invariant: str = ""                           # the certificate, when an inductive proof
    readings: str = ""      # "" no readings; "all": the same under every reading; else the
                            # reading(s) this verdict is under, e.g. "'one Wait removes one'"

    def fingerprint(self, ruleset: str) -> str:
        return property_fingerprint(ruleset, self.id)


# the finding kinds in report order, and their codes: derived from the one registry
FINDING_KINDS = tuple(FINDINGS)

FINDING_CODES = {kind: c.code for kind, c in FINDINGS.items()}


@dataclass(frozen=True)
class Finding:
    kind: str
    rules: tuple[str, ...]                        # spec element ids, sorted
    states: tuple[str, ...]                       # States involved, sorted
    message: str
    resolved: bool = False
    resolved_by: tuple[str, ...] = ()
    trace: Trace | None = None
    detail: tuple[tuple[str, str], ...] = ()      # e.g. the two orders and their outcomes
    outcomes: tuple[tuple[str, Trace], ...] = ()  # order-dependence: each order, its trace

    @property
    def code(self) -> str:
        return FINDING_CODES[self.kind]

    def fingerprint(self, ruleset: str) -> str:
        """Stable across line numbers and ordering: ruleset, kind, sorted rules and States."""
        return fingerprint(ruleset, self.kind, ",".join(sorted(self.rules)),
                           ",".join(sorted(self.states)))


# property kinds whose violation fails a gate (the others are reachability sanity checks,
# reported as findings such as unreachable-state or dead-rule)
GATED_KINDS = ("always", "never", "terminal", "no-stacking", "cap", "reachable", "ruling")


def gate_violations(props: list[PropertyResult]) -> list[PropertyResult]:
    """The violated properties that fail a gate."""
    return [p for p in props if p.status is Status.VIOLATED and p.kind in GATED_KINDS]


def property_fingerprint(ruleset: str, property_id: str) -> str:
    """What a baseline accepts a violated property by: ruleset and property id."""
    return fingerprint(ruleset, "property", property_id)


@dataclass
class RulesetResult:
    ruleset: str
    properties: list[PropertyResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
