"""The real language server (`python -m qualm serve`) driven over stdio by pygls's LanguageClient,
with the real default model."""

from __future__ import annotations

import asyncio
import re

import pytest
from lsp_session import DOC, SMALL, URI, Session, run
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from timing import seconds

pytestmark = pytest.mark.model
CHAT = {**SMALL, "editor": {**SMALL["editor"], "completion_prompt": "chat"}}  # the paper's prompt, not FIM

# A completion that cannot end before its token target, to cancel: counting to 5000 one number a
# line, the greedy model writes the next number for as long as it is let (measured: 200 tokens of
# 200, up to 46). A cancel sent after its first tokens always comes first, however slow the machine.
COUNTING_URI = "file:///tmp/qualm-lsp-test/numbers.py"
COUNTING = 'def numbers():\n    """Every integer from 1 to 5000, in order, one a line."""\n    return [\n' + "".join(f"        {i},\n" for i in range(1, 6)) + " " * 8 + "\n    ]\n"
COUNTING_AT = {"line": 8, "character": 8}  # the indented empty line in the list, after 5
LONG = {**CHAT, "editor": {**CHAT["editor"], "completion_max_tokens": 1000}}

def test_start_status_capabilities_and_lenses():
    async def scenario(s: Session):
        await s.start()
        caps = s.init.capabilities
        assert caps.hover_provider and caps.code_lens_provider.resolve_provider and caps.inline_completion_provider is not None
        assert [x["state"] for x in s.statuses][:2] == ["loading", "ready"]  # initialize never waited for the model
        s.open()
        lenses = await s.lenses()
        assert [(lens.range.start.line, lens.command.title, list(lens.command.arguments)) for lens in lenses] == [
            (3, "qualm: assess", [URI, "circle_area"]),
            (9, "qualm: assess", [URI, "add"]),
        ]
        assert await s.hover(6, 12) is None  # nothing scored yet
        status = await s.command("qualm.status")
        assert status["state"] == "ready" and status["model"].startswith("Qwen2.5-Coder-0.5B")

    run(scenario)


def test_score_document_gives_diagnostics_hovers_and_marks_that_follow_edits():
    async def scenario(s: Session):
        await s.start()
        s.open()
        result = await s.command("qualm.scoreDocument", URI)
        assert result["functions"] == ["circle_area", "add"] and result["marks"] > 0
        await s.wait_for(lambda: s.diagnostics.get(URI), "diagnostics")
        diags = s.diagnostics[URI]
        assert all(d.source == "qualm" for d in diags)
        lines = DOC.split("\n")
        first = diags[0]
        word = lines[first.range.start.line][first.range.start.character : first.range.end.character]
        assert word.strip() and word.strip() in first.message
        hover = await s.hover(first.range.start.line, first.range.start.character)
        assert hover is not None and "entropy" in hover.contents.value and "the model's top 5" in hover.contents.value
        # insert a line above: every mark moves down one line, none is lost
        before = {(d.range.start.line, d.range.start.character, d.message) for d in diags}
        s.diagnostics.pop(URI)
        s.change(2, (0, 0), (0, 0), "# a new first line\n")
        await s.wait_for(lambda: URI in s.diagnostics, "diagnostics after the edit")
        after = {(d.range.start.line - 1, d.range.start.character, d.message) for d in s.diagnostics[URI]}
        assert after == before
        # edit inside the first mark's token: its diagnostic goes, the others stay
        moved = first.range.start.line + 1
        s.diagnostics.pop(URI)
        s.change(3, (moved, first.range.start.character), (moved, first.range.start.character + 1), "Z")
        await s.wait_for(lambda: URI in s.diagnostics, "diagnostics after the second edit")
        remaining = {d.message for d in s.diagnostics[URI]}
        assert first.message not in remaining and len(remaining) == len(before) - 1

    run(scenario)


def test_complete_streams_tokens_and_an_accepted_completion_gets_marks():
    # the chat prompt: its answer here has uncertain tokens to mark (the FIM answer, `return a + b`,
    # is confident throughout); FIM's marks: test_a_completion_in_the_middle_of_a_function...
    async def scenario(s: Session):
        await s.start(CHAT)
        s.open()
        params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "partialResultToken": "partial", "options": {"maxTokens": 48}}
        result = await s.client.protocol.send_request_async("qualm/complete", params)
        text = result.text
        assert "return" in text
        assert set(result._fields) == {"text", "tokens", "stopReason", "endRule", "model", "seconds", "function", "promptKind", "doubt", "firstTokenSeconds"}  # no trace id to send back
        assert result.promptKind == "chat" and result.doubt.level in ("confident", "low", "medium", "high")
        streamed = "".join(p["text"] for p in s.partials)
        assert streamed == text  # the partial results are the completion, token by token
        assert s.partials[-1]["doubt"]["maxEntropy"] == result.doubt.maxEntropy  # the running doubt ends as the completion's
        # the client gets text, offsets in the completion and a level; the numbers stay on the server
        assert all(set(tok._fields) == {"text", "start", "end", "level"} for tok in result.tokens)
        assert "".join(text[tok.start : tok.end] for tok in result.tokens) == text
        # the user accepts: the editor inserts the text, then tells the server where
        s.change(2, (11, 0), (11, 0), text)
        s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "text": text, "range": {"start": {"line": 11, "character": 0}, "end": {"line": 11, "character": 0}}})
        await s.wait_for(lambda: URI in s.diagnostics, "diagnostics for the accepted completion")
        new_doc = DOC + text
        for d in s.diagnostics[URI]:
            line = new_doc.split("\n")[d.range.start.line]
            assert d.range.start.line >= 11 and line[d.range.start.character : d.range.end.character].strip()
        # qualm/marks: every non-confident token's range and level, for the document version they fit
        marks = s.marks[URI]
        assert marks["version"] == 2 and marks["marks"]
        assert {m["level"] for m in marks["marks"]} <= {"low", "medium", "high"}
        assert len(marks["marks"]) == len(s.diagnostics[URI])  # diagnostic_level low: one diagnostic per mark
        uncertain = [tok for tok in result.tokens if tok.level != "confident" and tok.text.strip()]
        assert len(marks["marks"]) == len(uncertain)
        inline = await s.client.text_document_inline_completion_async(
            t.InlineCompletionParams(
                text_document=t.TextDocumentIdentifier(uri=URI),
                position=t.Position(11, 0),
                context=t.InlineCompletionContext(trigger_kind=t.InlineCompletionTriggerKind.Invoked),
            )
        )
        assert inline.items and "return" in inline.items[0].insert_text

    run(scenario)


def test_assess_function_reports_progress_and_updates_lens_and_hover():
    async def scenario(s: Session):
        await s.start()
        s.open()
        out = await s.command("qualm.assessFunction", URI, "circle_area")
        assert out["function"] == "circle_area" and out["summary"].startswith("qualm")
        kinds = [p["kind"] if isinstance(p, dict) else p.kind for p in s.progress]
        assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
        lenses = await s.lenses()
        assert lenses[0].command.title == out["summary"] and lenses[1].command.title == "qualm: assess"
        hover = await s.hover(3, 5)
        assert hover is not None and "qualm assessment" in hover.contents.value and "Self-tests" in hover.contents.value
        s.change(2, (6, 11), (6, 18), "3.14159")  # math.pi -> 3.14159 inside circle_area
        # the change is a notification: the lens says so once the server has handled it
        await s.eventually(lambda: _first_lens_is(s, "qualm: re-assess"), "the lens to ask for a re-assessment")

    run(scenario)


def test_assess_request_finds_the_function_by_position_and_reports_to_the_clients_progress_token():
    async def scenario(s: Session):
        await s.start()
        s.open()
        params = {"textDocument": {"uri": URI}, "position": {"line": 6, "character": 8}, "workDoneToken": "client-made"}
        out = await s.client.protocol.send_request_async("qualm/assess", params)
        assert out.function == "circle_area" and out.summary.startswith("qualm") and out.assessment.lexical.raw is not None
        assert set(s.progress_tokens) == {"client-made"}  # no server-made progress: the client shows its own
        kinds = [p["kind"] if isinstance(p, dict) else p.kind for p in s.progress]
        assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
        assert (await s.lenses())[0].command.title == out.summary
        with pytest.raises(JsonRpcException, match="not inside a function"):
            await s.client.protocol.send_request_async("qualm/assess", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 0}})
        with pytest.raises(JsonRpcException, match="function name or a position"):
            await s.client.protocol.send_request_async("qualm/assess", {"textDocument": {"uri": URI}})

    run(scenario)


def test_cancel_stops_a_completion_and_the_server_goes_on():
    async def scenario(s: Session):
        await s.start(LONG)
        s.open()
        s.open(COUNTING, COUNTING_URI)
        params = {"textDocument": {"uri": COUNTING_URI}, "position": COUNTING_AT, "partialResultToken": "partial", "options": {"maxTokens": 1000}}
        fut = s.client.protocol.send_request("qualm/complete", params)
        await s.wait_for(lambda: len(s.partials) >= 2, "the first tokens", timeout=seconds(120))
        mark = len(s.statuses)
        s.client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id=max(s.client.protocol._request_futures)))
        with pytest.raises((JsonRpcException, asyncio.CancelledError)):  # the server answers RequestCancelled
            await asyncio.wait_for(asyncio.wrap_future(fut), seconds(30))
        n = len(s.partials)
        # the model stops at its next token, and only then is the status ready again: after that
        # nothing can stream, and what came after the answer is at most the token it was writing
        await s.wait_for(lambda: any(x["state"] == "ready" for x in s.statuses[mark:]), "ready after the cancel", timeout=seconds(60))
        assert len(s.partials) <= n + 1  # generation stopped within a token
        lenses = await s.lenses()
        assert len(lenses) == 2
        assert any(m.startswith(f"qualm: complete:{COUNTING_URI}: cancelled after ") for m in s.messages), s.messages

    run(scenario)


def test_bad_requests_get_errors_and_the_server_keeps_serving():
    async def scenario(s: Session):
        await s.start()
        s.open()
        for params in ({}, {"textDocument": {"uri": URI}}, {"textDocument": {"uri": "file:///nope.py"}, "position": {"line": 0, "character": 0}}, {"position": "x"}):
            with pytest.raises(JsonRpcException):
                await s.client.protocol.send_request_async("qualm/complete", params)
        with pytest.raises(JsonRpcException):
            await s.command("qualm.assessFunction", URI, "no_such_function")
        with pytest.raises(JsonRpcException):
            await s.command("qualm.scoreDocument", "file:///not-open.py")
        with pytest.raises(JsonRpcException):
            await s.command("qualm.assessFunction")
        broken = "file:///tmp/qualm-lsp-test/broken.py"
        s.open("def broken(:\n    pass\n", broken)
        assert await s.lenses(broken) == []
        with pytest.raises(JsonRpcException):
            await s.command("qualm.scoreDocument", broken)
        assert await s.hover(0, 0, broken) is None
        lenses = await s.lenses()
        assert len(lenses) == 2  # still serving

    run(scenario)


def test_a_model_that_fails_to_load_is_reported_and_the_server_keeps_serving(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_text("not a model")

    async def scenario(s: Session):
        await s.start({"model": {"path": str(bad)}}, wait_ready=False)
        await s.wait_for(lambda: any(x["state"] == "error" for x in s.statuses), "the error status")
        error = next(x for x in s.statuses if x["state"] == "error")
        assert "not a GGUF" in error["message"]
        s.open()
        assert len(await s.lenses()) == 2
        with pytest.raises(JsonRpcException, match="not ready"):
            await s.command("qualm.scoreDocument", URI)

    run(scenario)


def test_a_newer_completion_for_the_same_document_cancels_the_older():
    async def scenario(s: Session):
        await s.start(LONG)
        s.open(COUNTING, COUNTING_URI)
        base = {"textDocument": {"uri": COUNTING_URI}, "position": COUNTING_AT, "partialResultToken": "partial"}
        first = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/complete", {**base, "options": {"maxTokens": 1000}}))
        await s.wait_for(lambda: len(s.partials) >= 2, "the first completion to stream", timeout=seconds(120))
        second = await s.client.protocol.send_request_async("qualm/complete", {**base, "options": {"maxTokens": 16}})
        older = await first
        assert older.stopReason == "cancelled" and len(older.tokens) < 1000
        assert second.stopReason == "length" and second.text

    run(scenario)


def test_configuration_changes_reload_the_model_and_bad_settings_are_refused():
    long_uri = "file:///tmp/qualm-lsp-test/long.py"
    long_doc = "def long_function(x):\n" + "".join(f"    x = x * {i} + {i * 7} - (x // {i + 1})\n" for i in range(25)) + "    return x\n"

    async def scenario(s: Session):
        def reloaded(since: int) -> bool:
            states = [x["state"] for x in s.statuses[since:]]
            return "loading" in states and "ready" in states[states.index("loading") :]

        await s.start()
        s.open()
        s.open(long_doc, long_uri)
        mark = len(s.statuses)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": {"model": {"n_ctx": 256}}}))
        await s.wait_for(lambda: reloaded(mark), "the model to reload")
        # the smallest context qualm allows cannot hold this function: an error, and the server lives
        with pytest.raises(JsonRpcException, match="context"):
            await s.command("qualm.scoreDocument", long_uri)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": {"model": {"n_ctx": "big"}}}))
        await s.wait_for(lambda: any("must be an integer" in m for m in s.messages), "the settings error")
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": {"model": {"n_ctx": 64}}}))
        await s.wait_for(lambda: any("n_ctx must be at least 256, got 64" in m for m in s.messages), "the range error")
        mark = len(s.statuses)
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": {"model": {"n_ctx": 4096}}}))
        await s.wait_for(lambda: reloaded(mark), "the model to reload again")
        result = await s.command("qualm.scoreDocument", URI)  # the model works again
        assert result["functions"] == ["circle_area", "add"]

    run(scenario)


def test_cancelling_the_assess_progress_stops_the_assessment():
    async def scenario(s: Session):
        await s.start({"algorithmic": {"n_plans": 4, "max_tokens": 400}, "functional": {"n_tests": 6, "max_tokens": 400, "n_solutions": 2, "solution_max_tokens": 200}})
        s.open()
        pending = asyncio.ensure_future(s.command("qualm.assessFunction", URI, "circle_area"))
        await s.wait_for(lambda: any(isinstance(p, dict) and "algorithmic" in str(p.get("message", "")) for p in s.progress), "the algorithmic stage", timeout=seconds(120))
        s.client.protocol.notify(t.WINDOW_WORK_DONE_PROGRESS_CANCEL, t.WorkDoneProgressCancelParams(token=s.progress_tokens[0]))
        out = await asyncio.wait_for(pending, seconds(60))
        assert out == {"function": "circle_area", "cancelled": True}
        # it stopped in the sampling it was cancelled in: no later stage began
        assert not [m for m in progress_messages(s) if m.startswith(("functional:", "done:"))]
        assert s.progress[-1]["kind"] == "end"
        lenses = await s.lenses()
        assert lenses[0].command.title == "qualm: assess"  # nothing half-done was stored

    run(scenario)


def progress_messages(s: Session) -> list[str]:
    return [str(p.get("message", "")) for p in s.progress if isinstance(p, dict)]


def test_after_a_cancelled_request_the_status_returns_to_ready():
    async def scenario(s: Session):
        await s.start({"algorithmic": {"n_plans": 3, "max_tokens": 200}, "functional": {"n_tests": 3, "max_tokens": 300, "n_solutions": 2, "solution_max_tokens": 200}})
        s.open()
        params = {"textDocument": {"uri": URI}, "function": "circle_area", "workDoneToken": "w"}
        task = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/assess", params))
        await s.wait_for(lambda: any(x["state"] == "busy" for x in s.statuses), "busy")
        await s.wait_for(lambda: any(m.startswith("algorithmic: sampling") for m in progress_messages(s)), "the model sampling", timeout=seconds(120))
        s.client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id=max(s.client.protocol._request_futures)))
        with pytest.raises(JsonRpcException):
            await task
        await s.wait_for(lambda: s.statuses[-1]["state"] == "ready", "ready after the cancelled assessment", timeout=seconds(60))
        # ready because the model stopped, not because the assessment ran to its end
        assert not [m for m in progress_messages(s) if m.startswith(("functional:", "done:"))]

    run(scenario)


FIM_DOC = 'def total_price(items):\n    """Sum price * quantity over the items."""\n    total = 0\n    \n    return total\n'
FIM_URI = "file:///tmp/qualm-lsp-test/prices.py"
HELPER_URI = "file:///tmp/qualm-lsp-test/pricing.py"


def test_a_completion_in_the_middle_of_a_function_sees_the_code_after_it():
    """Issue 46 over stdio: on the empty line inside a function, the completion is written from a
    FIM prompt with the code after the cursor and the other open file, and never repeats the next line."""

    async def scenario(s: Session):
        await s.start()
        s.open("def line_price(item):\n    return item.price * item.quantity\n", HELPER_URI)
        s.open(FIM_DOC, FIM_URI)
        params = {"textDocument": {"uri": FIM_URI}, "position": {"line": 3, "character": 4}, "partialResultToken": "fim"}
        result = await s.client.protocol.send_request_async("qualm/complete", params)
        assert result.promptKind == "fim"
        assert result.text.strip(), "an empty completion"
        assert "return total" not in result.text  # the line after the cursor is not written again
        accepted = FIM_DOC.replace("    \n", "    " + result.text + "\n", 1)
        assert accepted.count("return total") == 1
        logged = [m for m in s.messages if m.startswith("completion: fim prompt of ")]
        assert len(logged) == 1 and "with qualm-lsp-test/pricing.py" in logged[0], s.messages  # the other open file was shown
        # the same request again: the model's cache of the prompt is reused (all but its last token)
        again = await s.client.protocol.send_request_async("qualm/complete", params)
        assert again.text == result.text
        second = [m for m in s.messages if m.startswith("completion: fim prompt of ")][-1]
        total, cached = (int(x) for x in re.search(r"of (\d+) tokens \((\d+) cached\)", second).groups())
        assert cached == total - 1, second
        # accepted: its uncertain tokens become marks where they landed
        s.change(2, (3, 4), (3, 4), result.text, FIM_URI)
        s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": FIM_URI}, "text": result.text, "range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 4}}})
        await s.wait_for(lambda: FIM_URI in s.marks, "marks for the accepted completion")
        uncertain = [tok for tok in result.tokens if tok.level != "confident" and tok.text.strip()]
        assert uncertain and len(s.marks[FIM_URI]["marks"]) == len(uncertain)

    run(scenario)


async def _first_lens_is(s: Session, title: str) -> bool:
    lenses = await s.lenses()
    return bool(lenses) and lenses[0].command.title == title
