"""Open documents in the languages qualm handles, and their marks kept true through edits: each
content change moves or drops the marks it touches. Documents in other languages are not tracked."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import PositionCodec

from ...lang import UnsupportedLanguage, language_for
from ..marks import Edit, apply_edit
from ..server import DocumentState, QualmServer
from .diagnostics import publish, publish_after_pause


def _offset(lines: list[str], codec: PositionCodec, pos: types.Position) -> int:
    """A client position as an offset into the text made of ``lines`` (kept line ends)."""
    if pos.line >= len(lines):
        # The line after a final line break (or past the end): the end of the text. The codec would
        # clamp it onto the last line and lose that line's break.
        return sum(len(x) for x in lines)
    server_pos = codec.position_from_client_units(lines, pos)
    line = lines[server_pos.line]
    return sum(len(x) for x in lines[: server_pos.line]) + min(server_pos.character, len(line.rstrip("\r\n")))


def register(server: QualmServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: QualmServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        try:
            language = language_for(item.language_id or None, item.uri)
        except UnsupportedLanguage:
            return  # a client that sends every document: not ours
        ls.docs[item.uri] = DocumentState(language, item.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls: QualmServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        state = ls.docs.get(uri)
        if state is None:
            return
        had_marks = bool(state.marks)
        codec = ls.workspace.position_codec
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                lines = state.text.splitlines(keepends=True)
                start = _offset(lines, codec, change.range.start)
                end = max(start, _offset(lines, codec, change.range.end))
                state.marks = apply_edit(state.marks, Edit(start, end, change.text))
                state.text = state.text[:start] + change.text + state.text[end:]
                first = change.range.start.line
                state.note_edit(first, first + change.text.count("\n"))
            else:  # the whole text replaced: nothing can be said about the old marks
                state.marks = []
                state.text = change.text
        took = state.take_pending()  # a rewrite from a marked token that the user took
        if took:  # the user took a rewrite: its marks are new, show them now
            publish(ls, uri)
        elif had_marks or state.assessments:  # marks moved; an assessment's suspect line goes when its function changes
            publish_after_pause(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(ls: QualmServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.docs.pop(params.text_document.uri, None)
        if state is not None and state.publish_timer is not None:
            state.publish_timer.cancel()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))
