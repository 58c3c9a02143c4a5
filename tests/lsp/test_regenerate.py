"""Acting on the doubt over LSP with the real model: a marked token offers "use '…' instead" for
each alternative above the floor and "regenerate from …"; resolving an action returns a versioned
edit and writes nothing; the VS Code path (qualm/regenerate) streams the rewrite; when the document
becomes the rewritten text, the new tokens get their own marks; a stale action is refused."""

from __future__ import annotations

import pytest
from lsp_session import DOC, URI, Session, run
from lsprotocol import types as t

from qualm.lsp.params import plain

# the real model; completions from the paper's prompt, whose answers here have uncertain tokens to act on
pytestmark = pytest.mark.model


def _offset(text: str, line: int, character: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line]) + character


def _apply(text: str, edit: t.TextEdit) -> str:
    r = edit.range
    return text[: _offset(text, r.start.line, r.start.character)] + edit.new_text + text[_offset(text, r.end.line, r.end.character) :]


async def _accepted_completion(s: Session) -> str:
    """The model's completion of add()'s body, accepted: the document's text after it."""
    params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "options": {"maxTokens": 40}}
    result = await s.client.protocol.send_request_async("qualm/complete", params)
    s.change(2, (11, 0), (11, 0), result.text)
    s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "text": result.text, "range": {"start": {"line": 11, "character": 0}, "end": {"line": 11, "character": 0}}})
    await s.wait_for(lambda: s.marks.get(URI, {}).get("version") == 2 and s.marks[URI]["marks"], "marks on the accepted completion")
    return DOC + result.text


def test_code_actions_on_a_marked_token_resolve_to_a_rewrite_that_gets_its_own_marks():
    async def scenario(s: Session):
        await s.start({"editor": {"diagnostic_level": "low", "highlight_level": "low", "alternative_floor": 0.01, "completion_max_tokens": 40, "completion_prompt": "chat"}})
        s.open()
        text = await _accepted_completion(s)
        # the most uncertain mark that offers another token (a mark whose alternatives are only a
        # comment or white space offers none in place of code: only "regenerate from")
        for mark in sorted(s.marks[URI]["marks"], key=lambda m: -["low", "medium", "high"].index(m["level"])):
            at = t.Position(mark["range"]["start"]["line"], mark["range"]["start"]["character"])
            actions = await s.client.text_document_code_action_async(
                t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=URI), range=t.Range(start=at, end=at), context=t.CodeActionContext(diagnostics=[]))
            )
            titles = [a.title for a in actions]
            assert not any(x.startswith(("qualm: use '#", "qualm: use '⏎", "qualm: use ' ")) for x in titles), titles
            if len(titles) >= 2:
                break
        source_only = t.CodeActionContext(diagnostics=[], only=[t.CodeActionKind.Source])
        assert await s.client.text_document_code_action_async(t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=URI), range=t.Range(start=at, end=at), context=source_only)) is None
        # the first alternative offered, or, where none is (the answer's marks may all be at tokens whose
        # alternatives are a comment or white space), regenerating from the most uncertain mark
        assert titles[-1].startswith("qualm: regenerate from '"), titles
        assert all(x.startswith("qualm: use '") and x.endswith("%)") for x in titles[:-1])
        chosen = actions[0]
        assert chosen.edit is None and chosen.data["version"] == 2  # computed only when picked
        resolved = await s.client.code_action_resolve_async(chosen)
        (change,) = resolved.edit.document_changes
        assert change.text_document.version == 2 and len(change.edits) == 1
        edit = change.edits[0]
        new_text = _apply(text, edit)
        assert new_text != text and new_text.startswith(DOC[: _offset(DOC, 11, 0)])
        # the user takes it: the editor applies the edit and reports the change
        before = len(s.marks[URI]["marks"])
        s.change(3, (edit.range.start.line, edit.range.start.character), (edit.range.end.line, edit.range.end.character), edit.new_text)
        await s.wait_for(lambda: s.marks[URI]["version"] == 3, "marks for the rewritten text")
        rewritten = s.marks[URI]["marks"]
        for m in rewritten:  # every mark sits on text of the new document, and paints none of its white space
            r = m["range"]
            painted = new_text[_offset(new_text, r["start"]["line"], r["start"]["character"]) : _offset(new_text, r["end"]["line"], r["end"]["character"])]
            assert painted.strip() and painted == painted.strip(), (m, painted, new_text)
        assert rewritten != [] or before == 0
        # an action offered for version 2 is refused now: the document moved on
        try:
            await s.client.code_action_resolve_async(actions[-1])
            raise AssertionError("a stale action was resolved")
        except Exception as exc:  # noqa: BLE001 - pygls raises the server's error
            assert "changed since" in str(exc) or "no longer marked" in str(exc)

    run(scenario)


def test_qualm_regenerate_streams_the_rewrite_for_a_preview():
    async def scenario(s: Session):
        await s.start({"editor": {"diagnostic_level": "low", "highlight_level": "low", "completion_max_tokens": 40, "completion_prompt": "chat"}})
        s.open()
        await _accepted_completion(s)
        mark = s.marks[URI]["marks"][0]
        at = t.Position(mark["range"]["start"]["line"], mark["range"]["start"]["character"])
        actions = await s.client.text_document_code_action_async(
            t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=URI), range=t.Range(start=at, end=at), context=t.CodeActionContext(diagnostics=[]))
        )
        again = actions[-1]  # regenerate from here: sampled
        s.partials.clear()
        result = await s.client.protocol.send_request_async("qualm/regenerate", {"data": again.data, "seed": 3, "partialResultToken": "partial"})
        r = plain(result)
        assert "".join(p["text"] for p in s.partials) == r["text"]
        start = r["range"]["start"]  # the token's place, or where its healed whitespace began
        assert r["choice"] is None and r["version"] == 2 and start["line"] == at.line and start["character"] <= at.character
        same = plain(await s.client.protocol.send_request_async("qualm/regenerate", {"data": again.data, "seed": 3}))
        assert same["text"] == r["text"]  # the seed makes it reproducible

    run(scenario)
