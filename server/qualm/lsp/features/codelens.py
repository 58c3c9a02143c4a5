"""Code lens above every function: "qualm: assess", then the assessment in one line, and
"qualm: re-assess" once the function has changed. Titles are filled in lazily (codeLens/resolve)."""

from __future__ import annotations

from lsprotocol import types

from ...lang import SourceError
from ..presentation import lens_title, lens_tooltip
from ..protocol import ASSESS_COMMAND
from ..server import QualmServer, UnknownDocument


def register(server: QualmServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    def on_code_lens(ls: QualmServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        try:
            _, document = ls.document(uri)
            functions = ls.docs[uri].functions(document)
        except (UnknownDocument, SourceError):
            return []  # while the file does not parse there is nothing to assess
        return [
            types.CodeLens(
                range=types.Range(start=types.Position(fn.line - 1, 0), end=types.Position(fn.line - 1, 0)),
                data={"uri": uri, "function": fn.name, "source": fn.source},
            )
            for fn in functions
        ]

    @server.feature(types.CODE_LENS_RESOLVE)
    def on_resolve(ls: QualmServer, lens: types.CodeLens) -> types.CodeLens:
        data = lens.data if isinstance(lens.data, dict) else {}
        uri, name = data.get("uri"), data.get("function")
        state = ls.docs.get(uri) if isinstance(uri, str) else None
        stored = state.assessments.get(name) if state is not None and isinstance(name, str) else None
        stale = stored is not None and stored.source != data.get("source")
        assessment = stored.assessment if stored else None
        lens.command = types.Command(title=lens_title(assessment, stale, ls.settings_for(uri if isinstance(uri, str) else None).editor.headline), command=ASSESS_COMMAND, arguments=[uri, name], tooltip=lens_tooltip(assessment))
        return lens
