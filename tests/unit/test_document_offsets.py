"""Replaying the editor's incremental changes must rebuild exactly the text pygls keeps, or marks and
the 'stale' check of scoring drift (found in the VS Code end-to-end test: typing at the end of a
file that ends with a line break)."""

from lsprotocol import types as t
from pygls.workspace import Workspace

from qualm.lsp.features.documents import _offset

URI = "file:///x.py"


def _replay(text: str, changes: list[tuple[int, int, int, int, str]]) -> None:
    ws = Workspace(None)
    ws.put_text_document(t.TextDocumentItem(uri=URI, language_id="python", version=1, text=text))
    mine = text
    for version, (sl, sc, el, ec, new) in enumerate(changes, start=2):
        change = t.TextDocumentContentChangePartial(range=t.Range(start=t.Position(sl, sc), end=t.Position(el, ec)), text=new)
        lines = mine.splitlines(keepends=True)
        start = _offset(lines, ws.position_codec, change.range.start)
        end = max(start, _offset(lines, ws.position_codec, change.range.end))
        mine = mine[:start] + new + mine[end:]
        ws.update_text_document(t.VersionedTextDocumentIdentifier(uri=URI, version=version), change)
        assert mine == ws.get_text_document(URI).source, f"after change {version - 1}"


def test_typing_after_the_final_line_break():
    _replay("def f():\n    pass\n", [(2, 0, 2, 0, "\n\ndef g():\n    "), (5, 4, 5, 4, "r")])


def test_edits_inside_lines_across_lines_and_with_non_ascii_text():
    _replay("a = 'é'\nb = 2\n", [(0, 5, 0, 6, "ü€"), (0, 0, 1, 1, "x"), (0, 2, 0, 2, "\n"), (9, 9, 9, 9, "end")])


def test_client_ranges_match_pygls_own_conversion_at_every_offset():
    from qualm.lsp.server import client_ranges

    ws = Workspace(None)
    text = "def f():\n    s = 'é😀'\r\n    return s\n\nx = 1"  # astral character (2 UTF-16 units), CRLF, no final break
    ws.put_text_document(t.TextDocumentItem(uri=URI, language_id="python", version=1, text=text))
    doc, codec = ws.get_text_document(URI), ws.position_codec
    spans = [(a, b) for a in range(len(text) + 1) for b in (a, min(a + 3, len(text)))]
    expected = [
        t.Range(start=codec.position_to_client_units(doc.lines, doc.server_position_at_offset(a)), end=codec.position_to_client_units(doc.lines, doc.server_position_at_offset(b)))
        for a, b in spans
    ]
    assert client_ranges(doc, codec, spans) == expected
