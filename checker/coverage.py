"""Coverage of the rulebook text: which sentences a spec formalizes, lists as informal,
or leaves uncovered. Headings are not counted."""

from __future__ import annotations

from dataclasses import dataclass

from checker.spec.lower import Ruleset


@dataclass(frozen=True)
class SentenceCoverage:
    index: int
    line: int
    text: str
    kind: str                      # sentence | bullet | row | heading
    status: str                    # formalized | informal | uncovered | heading
    elements: tuple[str, ...]      # spec element ids citing it


@dataclass(frozen=True)
class Coverage:
    sentences: tuple[SentenceCoverage, ...]

    def count(self, status: str) -> int:
        return sum(1 for s in self.sentences if s.status == status)

    @property
    def formalized(self) -> int:
        return self.count("formalized")

    @property
    def informal(self) -> int:
        return self.count("informal")

    @property
    def uncovered(self) -> int:
        return self.count("uncovered")

    @property
    def percent(self) -> float:
        total = self.formalized + self.informal + self.uncovered
        return 100.0 * self.formalized / total if total else 100.0


def coverage(ruleset: Ruleset) -> Coverage:
    """Classify every sentence of `ruleset`'s source text by the citations that overlap it."""
    out: list[SentenceCoverage] = []
    for s in ruleset.source.sentences:
        ids = sorted({c.element for c in ruleset.citations if c.start < s.end and s.start < c.end})
        if s.kind == "heading":
            status = "heading"
        elif any(not i.startswith(("informal:", "undefined:")) for i in ids):
            status = "formalized"
        elif ids:
            status = "informal"
        else:
            status = "uncovered"
        out.append(SentenceCoverage(s.index, s.line, s.text, s.kind, status, tuple(ids)))
    return Coverage(tuple(out))
