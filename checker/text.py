"""The rulebook text: sentences with their spans, and finding a cited quote in it.

A quote matches when it equals a passage of the text after normalizing only whitespace,
typographic quotes/apostrophes and dashes (so an editor's "smart quotes" do not break a
citation); nothing else is forgiven. `Sentence`s are the units coverage is measured in: a
non-empty line of the text is split at sentence ends (`. `, `! `, `? `, `: ` before a
capital is not a split; a name ending in `!`/`?` such as "the Charge! State" is not an
end), bullets and table rows (`|`, tab or space-aligned columns) are one sentence each, and
headings (short lines without an end, `=== X ===`, `# X`, all-capital lines, numbered
sections, lone `Label:` lead-ins) are structure, not counted.
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
    names = _bang_names(text)
    for lineno, line in enumerate(text.split("\n"), start=1):
        body = line.strip()
        if body and not _is_noise(body):
            base = offset + line.index(body)
            lone = _line_heading(body, names)
            pieces = [body] if lone or _is_row(body) else _split_line(body, names)
            cursor = 0
            for piece in pieces:
                piece = piece.strip()
                if not piece:
                    continue
                at = body.index(piece, cursor)
                cursor = at + len(piece)
                kind = "heading" if lone else _kind(piece, len(pieces))
                out.append(Sentence(len(out), base + at, base + cursor, lineno, piece, kind))
        offset += len(line) + 1
    return out


# a bullet mark (`-`, `*`, `•`, `–`) or an enumerator (`1.`, `1)`, `(1)`, `a)`, `(a)`)
_BULLET = re.compile(r"(?:[•*\-\u2013\u2022\u25e6]|\d{1,3}[.)]|\(\d{1,3}\)|\(?[a-z]\))\s+")
# a word that ends in ! or ?, with the capitalized words before it ("Charge!", "Wait For It?")
_BANG = re.compile(r"(?<![\w'])((?:[A-Z][\w'-]*\s+){0,3}[A-Z][\w'-]*[!?])")
_KIND_WORDS = ("state", "states", "marker", "markers", "token", "tokens", "card", "cards",
               "action", "actions", "test", "tests", "check", "checks", "trait", "ability",
               "keyword", "rule", "effect", "order", "roll", "phase", "step")
_LABEL_ARTICLES = {"a", "an", "the", "this", "that", "its", "their", "his", "her", "each",
                   "any", "all", "every", "if", "when", "whenever", "must", "may"}


def _bang_names(text: str) -> frozenset[str]:
    """Names that end in `!` or `?` ("Charge!"): such a word is not a sentence end when the
    text shows it is a name somewhere — quoted, followed by a lower-case word or by a word
    like State/marker/card, or after "the", "a", "an", "of"."""
    names: set[str] = set()
    for m in _BANG.finditer(text):
        word = m.group(1).split()[-1]
        before = text[max(0, m.start() - 6):m.start()].lower()
        after = text[m.end():m.end() + 30]
        nxt = re.match(r"[\"'\u201d\u2019]?\s*([\w'-]+)", after)
        quoted = (text[m.start() - 1:m.start()] in "\"'\u201c\u2018" and m.start() > 0
                  and after[:1] in "\"'\u201d\u2019")
        if (quoted or (nxt is not None and (nxt.group(1)[:1].islower()
                                            or nxt.group(1).lower() in _KIND_WORDS))
                or re.search(r"\b(?:the|a|an|of)\s+$", before)):
            names.add(word)
    return frozenset(names)


def _split_line(body: str, names: frozenset[str] = frozenset()) -> list[str]:
    enumerator = _BULLET.match(body)
    head = enumerator.group(0) if enumerator else ""
    rest = body[len(head):]
    pieces: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(rest):
        last = rest[:m.start()].split()[-1] if rest[:m.start()].split() else ""
        if last[-1:] in "!?" and last.strip("\"'()\u201c\u201d") in names:
            continue                                   # "the Charge! State": a name
        pieces.append(rest[start:m.start()])
        start = m.end()
    pieces.append(rest[start:])
    pieces[0] = head + pieces[0]
    return pieces


def _kind(piece: str, pieces: int) -> str:
    if _is_row(piece):
        return "row"
    if _BULLET.match(piece):
        return "bullet"
    if pieces == 1 and piece[-1:] not in ".!?:" and len(piece.split()) <= 6:
        return "heading"
    return "sentence"


def _line_heading(body: str, names: frozenset[str]) -> bool:
    """A line that is structure, not a rule: `=== X ===`, `# X`, an all-capital line, a
    numbered section (`3.2 Movement`), a lone label that leads into a list (`Recovery:`,
    `Triggered by:`; a lead-in with an article, `While Flying, the model:`, stays a
    sentence), or a lone name that ends in `!`/`?` ("Charge!")."""
    if re.fullmatch(r"(=+|#+)\s*\S.*?\s*=*", body) and body[0] in "=#":
        return True
    letters = [c for c in body if c.isalpha()]
    if len(letters) >= 2 and not any(c.islower() for c in letters) and not _is_row(body):
        return True
    if re.match(r"\d+(?:\.\d+)+\.?\s+[A-Z]", body) and body[-1:] not in ".!?:;," \
            and len(body.split()) <= 9:
        return True
    if body.endswith(":") and not _BULLET.match(body) and "," not in body:
        words = re.findall(r"[A-Za-z][\w'\u2019/-]*", body)
        if 1 <= len(words) <= 6 and not {w.lower() for w in words} & _LABEL_ARTICLES:
            return True
    if body[-1:] in "!?" and len(body.split()) <= 4 and not _is_row(body):
        words = body.split()
        return body in names or all(w[:1].isupper() for w in words)
    return False


def _is_row(body: str) -> bool:
    """A table row: `| a | b |`, tab-separated cells, or columns aligned with spaces (two
    gaps of 2+ spaces, or one of 3+, that do not follow a sentence end)."""
    if "\t" in body or body.startswith("|"):
        return True
    gaps = [m for m in re.finditer(r"(?<=[^\s.!?:;,]) {2,}(?=\S)", body)]
    return len(gaps) >= 2 or any(len(m.group(0)) >= 3 for m in gaps)


def _is_noise(body: str) -> bool:
    """Lines that carry no rule: table rules (`|---|`), section breaks (`---`, `***`, `===`)."""
    return set(body) <= set("|-: =*_~#")
