"""Hover: a marked token's entropy and alternatives; on a function's first line, its assessment."""

from __future__ import annotations

from lsprotocol import types

from ...lang import SourceError
from ..presentation import assessment_hover, span_hover, token_hover
from ..server import QualmServer, UnknownDocument
from .diagnostics import span_of


def register(server: QualmServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: QualmServer, params: types.HoverParams) -> types.Hover | None:
        try:
            doc, document = ls.document(params.text_document.uri)
        except UnknownDocument:
            return None
        state = ls.docs[params.text_document.uri]
        settings = ls.settings_for(params.text_document.uri)
        offset = doc.offset_at_position(params.position)
        for i, m in enumerate(state.marks):
            if m.start <= offset < m.end:
                top = settings.generation.top_alternatives
                span = span_of(state.marks, i, settings.editor.highlight_level, state.text)
                value = span_hover([x.data for x in span], m.data, top) if len(span) > 1 else token_hover(m.data, top)
                return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value), range=ls.to_range(doc, span[0].start, span[-1].end))
        if not state.assessments:
            return None  # parse only when there is an assessment to show
        try:
            functions = state.functions(document)
        except SourceError:
            return None
        for fn in functions:
            stored = state.assessments.get(fn.name)
            if stored is not None and fn.line - 1 == params.position.line:
                stale = stored.source != fn.source
                return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=assessment_hover(stored.assessment, stale, settings.editor.headline)))
        return None
