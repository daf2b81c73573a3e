"""`ruleproof lsp`: a language server for spec files (pygls, over stdin/stdout). On open and
on save it publishes the loader's and validator's diagnostics (the same coded, located
messages as `ruleproof validate`); hovering an element shows the rulebook sentences it
cites; go-to-definition jumps from a State, rule, event or property name to where it is
declared."""

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
    element = ls.declaration(uri, ls.word_at(uri, params.position)) or \
        ls.element_at(uri, params.position.line + 1)
    if element is None:
        return None
    cited = "\n".join(f"> {q}" for q in element.quotes) or "(cites no sentence)"
    reason = f"\n\ninformal: {element.reason}" if element.reason else ""
    return types.Hover(contents=types.MarkupContent(
        kind=types.MarkupKind.Markdown,
        value=f"**{element.id}** ({element.section})\n\n{cited}{reason}"))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def _definition(ls: SpecServer, params: types.DefinitionParams) -> types.Location | None:
    uri = params.text_document.uri
    element = ls.declaration(uri, ls.word_at(uri, params.position))
    if element is None:
        return None
    at = types.Position(line=element.location.line - 1, character=element.location.col - 1)
    return types.Location(uri=uri, range=types.Range(start=at, end=at))


def serve(_args: Any = None) -> int:
    server.start_io()
    return 0
