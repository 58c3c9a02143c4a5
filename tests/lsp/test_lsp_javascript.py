"""A JavaScript document through the real language server with the real model, over stdio: the same
handlers as Python's (lenses, qualm/complete, accepted marks and their hover, scoring)."""

from __future__ import annotations

import pytest
from lsp_session import Session, run
from lsprotocol import types as t

pytestmark = pytest.mark.model

URI = "file:///tmp/qualm-lsp-test/sample.js"
DOC = """import { readFileSync } from "fs";

/** The number of lines of a text file. */
export function lineCount(path) {
  const text = readFileSync(path, "utf8");

}

class Stack {
  push(x) {
    this.items.push(x);
  }
}
"""
CURSOR = (5, 2)  # the blank line inside lineCount, after its indentation


def _open(s: Session, text: str = DOC, uri: str = URI, language_id: str = "javascript") -> None:
    s.client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)))


def test_a_javascript_document_gets_lenses_completions_marks_hovers_and_scores():
    async def scenario(s: Session):
        await s.start()
        handshake = await s.client.protocol.send_request_async("qualm/handshake", {"clientVersion": "test", "protocol": 0})
        assert {"javascript", "javascriptreact", "typescript", "typescriptreact"} <= set(handshake.languages)
        doc = DOC.replace("\n\n}", "\n  \n}", 1)  # the editor's indentation on the blank line
        _open(s, doc)
        lenses = await s.lenses(URI)
        assert [(lens.range.start.line, lens.command.arguments[1]) for lens in lenses] == [(3, "lineCount"), (9, "Stack.push")]

        params = {"textDocument": {"uri": URI}, "position": {"line": CURSOR[0], "character": CURSOR[1]}, "partialResultToken": "partial", "options": {"maxTokens": 16}}
        result = await s.client.protocol.send_request_async("qualm/complete", params)
        assert result.function == "lineCount" and result.text.strip()
        assert "".join(p["text"] for p in s.partials) == result.text
        assert "".join(result.text[tok.start : tok.end] for tok in result.tokens) == result.text
        # accepted: the text is inserted, and its uncertain tokens get marks and hovers
        s.change(2, CURSOR, CURSOR, result.text, uri=URI)
        s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "text": result.text, "range": {"start": {"line": CURSOR[0], "character": CURSOR[1]}, "end": {"line": CURSOR[0], "character": CURSOR[1]}}})
        uncertain = [tok for tok in result.tokens if tok.level != "confident" and tok.text.strip()]
        if uncertain:
            await s.wait_for(lambda: s.marks.get(URI, {}).get("version") == 2, "marks for the accepted completion")
            mark = s.marks[URI]["marks"][0]
            start = mark["range"]["start"]
            hover = await s.hover(start["line"], start["character"], URI)
            assert hover is not None and "entropy" in hover.contents.value

        # scoring the existing code: every function, marks in the document
        scored = "file:///tmp/qualm-lsp-test/scored.js"
        _open(s, DOC.replace("\n\n}", "\n  return text.split(\"\\n\").length;\n}", 1), scored)
        result = await s.command("qualm.scoreDocument", scored)
        assert result["functions"] == ["lineCount", "Stack.push"] and result["marks"] > 0
        await s.wait_for(lambda: s.diagnostics.get(scored), "diagnostics of the scored document")

        # a TypeScript document that does not parse: no lenses, and the server goes on
        broken = "file:///tmp/qualm-lsp-test/broken.ts"
        _open(s, "function f(x: number {\n  return x;\n}\n", broken, "typescript")
        assert await s.lenses(broken) == []
        assert (await s.command("qualm.status"))["state"] == "ready"

    run(scenario)


TS = """/** Return the largest of the numbers, or undefined for an empty list. */
export function largest(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  let best = xs[0];
  for (const x of xs) {
    if (x > best) best = x;
  }
  return best;
}

export const twice = (x: number): number => x * 2;
"""


def test_a_rewrite_from_a_scored_typescript_token_stays_inside_its_function():
    async def scenario(s: Session):
        await s.start({"editor": {"diagnostic_level": "low", "highlight_level": "low", "alternative_floor": 0.01}})
        uri = "file:///tmp/qualm-lsp-test/largest.ts"
        _open(s, TS, uri, "typescript")
        result = await s.command("qualm.scoreDocument", uri)
        assert result["functions"] == ["largest", "twice"]
        await s.wait_for(lambda: s.marks.get(uri, {}).get("marks"), "marks of the scored document")
        inside = [m for m in s.marks[uri]["marks"] if m["range"]["start"]["line"] < 8]
        mark = max(inside, key=lambda m: ["low", "medium", "high"].index(m["level"]))
        at = t.Position(mark["range"]["start"]["line"], mark["range"]["start"]["character"])
        actions = await s.client.text_document_code_action_async(
            t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=uri), range=t.Range(start=at, end=at), context=t.CodeActionContext(diagnostics=[]))
        )
        assert actions and actions[-1].title.startswith("qualm: regenerate from '")
        resolved = await s.client.code_action_resolve_async(actions[0])
        edit = resolved.edit.document_changes[0].edits[0]
        # from the token to at most the end of largest(): the arrow function after it is untouched
        assert (edit.range.start.line, edit.range.start.character) <= (at.line, at.character) and (edit.range.end.line, edit.range.end.character) <= (9, 0)
        lines = TS.split("\n")
        rewritten = "\n".join(lines[: edit.range.start.line] + [lines[edit.range.start.line][: edit.range.start.character] + edit.new_text + lines[edit.range.end.line][edit.range.end.character :]] + lines[edit.range.end.line + 1 :])
        assert rewritten.endswith("export const twice = (x: number): number => x * 2;\n")

    run(scenario)
