"""Hover: a scored token's entropy and alternatives; on a def line, the function's assessment."""

from __future__ import annotations

import re

from lsprotocol import types

from ...pysource import SourceError, functions_in
from ..presentation import assessment_hover, token_hover
from ..server import QualmServer


_DEF_LINE = re.compile(r"^\s*(?:async\s+)?def\s")


def register(server: QualmServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: QualmServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        state = ls.docs.get(uri)
        if state is None or uri not in ls.workspace.text_documents:
            return None
        doc = ls.workspace.get_text_document(uri)
        offset = doc.offset_at_position(params.position)
        for m in state.marks:
            if m.start <= offset < m.end:
                return types.Hover(
                    contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=token_hover(m.data)),
                    range=ls.to_range(doc, m.start, m.end),
                )
        line = doc.lines[params.position.line] if params.position.line < len(doc.lines) else ""
        if state.assessments and _DEF_LINE.match(line):  # parse only when hovering a def line
            try:
                functions = functions_in(doc.source)
            except SourceError:
                return None
            for fn in functions:
                stored = state.assessments.get(fn.name)
                if stored is not None and fn.line - 1 == params.position.line:
                    stale = stored.source != fn.source
                    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=assessment_hover(stored.assessment, stale)))
        return None
