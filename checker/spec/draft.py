"""`draft(text, ...)`: the first spec of a rules text, for `ruleproof init`.

The draft validates at once and accounts for every sentence: each one is listed under
`informal:`, grouped by the heading it stands under, with its exact quote (and
`occurrence:` where the same words occur more than once in the text). States are proposed
from the headings (`propose_states`), each citing a sentence about it. The rules writer
then replaces informal entries with rules one by one; nothing in the draft claims more than
the text says.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from checker.text import Sentence, SourceText, normalize

REASON = "not formalized yet (drafted by ruleproof init)"


@dataclass(frozen=True)
class ProposedState:
    name: str          # the plain name used in the spec (letters, digits, _)
    heading: str       # the heading as the text writes it
    cite: Sentence     # the sentence that uses it as a State


def ruleset_id(path: Path) -> str:
    """A ruleset id from a file name: `Noctvale Conditions.txt` → `noctvale-conditions`."""
    ident = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
    if not ident or not ident[0].isalpha():
        ident = "rules-" + ident if ident else "rules"
    return ident


def state_name(heading: str) -> str:
    """The spec name of a State heading: `Out of Action` → `OutOfAction`."""
    words = re.findall(r"[A-Za-z0-9]+", heading)
    name = "".join(w[:1].upper() + w[1:] for w in words)
    return name if name[:1].isalpha() else "S" + name


def _state_phrases(heading: str) -> re.Pattern[str]:
    h = re.escape(heading)
    return re.compile(
        rf"\b(becomes?|become|enters?( the)?|gains?( the)?|is|are|While|while)\s+{h}\b"
        rf"|\bthe {h} State\b|\b{h} State\b|\bremoves? {h}\b|\b{h} lasts\b"
        rf"|\b(A|An|a|an) {h} (fighter|model)\b", re.IGNORECASE if heading.isupper() else 0)


_GENERIC = re.compile(r"\b(States?|Conditions?|Table|Rules|Interactions|Actions|Priorities|"
                      r"Summary|Multiple)\b")
_OPENS = re.compile(r"(States|Per State|Conditions)$")


def propose_states(source: SourceText) -> list[ProposedState]:
    """The headings the text uses as State names, in text order: a heading under a heading
    that names States ("Model States", "Detailed Rules Per State", "Permanent
    Conditions"), or one that a sentence uses as a State ("becomes X", "the X State",
    "While X", "remove X", "X lasts", "a X model"). A heading that occurs several times
    ("Link to original") is a collection artifact, not a State. Each State cites the first
    sentence after its heading, or the sentence that uses it as a State."""
    sentences = source.sentences
    heads = [s for s in sentences if s.kind == "heading"]
    repeated = {normalize(h.text) for h in heads
                if sum(normalize(o.text) == normalize(h.text) for o in heads) > 1}
    body = [s for s in sentences if s.kind != "heading"]
    found: list[ProposedState] = []
    seen: set[str] = set()
    in_states = False
    for i, h in enumerate(sentences):
        if h.kind != "heading" or h.text.rstrip().endswith(":"):
            continue              # a label that leads into a list ("Recovery:") names no State
        heading = normalize(h.text).strip("=# ")
        if _GENERIC.search(heading):
            in_states = bool(_OPENS.search(heading))
            continue
        name = state_name(heading)
        if not heading or heading in repeated or name in seen or "," in heading:
            continue
        use = next((s for s in body if _state_phrases(heading).search(s.text)), None)
        first = next((s for s in sentences[i + 1:] if s.kind != "heading"), None)
        if in_states and first is not None:
            use = first
        if use is not None:
            seen.add(name)
            found.append(ProposedState(name, heading, use))
    return found


def _quote(source: SourceText, s: Sentence) -> str:
    """The YAML `cite` of sentence `s`: its text without a bullet mark (layout, not rule),
    with `occurrence` when the same words occur more than once in the text."""
    mark = re.match(r"^[•*\-]\s+", s.text)
    body = s.text[mark.end():] if mark else s.text
    start = s.start + (mark.end() if mark else 0)
    text = json.dumps(body, ensure_ascii=False)
    matches = source.find(body)
    if len(matches) <= 1:
        return text
    nth = next(i for i, m in enumerate(matches, start=1) if m.start == start)
    return f"{{quote: {text}, occurrence: {nth}}}"


def draft(source: SourceText, ident: str, source_ref: str, title: str = "") -> str:
    """The text of a draft spec for `source`, whose `source:` field is `source_ref` (the
    text's path relative to the spec file)."""
    headings = [s for s in source.sentences if s.kind == "heading"]
    title = title or (headings[0].text.strip() if headings else ident)
    out = [
        f"# Drafted by `ruleproof init` from {source_ref}: every sentence is listed under",
        "# informal; replace each entry with the rule, State or property it states.",
        f"ruleset: {ident}",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        f"source: {json.dumps(source_ref, ensure_ascii=False)}",
    ]
    states = propose_states(source)
    if states:
        out.append("")
        out.append("states:")
        for st in states:
            out.append(f"  {st.name}:   # heading {json.dumps(st.heading, ensure_ascii=False)}")
            out.append(f"    cite: {_quote(source, st.cite)}")
    out.append("")
    out.append("informal:")
    section = ""
    for s in source.sentences:
        if s.kind == "heading":
            section = normalize(s.text)
            continue
        if section:
            out.append(f"  # --- {section} (line {s.line})")
            section = ""
        out.append(f"  - cite: {_quote(source, s)}")
        out.append(f"    reason: {REASON}")
    if not any(s.kind != "heading" for s in source.sentences):
        out[-1] = "informal: []"
    return "\n".join(out) + "\n"
