"""The report view-model: the types every writer reads (`ReportData` and its parts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.diagnostics import CODES, Location
from checker.report.wording import KIND_TITLES
from checker.results import FINDING_KINDS, REACHABLE_KINDS, Status

# violations of these kinds are reported as findings (checker.findings), not a second time
FINDING_BACKED = frozenset({"state-reachable", "rule-fires", "vacuity", "termination",
                            "blocked-effect"})
USER_KINDS = frozenset({"always", "never", "cap", "reachable", "terminal"})


def _kind_order(kinds: list[str]) -> list[str]:
    known = [k for k in FINDING_KINDS if k in kinds]
    return known + sorted({k for k in kinds if k not in FINDING_KINDS})


# ============================================================================ the view-model

Where = Location          # a place in a spec file or rulebook text: file:line:col


@dataclass(frozen=True)
class QuoteView:
    element: str                    # spec element id that cites it
    quote: str
    line: int                       # in the rulebook text
    col: int
    end_line: int
    end_col: int
    sentences: tuple[int, ...]      # indices of the rulebook sentences it covers


@dataclass(frozen=True)
class Change:
    name: str
    before: str | None
    after: str
    text: str                       # "becomes Crouched", "hp 2 → 1"


@dataclass(frozen=True)
class Value:
    name: str
    value: str
    text: str                       # "hp = 2", "is Crouched"


@dataclass(frozen=True)
class FiredRule:
    instance: str                   # "rule-id" or "rule-id@model"
    element: str
    model: str | None
    anchor: str | None              # on the ruleset page, when the rule is listed there


@dataclass(frozen=True)
class StepView:
    index: int                      # 1-based event step
    event: str                      # event instance id
    text: str                       # "suffer-wound (a)", "strategic phase begins"
    inputs: tuple[tuple[str, str], ...]
    fired: tuple[FiredRule, ...]
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class TraceView:
    initial: tuple[Value, ...]      # visible values in the starting situation
    steps: tuple[StepView, ...]
    replayed: bool
    initial_fired: tuple[str, ...] = ()   # the rules the starting situation's resolution fired

    def __len__(self) -> int:
        return len(self.steps)

    def outcome(self, relevant: frozenset[str] = frozenset()) -> str:
        """What the last step changed, in words; changes to `relevant` variables first."""
        if not self.steps:
            return "the starting situation"
        changes = sorted(self.steps[-1].changes, key=lambda c: c.name not in relevant)
        texts = [c.text for c in changes]
        if not texts:
            return "nothing changes"
        return ", ".join(texts[:4]) + (", …" if len(texts) > 4 else "")


@dataclass(frozen=True)
class PropertyView:
    id: str
    kind: str
    status: Status
    label: str                      # the status in words: proved, reachable, never reachable …
    tone: str                       # ok | bad | unknown
    method: str | None
    reason: str
    claim: str                      # what the ruleset promises: the cited quote, or the text
    text: str                       # the property as written in the spec
    message: str
    explanation: str
    location: Where
    element: str
    quotes: tuple[QuoteView, ...]
    states: tuple[str, ...]
    trace: TraceView | None
    seconds: float | None
    anchor: str
    fingerprint: str
    readings: str = ""              # "all", a reading's label, or "" (no readings)

    @property
    def reachability(self) -> bool:
        return self.kind in REACHABLE_KINDS

    @property
    def code(self) -> str | None:
        """The diagnostic this result stands for, when it is reported on its own."""
        if self.status is Status.VIOLATED and self.kind not in FINDING_BACKED:
            return "RP501"
        if self.status is Status.UNKNOWN:
            return "RP502"
        return None

    @property
    def severity(self) -> str | None:
        """The severity of `code` (`checker.diagnostics.CODES`): error when violated,
        warning when unknown."""
        return CODES[self.code].severity.value if self.code is not None else None


@dataclass(frozen=True)
class FindingView:
    fingerprint: str
    code: str
    kind: str
    severity: str                   # error | warning | note (resolved)
    message: str
    rules: tuple[str, ...]
    states: tuple[str, ...]
    citations: tuple[QuoteView, ...]
    resolved: bool
    resolved_by: tuple[str, ...]
    resolved_quotes: tuple[QuoteView, ...]
    trace: TraceView | None
    detail: tuple[tuple[str, str], ...]
    location: Where
    anchor: str
    rule_anchors: tuple[tuple[str, str | None], ...]   # (rule id, its anchor on the page)
    outcomes: tuple[tuple[str, TraceView], ...] = ()    # order-dependence: each order's trace


@dataclass(frozen=True)
class SideView:
    """One rule of a root cause, told by its title and its rulebook sentence."""

    element: str
    title: str                      # the spec's `title:`, or words from the text
    heading: str                    # the rulebook heading the sentence is under
    quote: str
    line: int | None                # in the rulebook text
    anchor: str | None              # the rule's row on the page
    comment: str                    # the spec's YAML comments on the element
    location: Where


@dataclass(frozen=True)
class MatrixView:
    """A family of obligations × prohibitions that clash for want of one precedence rule:
    each cell lists the anchors of its findings."""

    rows: tuple[tuple[str, str], ...]       # (element, title) of each "must"
    cols: tuple[tuple[str, str], ...]       # (element, title) of each "cannot"
    cells: tuple[tuple[tuple[str, ...], ...], ...]   # rows × cols: finding anchors
    head: tuple[str, str] = ("must…", "cannot…")      # what the rows and columns are


@dataclass(frozen=True)
class CauseView:
    """One root cause: the findings that share it (the same clash for every model, the same
    rules under several kinds, or a family missing one precedence), told as one question."""

    anchor: str
    tier: str                       # checker.report.advice.TIERS
    tier_label: str
    rank: int                       # position in "What needs attention" (0 first)
    severity: str                   # error | warning | note
    kinds: tuple[str, ...]
    codes: tuple[str, ...]
    headline: str                   # the situation, then the question
    short: str                      # the headline without the moment (for one line)
    subject: str                    # what it is about: "Bleeding vs Incapacitated"
    impact: str                     # what is at stake, in a few words
    situation: str                  # "When: ..."
    sides: tuple[SideView, ...]
    outcomes: tuple[tuple[str, str], ...]   # (label, what happens) per order or reading
    decision: str                   # what the text must decide
    errata: str                     # a suggested errata sentence
    options: tuple[tuple[str, str, str], ...]   # (what, spec field, docs link)
    findings: tuple[FindingView, ...]
    models: tuple[str, ...]
    states: tuple[str, ...]
    rules: tuple[str, ...]
    matrix: MatrixView | None
    story: tuple[str, ...]          # the trace as steps of play
    hidden_steps: int               # steps of the trace left out of the story
    resolved: bool
    location: Where

    @property
    def situations(self) -> int:
        return len(self.findings)


@dataclass(frozen=True)
class SentenceView:
    index: int
    line: int
    text: str
    kind: str                       # sentence | bullet | row | heading
    status: str                     # formalized | informal | uncovered | heading
    elements: tuple[str, ...]
    findings: tuple[tuple[str, str, bool], ...]   # (finding anchor, code, resolved)
    anchor: str


@dataclass(frozen=True)
class Segment:
    text: str
    sentence: int | None            # index into CoverageView.sentences


@dataclass(frozen=True)
class LineView:
    number: int
    segments: tuple[Segment, ...]


@dataclass(frozen=True)
class CoverageView:
    formalized: int
    informal: int
    uncovered: int
    percent: float
    sentences: tuple[SentenceView, ...]
    lines: tuple[LineView, ...]


@dataclass(frozen=True)
class ElementView:
    id: str
    section: str
    location: Where
    quotes: tuple[QuoteView, ...]
    states: tuple[str, ...]         # States it mentions or changes
    anchor: str
    reason: str


@dataclass(frozen=True)
class StateView:
    name: str
    key: str                        # node id in the SVG
    terminal: bool
    unreachable: bool
    elements: tuple[str, ...]       # anchors of the rules that mention it
    edges: tuple[str, ...]          # edge ids in the SVG


@dataclass(frozen=True)
class DiagramView:
    dot: str
    states: tuple[StateView, ...]


@dataclass(frozen=True)
class Counts:
    properties: int = 0
    proved: int = 0
    violated: int = 0
    unknown: int = 0
    findings: int = 0               # unresolved
    resolved: int = 0
    causes: int = 0                 # open root causes (errors and warnings)
    error_causes: int = 0           # open root causes that are errors

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(self.__dict__.values(), other.__dict__.values(),
                                              strict=True)))


@dataclass(frozen=True)
class RulesetView:
    id: str
    title: str
    page: str                       # file name of its HTML page
    spec_file: str
    source_file: str
    properties: tuple[PropertyView, ...]
    findings: tuple[FindingView, ...]
    coverage: CoverageView
    elements: tuple[ElementView, ...]
    diagram: DiagramView
    counts: Counts
    seconds: float | None
    causes: tuple[CauseView, ...] = ()      # open root causes, most severe first
    resolved_causes: tuple[CauseView, ...] = ()

    @property
    def attention(self) -> tuple[CauseView, ...]:
        """The open root causes that are errors, most severe first."""
        return tuple(c for c in self.causes if c.severity == "error")

    @property
    def warnings(self) -> tuple[CauseView, ...]:
        return tuple(c for c in self.causes if c.severity != "error")

    @property
    def open_findings(self) -> tuple[FindingView, ...]:
        return tuple(f for f in self.findings if not f.resolved)

    @property
    def resolved_findings(self) -> tuple[FindingView, ...]:
        return tuple(f for f in self.findings if f.resolved)

    def findings_by_kind(self, resolved: bool) -> list[tuple[str, str, list[FindingView]]]:
        """(kind, title, findings) groups in FINDING_KINDS order."""
        out: list[tuple[str, str, list[FindingView]]] = []
        for kind in _kind_order([f.kind for f in self.findings]):
            group = [f for f in self.findings if f.kind == kind and f.resolved == resolved]
            if group:
                out.append((kind, KIND_TITLES.get(kind, kind), group))
        return out


@dataclass(frozen=True)
class ReportData:
    rulesets: tuple[RulesetView, ...]
    timings: bool
    totals: Counts
    # what `ruleproof merge` joins shards by: the code version, the options, the shard,
    # and per ruleset its spec and text hashes and its raw results (checker.results.codec)
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)
    results: tuple[dict[str, Any], ...] = field(default=(), compare=False)
