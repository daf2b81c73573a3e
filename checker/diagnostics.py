"""Diagnostic codes (a registry, as data) and the `Diagnostic` record.

Codes are grouped by stage: RP1xx load, RP2xx validate, RP3xx graph, RP4xx conflicts and
interaction findings, RP5xx engines/properties, RP6xx errata (diff, baseline, drift).

This is the one registry: every diagnostic and every finding kind is registered here once
(code, name, severity, title; a finding kind also its report heading), and everything
else — `checker.results.FINDING_KINDS`, the report's groups, SARIF rules, docs/codes.md
and `ruleproof explain-code` — derives from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Code:
    code: str
    slug: str
    title: str
    severity: Severity = Severity.ERROR
    heading: str = ""           # finding kinds only: the title of the kind's report group

    @property
    def anchor(self) -> str:
        """The section of docs/codes.md about this code (`rp403`)."""
        return self.code.lower()


def _finding(code: str, kind: str, title: str, heading: str,
             severity: Severity = Severity.ERROR) -> Code:
    """A finding kind: its code, its name (`Finding.kind`), severity, title and heading."""
    return Code(code, kind, title, severity, heading)


_CODES = [
    # load
    Code("RP101", "file-unreadable", "the file cannot be read"),
    Code("RP102", "file-too-large", "the file is larger than the limit"),
    Code("RP103", "binary-file", "the file is not UTF-8 text"),
    Code("RP104", "yaml-syntax", "the YAML does not parse"),
    Code("RP105", "yaml-too-complex", "the YAML is too deep, too large or uses aliases"),
    Code("RP106", "source-missing", "the ruleset's source text cannot be read"),
    Code("RP107", "no-specs", "no spec file was found"),
    # validate
    Code("RP201", "wrong-type", "a field has the wrong type"),
    Code("RP202", "unknown-field", "a field is not part of the spec language"),
    Code("RP203", "unknown-name", "a name is not declared"),
    Code("RP204", "duplicate-name", "a name or id is declared twice"),
    Code("RP205", "expression-syntax", "an expression does not parse"),
    Code("RP206", "expression-type", "an expression does not type-check"),
    Code("RP207", "quote-not-found", "a cited quote is not in the source text"),
    Code("RP208", "quote-ambiguous", "a cited quote occurs more than once in the source text"),
    Code("RP209", "missing-field", "a required field is missing"),
    Code("RP210", "cyclic-definition", "definitions refer to each other in a cycle"),
    Code("RP211", "bad-value", "a value is out of its allowed range"),
    Code("RP212", "contradictory-order", "ordering rules put two rules in both orders"),
    Code("RP215", "unknown-option", "a declaration or permission names an option its "
         "decision does not have"),
    Code("RP216", "unknown-attribute", "a constraint restricts an attribute no option "
         "declares"),
    Code("RP217", "exact-without-cite", "a range is pinned `exact` without the sentence "
         "that fixes it"),
    Code("RP218", "bad-restatement", "a 'restates' link that cannot be compared"),
    Code("RP220", "not-a-term-unused", "'not-a-term' lists a term the text never uses"),
    Code("RP219", "bad-reading", "readings of a sentence, or the adoption of one, are malformed"),
    Code("RP221", "at-least-one-without-slots", "'at_least_one' names a decision without "
         "slots, or one slot"),
    Code("RP222", "condition-unused", "a named condition no element uses"),
    # graph / structure: RP301–RP304 are finding kinds, below
    # properties
    Code("RP501", "property-violated", "a property the ruleset promises is violated"),
    Code("RP502", "property-unknown", "a property could not be decided", Severity.WARNING),
    # errata
    Code("RP601", "citation-drift", "a quote no longer matches the source text"),
    Code("RP602", "uncovered-sentence", "a sentence no spec clause accounts for",
         Severity.WARNING),
    Code("RP603", "behaviour-changed",
         "an errata changes what the rules allow (`ruleproof diff`)"),
    Code("RP604", "verdict-changed",
         "an errata changes a property's verdict (`ruleproof diff`)"),
]

# The finding kinds, each registered once, in the order the reports list them.
_FINDINGS = [
    _finding("RP401", "fact-contradiction", "two derived facts contradict each other",
             "Facts that contradict each other"),
    _finding("RP402", "forbidden-obligation", "an obligation another rule forbids",
             "Obligations another rule forbids"),
    _finding("RP403", "no-legal-action", "a situation with no legal action",
             "Situations with no legal action"),
    _finding("RP404", "order-dependence", "the outcome depends on the resolution order",
             "Outcomes that depend on the order effects resolve"),
    _finding("RP405", "non-termination", "a resolution or procedure does not terminate",
             "Triggered rules that never stop"),
    _finding("RP415", "inconsistent-restatement",
             "two statements of the same rule say different things",
             "Rules stated twice that say different things"),
    _finding("RP418", "ambiguity", "a verdict depends on how a sentence is read",
             "Sentences whose reading changes a verdict"),
    _finding("RP419", "identical-readings", "two readings of a sentence formalize it the same",
             "Readings that formalize a sentence the same way", Severity.WARNING),
    _finding("RP421", "blocked-effect", "a rule's effect that a prevent blocks",
             "Effects a prevent blocks"),
    _finding("RP406", "dead-rule", "a rule that can never fire", "Rules that can never fire",
             Severity.WARNING),
    _finding("RP408", "dead-ordering-rule", "an ordering rule that orders nothing",
             "Ordering rules that order nothing", Severity.WARNING),
    _finding("RP301", "unreachable-state", "a State no rule or event can enter",
             "States nothing can reach", Severity.WARNING),
    _finding("RP304", "undefined-reference", "the text refers to something it never defines",
             "Things the text refers to but never defines", Severity.WARNING),
    _finding("RP407", "vacuous-property", "a property that holds only vacuously",
             "Properties that hold only vacuously", Severity.WARNING),
    _finding("RP414", "scope-sensitive", "a proof that holds only because a range is small",
             "Proofs that hold only because a range is small", Severity.WARNING),
    _finding("RP302", "trigger-cycle", "triggered rules can re-trigger each other",
             "Triggered rules that can re-trigger each other", Severity.WARNING),
    _finding("RP410", "deadlock", "a situation in which no event can happen any more",
             "Situations where the game cannot go on"),
    _finding("RP411", "unmet-obligation", "an obligation no enabled declaration can meet",
             "Obligations no declaration can meet"),
    _finding("RP412", "unusable-permission", "a permission the restrictions always forbid",
             "Permissions that can never be used"),
    _finding("RP413", "permission-conflict", "a permission meets a prohibition",
             "Permissions that meet a prohibition"),
    _finding("RP303", "leaves-terminal", "a rule or event leaves a terminal State",
             "Rules that leave a terminal State", Severity.WARNING),
    _finding("RP416", "merged-statements",
             "one element formalizes several sentences that are not word for word the same",
             "Elements that formalize several different sentences at once", Severity.WARNING),
    _finding("RP417", "trigger-wording",
             "a rule's trigger does not match its sentence ('becomes' versus 'while')",
             "Rules whose trigger does not match their sentence", Severity.WARNING),
    _finding("RP422", "one-model-rule",
             "a rule about one model exists once per model, each copy doing the same",
             "Rules about one model that exist once per model", Severity.WARNING),
    _finding("RP420", "simultaneous-rules", "rules that can apply together in an order the "
             "text leaves open", "Rules that can apply together (every order is checked)",
             Severity.NOTE),
]

CODES: dict[str, Code] = {c.code: c for c in sorted(_CODES + _FINDINGS,
                                                     key=lambda c: c.code)}
if len(CODES) != len(_CODES) + len(_FINDINGS):    # pragma: no cover - a registry typo
    raise AssertionError("a diagnostic code is registered twice")

# finding kind (`Finding.kind`) → its registered code, in report order
FINDINGS: dict[str, Code] = {c.slug: c for c in _FINDINGS}


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    location: Location | None = None
    fix: str | None = None
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unregistered diagnostic code {self.code!r}")

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def render(self) -> str:
        """One line: `file:line:col: error[RP207]: message (fix)`."""
        where = f"{self.location}: " if self.location else ""
        fix = f" — {self.fix}" if self.fix else ""
        return f"{where}{self.severity.value}[{self.code}]: {self.message}{fix}"


def explanation(code: str) -> str:
    """The section of docs/codes.md about `code` (a registered code, e.g. "RP403"): what it
    means, an example and the fix. Read from the copy shipped in the package,
    `checker/codes.md`; a test keeps it identical to docs/codes.md."""
    if code not in CODES:
        raise KeyError(code)
    text = resources.files("checker").joinpath("codes.md").read_text(encoding="utf-8")
    m = re.search(rf"^## {code}\n.*?(?=^## |\Z)", text, re.M | re.S)
    if m is None:
        raise LookupError(f"checker/codes.md has no section for {code}")
    return m.group().rstrip() + "\n"
