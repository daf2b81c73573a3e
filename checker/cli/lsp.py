"""`ruleproof lsp`: a language server for spec files (pygls, over stdin/stdout). On open and
on save it publishes the loader's and validator's diagnostics (the same coded, located
messages as `ruleproof validate`); hovering an element shows the rulebook sentences it
cites, and hovering a named condition what it stands for; go-to-definition jumps from a
State, rule, event, property or named condition to where it is declared."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from checker import __version__
from checker.diagnostics import CODES, Diagnostic, Severity
from checker.errors import SpecError
from checker.ir import Element, Ruleset

_WORD = re.compile(r"[A-Za-z0-9_:.-]+")


def _path(uri: str) -> Path:
    from pygls.uris import to_fs_path
    fs = to_fs_path(uri)
    return Path(fs if fs is not None else uri)


def _lsp_diagnostic(d: Diagnostic) -> types.Diagnostic:
    line = max(0, (d.location.line if d.location else 1) - 1)
    col = max(0, (d.location.col if d.location else 1) - 1)
    message = d.message + (f" — {d.fix}" if d.fix else "")
    warning = CODES[d.code].severity is Severity.WARNING
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=line, character=col),
                          end=types.Position(line=line + 1, character=0)),
        message=message, code=d.code, source="ruleproof",
        severity=types.DiagnosticSeverity.Warning if warning else
        types.DiagnosticSeverity.Error)


class SpecServer(LanguageServer):
    """Keeps the last ruleset that loaded for each open spec (for hover and definitions)."""

    def __init__(self) -> None:
        super().__init__("ruleproof", __version__)
        self.loaded: dict[str, Ruleset] = {}

    def validate(self, uri: str) -> None:
        from checker.spec.load import load_ruleset

        path = _path(uri)
        found: list[types.Diagnostic] = []
        try:
            self.loaded[uri] = load_ruleset(path, str(path))
        except SpecError as exc:
            found = [_lsp_diagnostic(d) for d in exc.diagnostics
                     if d.location is None or Path(d.location.file) == path]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found))

    def word_at(self, uri: str, pos: types.Position) -> str:
        lines = self.workspace.get_text_document(uri).lines
        if pos.line >= len(lines):
            return ""
        line = lines[pos.line]
        for m in _WORD.finditer(line):
            if m.start() <= pos.character <= m.end():
                return m.group(0)
        return ""

    def element_at(self, uri: str, line: int) -> Element | None:
        """The element whose declaration is the nearest at or above 1-based `line`."""
        ruleset = self.loaded.get(uri)
        if ruleset is None:
            return None
        above = [e for e in ruleset.elements.values() if e.location.line <= line]
        return max(above, key=lambda e: (e.location.line, e.location.col), default=None)

    def declaration(self, uri: str, name: str) -> Element | None:
        ruleset = self.loaded.get(uri)
        if ruleset is None:
            return None
        els = ruleset.elements
        return els.get(name) or els.get(f"states:{name}") or els.get(name.split("@")[0])


def condition_at(ruleset: Ruleset, word: str) -> tuple[str, str, int, int] | None:
    """The named condition `word` uses (`enemy`, `other.enemy`, `a.enemy`): its name, its
    text and the 1-based line and column of its declaration."""
    name = word.rsplit(".", 1)[-1]
    conditions = ruleset.doc.conditions if ruleset.doc is not None else {}
    if name not in conditions or ruleset.tree is None:
        return None
    at = ruleset.tree.source_map.at(("conditions", name, "<key>"))
    return name, conditions[name], at.line, at.col


def hover_text(ruleset: Ruleset, word: str, named: Element | None,
               around: Element | None) -> str | None:
    """What hovering `word` shows: the element it names (`named`: its cited sentences), else
    the named condition it uses (what it stands for), else the element declared at or above
    the cursor (`around`)."""
    condition = condition_at(ruleset, word) if named is None else None
    if condition is not None:
        name, text, _, _ = condition
        return (f"**{name}** (named condition)\n\n`{text}`\n\n(read as the model the "
                "element belongs to; `other.` / `a.` read it as that model)")
    shown = named or around
    if shown is None:
        return None
    cited = "\n".join(f"> {q}" for q in shown.quotes) or "(cites no sentence)"
    reason = f"\n\ninformal: {shown.reason}" if shown.reason else ""
    return f"**{shown.id}** ({shown.section})\n\n{cited}{reason}"


server = SpecServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def _opened(ls: SpecServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.validate(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def _saved(ls: SpecServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.validate(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def _hover(ls: SpecServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    ruleset = ls.loaded.get(uri)
    if ruleset is None:
        return None
    word = ls.word_at(uri, params.position)
    text = hover_text(ruleset, word, ls.declaration(uri, word),
                      ls.element_at(uri, params.position.line + 1))
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                    value=text))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def _definition(ls: SpecServer, params: types.DefinitionParams) -> types.Location | None:
    uri = params.text_document.uri
    word = ls.word_at(uri, params.position)
    element = ls.declaration(uri, word)
    ruleset = ls.loaded.get(uri)
    if element is not None:
        line, col = element.location.line, element.location.col
    elif ruleset is not None and (condition := condition_at(ruleset, word)) is not None:
        line, col = condition[2], condition[3]
    else:
        return None
    at = types.Position(line=line - 1, character=col - 1)
    return types.Location(uri=uri, range=types.Range(start=at, end=at))


def serve(_args: Any = None) -> int:
    server.start_io()
    return 0
