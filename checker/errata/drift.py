"""Citation drift: check a spec's quotes against a new version of its source text.

`drift(spec_path, new_text_path)` lists every quote that no longer matches, with the closest
passage of the new text as the suggested replacement, every quote that became ambiguous, and
the sentences of the new text that no spec element accounts for any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from checker.diagnostics import Diagnostic
from checker.spec.cite import cite_refs, cited_items
from checker.spec.lower import MAX_SOURCE_BYTES
from checker.spec.parse import parse_spec
from checker.spec.source import load_spec, read_text_file
from checker.text import Sentence, SourceText


@dataclass(frozen=True)
class Drift:
    diagnostics: tuple[Diagnostic, ...]       # RP601 per broken quote (with the fix)
    uncovered: tuple[Sentence, ...]           # RP602: new-text sentences nothing cites
    quotes: int                               # quotes checked

    @property
    def clean(self) -> bool:
        return not self.diagnostics and not self.uncovered


def drift(spec_path: Path, new_text: Path, *, spec_display: str | None = None,
          text_display: str | None = None) -> Drift:
    tree = load_spec(spec_path, spec_display)
    doc = parse_spec(tree)
    shown = text_display or str(new_text)
    source = SourceText(read_text_file(new_text, shown, code_missing="RP106",
                                       max_bytes=MAX_SOURCE_BYTES), shown)
    diags: list[Diagnostic] = []
    spans: list[tuple[int, int]] = []
    count = 0
    for ident, _section, path, cite, _reason in cited_items(doc):
        for ref, cpath in cite_refs(cite, path):
            count += 1
            matches = source.find(ref.quote)
            where = tree.source_map.at(cpath)
            if not matches:
                closest = source.closest(ref.quote)
                diags.append(Diagnostic(
                    "RP601", f"{ident}: quote {_short(ref.quote)!r} is no longer in {shown}",
                    where, f"replace it with {closest!r}" if closest else
                    "the passage was removed; delete or re-cite this element"))
                continue
            if ref.occurrence is None and len(matches) > 1:
                lines = ", ".join(str(m.line) for m in matches)
                diags.append(Diagnostic(
                    "RP601", f"{ident}: quote {_short(ref.quote)!r} now occurs {len(matches)} "
                    f"times in {shown} (lines {lines})", where,
                    "write it as {quote: ..., occurrence: N}"))
            pick = matches[(ref.occurrence or 1) - 1] if (ref.occurrence or 1) <= len(
                matches) else matches[0]
            spans.append((pick.start, pick.end))
    uncovered = tuple(s for s in source.sentences if s.kind != "heading" and not any(
        a < s.end and s.start < b for a, b in spans))
    return Drift(tuple(diags), uncovered, count)


def _short(quote: str) -> str:
    return quote if len(quote) <= 70 else quote[:67] + "..."
