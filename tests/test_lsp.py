"""`ruleproof lsp` over the protocol (issue #18): a spec with one error gets exactly that
diagnostic on open; after the fix and a save, none; hover shows an element's cited
sentence; go-to-definition finds a State's declaration. A real client talks to the server
process over stdin/stdout; every wait is bounded."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "docs" / "example-mini.yaml"


async def _session(folder: Path) -> dict[str, object]:
    spec = folder / "docs" / "example-mini.yaml"
    good = spec.read_text(encoding="utf-8")
    bad = good.replace("do: [enter Crouched]", "do: [enter Crouch]", 1)
    assert bad != good
    spec.write_text(bad, encoding="utf-8")
    uri = from_fs_path(str(spec))
    assert uri is not None
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
    client = LanguageClient("ruleproof-test", "1")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "checker", "lsp", cwd=str(folder))
    out: dict[str, object] = {}
    try:
        await asyncio.wait_for(client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(folder)))), 60)
        client.initialized(types.InitializedParams())
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1,
                                                 text=bad)))
        out["open"] = await asyncio.wait_for(published.get(), 60)
        spec.write_text(good, encoding="utf-8")
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri), text=good))
        out["save"] = await asyncio.wait_for(published.get(), 60)
        lines = good.splitlines()
        rule = next(i for i, t in enumerate(lines) if "id: crouched-cancels-flying" in t)
        out["hover"] = await asyncio.wait_for(client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                              position=types.Position(line=rule, character=12))), 60)
        use = next(i for i, t in enumerate(lines) if "when: Crouched" in t)
        out["definition"] = await asyncio.wait_for(client.text_document_definition_async(
            types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri),
                                   position=types.Position(line=use,
                                                           character=lines[use].index(
                                                               "Crouched") + 2))), 60)
        out["lines"] = lines
        await asyncio.wait_for(client.shutdown_async(None), 60)
        client.exit(None)
    finally:
        await client.stop()
    return out


def test_the_language_server_over_the_protocol(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    shutil.copy(MINI, tmp_path / "docs" / "example-mini.yaml")
    (tmp_path / "seeds").symlink_to(ROOT / "seeds", target_is_directory=True)
    out = asyncio.run(_session(tmp_path))
    opened = out["open"]
    assert isinstance(opened, types.PublishDiagnosticsParams)
    assert [(d.code, d.message, d.severity) for d in opened.diagnostics] == [
        ("RP203", "in effect 'enter Crouch': unknown State 'Crouch' — did you mean "
         "'Crouched'?", types.DiagnosticSeverity.Error)]
    lines = out["lines"]
    assert isinstance(lines, list)
    assert "do: [enter Crouched]" in lines[opened.diagnostics[0].range.start.line]
    saved = out["save"]
    assert isinstance(saved, types.PublishDiagnosticsParams) and not saved.diagnostics
    hover = out["hover"]
    assert isinstance(hover, types.Hover) and isinstance(hover.contents, types.MarkupContent)
    assert "**crouched-cancels-flying** (rules)" in hover.contents.value
    assert "> Flying State is automatically canceled if the model becomes Crouched." in \
        hover.contents.value
    found = out["definition"]
    assert isinstance(found, types.Location)
    assert lines[found.range.start.line].strip().startswith("Crouched:")


def test_hover_and_definition_of_a_named_condition() -> None:
    # Bushido's "Enemy": hovering `enemy`, `other.enemy` or `a.enemy` shows what it stands
    # for, and its definition is its key under `conditions:`
    from checker.cli.lsp import condition_at, hover_text
    from checker.spec.load import load_ruleset

    spec = ROOT / "spec" / "bushido.yaml"
    ruleset = load_ruleset(spec)
    lines = spec.read_text(encoding="utf-8").splitlines()
    for word in ("enemy", "other.enemy", "a.enemy"):
        found = condition_at(ruleset, word)
        assert found is not None
        name, text, line, col = found
        assert name == "enemy"
        assert text == "(allied and side != other.side) or (not allied and side == other.side)"
        assert lines[line - 1][col - 1:].startswith("enemy:")
        shown = hover_text(ruleset, word, None, None)
        assert shown is not None and shown.startswith("**enemy** (named condition)")
        assert f"`{text}`" in shown
    assert condition_at(ruleset, "Prone") is None
    prone = ruleset.elements["states:Prone"]
    shown = hover_text(ruleset, "Prone", prone, None)       # a State: its cited sentences
    assert shown is not None and shown.startswith("**states:Prone**")
