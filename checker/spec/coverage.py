"""Coverage of the rulebook text: which sentences a spec formalizes, lists as informal,
or leaves uncovered. Headings are not counted."""

from __future__ import annotations

from checker.ir import Ruleset
from checker.results.coverage import Coverage, SentenceCoverage


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
