"""Where an errata changed the spec file: the changed lines of NEW, and which of them fall in
the spec element a difference concerns (for the diff's SARIF results, which a code review
shows on the lines the errata author edited)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from checker.ir import Ruleset


@dataclass(frozen=True)
class Hunk:
    """Lines `first`..`last` (1-based, inclusive) of NEW changed or inserted, in place of
    `removed` lines of OLD; a `deletion` is the one line of NEW after which OLD's lines were
    removed."""

    first: int
    last: int
    removed: int = 0
    deletion: bool = False


def changed_lines(old_text: str, new_text: str) -> tuple[Hunk, ...]:
    """The hunks of NEW that differ from OLD, in file order (a line diff, `difflib`)."""
    a, b = old_text.splitlines(), new_text.splitlines()
    out: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if j2 > j1:
            out.append(Hunk(j1 + 1, j2, i2 - i1 if tag == "replace" else 0))
        else:                       # lines of OLD deleted: point at the line of NEW before
            line = max(1, min(j1, len(b)))
            out.append(Hunk(line, line, i2 - i1, deletion=True))
    return tuple(out)


def element_span(ruleset: Ruleset, element: str) -> tuple[int, int] | None:
    """The lines of the spec file `element` occupies: from its location to the line before
    the next element's (None when the ruleset has no such element)."""
    el = ruleset.elements.get(element)
    if el is None:
        return None
    starts = sorted({e.location.line for e in ruleset.elements.values()
                     if e.location.file == el.location.file})
    after = [line for line in starts if line > el.location.line]
    end = after[0] - 1 if after else len(ruleset.spec_text.splitlines())
    return el.location.line, max(end, el.location.line)


def hunks_in(ruleset: Ruleset, hunks: tuple[Hunk, ...], elements: tuple[str, ...]
             ) -> tuple[Hunk, ...]:
    """The hunks inside the spans of `elements` (in NEW), or every hunk when none is: a
    difference is always located at the lines the errata changed."""
    spans = [s for s in (element_span(ruleset, e) for e in elements) if s is not None]
    inside = tuple(h for h in hunks if any(lo <= h.last and h.first <= hi for lo, hi in spans))
    return inside or hunks
