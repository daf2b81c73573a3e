"""Lowering citations: the cited spec elements, their quotes, and finding each in the source."""

from __future__ import annotations

from checker.ir import Citation, Element, PathKey
from checker.spec.lower_ctx import Ctx
from checker.spec.schema import Cite, CiteRef, SpecDoc
from checker.text import Match, SourceText

# ============================================================================ citations

def _cites(cite: Cite | None) -> list[CiteRef]:
    if cite is None:
        return []
    items = cite if isinstance(cite, list) else [cite]
    return [CiteRef(quote=c) if isinstance(c, str) else c for c in items]


CitedItem = tuple[str, str, PathKey, Cite | None, str]   # id, section, path, cite, reason


def cited_items(d: SpecDoc) -> list[CitedItem]:
    """Every spec element that can carry a `cite`, with its id and path in the spec."""
    cited: list[CitedItem] = []
    for section in ("meta", "events", "rules", "ordering", "prevents", "constraints", "may",
                    "facts", "modifiers", "procedures", "properties", "rulings"):
        for i, item in enumerate(getattr(d, section)):
            cited.append((item.id, section, (section, i), item.cite, ""))
            adopt = getattr(item, "adopt", None)
            if adopt is not None and adopt.cite is not None:   # the quote that resolves it
                cited.append((f"{item.id}.adopt", section, (section, i, "adopt"), adopt.cite,
                              ""))
            if section == "procedures":
                for j, st in enumerate(item.steps):
                    cited.append((f"{item.id}.{st.id}", section, (section, i, "steps", j),
                                  st.cite, ""))
    for section in ("states", "vars", "stats"):
        for key, item in getattr(d, section).items():
            cited.append((f"{section}:{key}", section, (section, key), item.cite, ""))
    for key, sd in d.states.items():
        if sd.markers is not None and sd.markers.cite is not None:
            cited.append((f"states:{key}.markers", "states", ("states", key, "markers"),
                          sd.markers.cite, ""))
    for key, dom in d.inputs.items():
        if not isinstance(dom, list | str):
            cited.append((f"inputs:{key}", "inputs", ("inputs", key), dom.cite, ""))
    for i, inf in enumerate(d.informal):
        cited.append((f"informal:{i}", "informal", ("informal", i), inf.cite, inf.reason))
    for idx, u in enumerate(d.undefined):
        cited.append((f"undefined:{u.name}", "undefined", ("undefined", idx), u.cite, ""))
    return cited


def cite_refs(cite: Cite | None, path: PathKey) -> list[tuple[CiteRef, PathKey]]:
    """The quotes of one `cite` field, each with its own path (for locations)."""
    return [(ref, (*path, "cite") if not isinstance(cite, list) else (*path, "cite", k))
            for k, ref in enumerate(_cites(cite))]


def cite_all(ctx: Ctx, source: SourceText, elements: dict[str, Element]) -> list[Citation]:
    cited = cited_items(ctx.doc)
    out: list[Citation] = []
    for ident, section, path, cite, reason in cited:
        quotes = []
        for ref, cpath in cite_refs(cite, path):
            match = _find_quote(ctx, source, ref, cpath)
            if match is not None:
                out.append(Citation(ident, ref.quote, match.start, match.end, match.line))
                quotes.append(ref.quote)
        elements[ident] = Element(ident, section, path, ctx.tree.source_map.at(path),
                                  tuple(quotes), reason, title=_title(ctx.doc, path))
    return out


def _title(doc: SpecDoc, path: PathKey) -> str:
    """The `title:` of the element at `path` ("" when it has none)."""
    item: object = doc
    for part in path:
        if isinstance(part, int):
            item = item[part] if isinstance(item, list) else None
        elif isinstance(item, dict):
            item = item.get(part)
        else:
            item = getattr(item, part, None)
    title = getattr(item, "title", None)
    return title if isinstance(title, str) else ""


def _find_quote(ctx: Ctx, source: SourceText, ref: CiteRef, path: PathKey) -> Match | None:
    matches = source.find(ref.quote)
    shown = ref.quote if len(ref.quote) <= 70 else ref.quote[:67] + "..."
    if not matches:
        closest = source.closest(ref.quote)
        ctx.err("RP207", f"quote {shown!r} is not in {source.display}", path,
                f"closest passage: {closest!r}" if closest else None)
        return None
    if ref.occurrence is not None:
        if ref.occurrence > len(matches):
            ctx.err("RP211", f"occurrence {ref.occurrence} asked for, but the quote occurs "
                    f"{len(matches)} time(s)", path)
            return None
        return matches[ref.occurrence - 1]
    if len(matches) > 1:
        lines = ", ".join(str(m.line) for m in matches)
        ctx.err("RP208", f"quote {shown!r} occurs {len(matches)} times in {source.display} "
                f"(lines {lines})", path, "write it as {quote: ..., occurrence: N}")
        return None
    return matches[0]
