"""How much of a rulebook text a spec covers: each sentence formalized, informal or uncovered."""

from __future__ import annotations

from dataclasses import dataclass


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
