"""The rulebook text: sentences with their spans, and finding a cited quote in it.

A quote matches when it equals a passage of the text after normalizing only whitespace,
typographic quotes/apostrophes and dashes (so an editor's "smart quotes" do not break a
citation); nothing else is forgiven. `Sentence`s are the units coverage is measured in: a
non-empty line of the text is split at sentence ends (`. `, `! `, `? `, `: ` before a
capital is not a split), bullets and table rows are one sentence each.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
    "\u2014": "-", "\u2212": "-", "\u00a0": " ", "\t": " ",
})
_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\u201c]?[A-Z0-9•\-])")


def normalize(text: str) -> str:
    return _SPACE.sub(" ", text.translate(_TRANSLATE)).strip()


@dataclass(frozen=True)
class Sentence:
    index: int
    start: int
    end: int
    line: int
    text: str
    kind: str  # "sentence" | "bullet" | "row" | "heading" (headings are not counted)


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    line: int


class SourceText:
    """A rulebook text with a normalized shadow that maps back to original offsets."""

    def __init__(self, text: str, display: str) -> None:
        self.text = text
        self.display = display
        chars: list[str] = []
        offsets: list[int] = []
        last_space = True
        for i, ch in enumerate(text.translate(_TRANSLATE)):
            if ch.isspace():
                if last_space:
                    continue
                chars.append(" ")
                last_space = True
            else:
                chars.append(ch)
                last_space = False
            offsets.append(i)
        self._norm = "".join(chars)
        self._offsets = offsets
        self.sentences = _split_sentences(text)

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def find(self, quote: str) -> list[Match]:
        """Every occurrence of `quote` (normalized) in the text, as original spans."""
        needle = normalize(quote)
        if not needle:
            return []
        found: list[Match] = []
        pos = self._norm.find(needle)
        while pos != -1:
            start = self._offsets[pos]
            end = self._offsets[pos + len(needle) - 1] + 1
            found.append(Match(start, end, self.line_of(start)))
            pos = self._norm.find(needle, pos + 1)
        return found

    def closest(self, quote: str) -> str:
        """The passage of the text most like `quote`, for a did-you-mean."""
        needle = normalize(quote)
        best, best_ratio = "", 0.0
        for s in self.sentences:
            cand = normalize(s.text)
            matcher = difflib.SequenceMatcher(None, needle, cand, autojunk=False)
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = s.text, ratio
        return re.sub(r"^[•*\-]\s+", "", best)  # a bullet mark is layout, not the rule

    def sentences_in(self, start: int, end: int) -> list[Sentence]:
        return [s for s in self.sentences if s.start < end and start < s.end]


def _split_sentences(text: str) -> list[Sentence]:
    out: list[Sentence] = []
    offset = 0
    for lineno, line in enumerate(text.split("\n"), start=1):
        body = line.strip()
        if body and not _is_noise(body):
            base = offset + line.index(body)
            pieces = [body] if _is_row(body) else _split_line(body)
            cursor = 0
            for piece in pieces:
                piece = piece.strip()
                if not piece:
                    continue
                at = body.index(piece, cursor)
                cursor = at + len(piece)
                out.append(Sentence(len(out), base + at, base + cursor, lineno, piece,
                                    _kind(piece, len(pieces))))
        offset += len(line) + 1
    return out


def _split_line(body: str) -> list[str]:
    enumerator = re.match(r"\d+\.\s+", body)
    head = enumerator.group(0) if enumerator else ""
    pieces = _SENTENCE_END.split(body[len(head):])
    pieces[0] = head + pieces[0]
    return pieces


def _kind(piece: str, pieces: int) -> str:
    if _is_row(piece):
        return "row"
    if piece[:1] in "•-*" or re.match(r"\d+\.\s", piece):
        return "bullet"
    if pieces == 1 and piece[-1:] not in ".!?:" and len(piece.split()) <= 6:
        return "heading"
    return "sentence"


def _is_row(body: str) -> bool:
    return "\t" in body or body.startswith("|")


def _is_noise(body: str) -> bool:
    """Lines that carry no rule: table rules (`|---|`), section breaks (`---`)."""
    return set(body) <= set("|-: ")
