"""The real language server (`python -m qualm serve`) driven over stdio by pygls's LanguageClient,
with the real default model."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from qualm.lsp.params import plain

pytestmark = pytest.mark.model

URI = "file:///tmp/qualm-lsp-test/sample.py"
DOC = '''import math


def circle_area(r: float) -> float:
    """Area of a circle of radius r."""
    # pi times r squared
    return math.pi * r ** 2


def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
'''
SMALL = {"algorithmic": {"n_plans": 2, "max_tokens": 120}, "functional": {"n_tests": 3, "max_tokens": 300}, "editor": {"diagnostic_level": "low"}}


class Session:
    """A started server with the notifications it sent, for one test."""

    def __init__(self) -> None:
        self.client = LanguageClient("qualm-tests", "1")
        self.statuses: list[dict] = []
        self.diagnostics: dict[str, list[t.Diagnostic]] = {}
        self.diagnostic_versions: dict[str, int | None] = {}
        self.partials: list[Any] = []
        self.progress: list[Any] = []
        self.progress_tokens: list[Any] = []
        self.messages: list[str] = []
        self.marks: dict[str, dict] = {}
        c = self.client

        @c.feature("qualm/marks")
        def on_marks(ls, params):
            p = plain(params)  # pygls hands custom notifications over as namedtuples
            self.marks[p["uri"]] = p

        @c.feature("qualm/status")
        def on_status(ls, params):
            self.statuses.append(params._asdict() if hasattr(params, "_asdict") else dict(params))

        @c.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(ls, params: t.PublishDiagnosticsParams):
            self.diagnostics[params.uri] = params.diagnostics
            self.diagnostic_versions[params.uri] = params.version

        @c.feature(t.WINDOW_LOG_MESSAGE)
        def on_log(ls, params):
            self.messages.append(params.message)

        @c.feature(t.WINDOW_SHOW_MESSAGE)
        def on_show(ls, params):
            self.messages.append(params.message)

        @c.feature(t.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def on_create(ls, params):
            return None

        @c.feature(t.PROGRESS)
        def on_progress(ls, params):
            if params.token == "partial":
                self.partials.append(params.value)
            else:
                self.progress.append(params.value)
                self.progress_tokens.append(params.token)

    async def start(self, options: dict | None = None, wait_ready: bool = True) -> None:
        await self.client.start_io(sys.executable, "-m", "qualm", "serve", "--stdio")  # as VS Code starts it
        # pygls's client pipes the server's stderr and never reads it; a full pipe would block the
        # server's logging (as an editor's output channel would not), so drain it here.
        self.stderr: list[bytes] = []
        self._drain = asyncio.create_task(self._read_stderr(self.client._server.stderr))
        caps = t.ClientCapabilities(
            window=t.WindowClientCapabilities(work_done_progress=True),
            workspace=t.WorkspaceClientCapabilities(code_lens=t.CodeLensWorkspaceClientCapabilities(refresh_support=True)),
        )
        self.init = await self.client.initialize_async(t.InitializeParams(capabilities=caps, initialization_options={"qualm": options or SMALL}))
        self.client.initialized(t.InitializedParams())
        if wait_ready:
            await self.wait_for(lambda: any(s["state"] == "ready" for s in self.statuses), "the model to load")

    async def _read_stderr(self, stream) -> None:
        while chunk := await stream.read(65536):
            self.stderr.append(chunk)

    async def wait_for(self, cond, what: str, timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what}; statuses {self.statuses}, messages {self.messages}")
            await asyncio.sleep(0.05)

    def open(self, text: str = DOC, uri: str = URI) -> None:
        self.client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))

    def change(self, version: int, start: tuple[int, int], end: tuple[int, int], text: str, uri: str = URI) -> None:
        rng = t.Range(start=t.Position(*start), end=t.Position(*end))
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[t.TextDocumentContentChangePartial(range=rng, text=text)],
            )
        )

    async def hover(self, line: int, char: int, uri: str = URI) -> t.Hover | None:
        return await self.client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line, char)))

    async def command(self, name: str, *args: Any) -> Any:
        return await self.client.workspace_execute_command_async(t.ExecuteCommandParams(command=name, arguments=list(args)))

    async def lenses(self, uri: str = URI) -> list[t.CodeLens]:
        found = await self.client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=uri)))
        return [await self.client.code_lens_resolve_async(lens) for lens in found]

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def run(scenario) -> None:
    async def main():
        s = Session()
        try:
            await scenario(s)
        finally:
            await s.stop()

    asyncio.run(asyncio.wait_for(main(), 600))


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
    async def scenario(s: Session):
        await s.start()
        s.open()
        params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "partialResultToken": "partial", "options": {"maxTokens": 48}}
        result = await s.client.protocol.send_request_async("qualm/complete", params)
        text = result.text
        assert "return" in text and result.traceId
        streamed = "".join(p["text"] for p in s.partials)
        assert streamed == text  # the partial results are the completion, token by token
        assert all(0 <= tok.entropy for tok in result.tokens) and result.lexical.all.k == 5
        # the user accepts: the editor inserts the text, then tells the server where
        s.change(2, (11, 0), (11, 0), text)
        s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": URI}, "traceId": result.traceId, "range": {"start": {"line": 11, "character": 0}, "end": {"line": 11, "character": 0}}})
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
        await asyncio.sleep(0.2)
        lenses = await s.lenses()
        assert lenses[0].command.title == "qualm: re-assess"

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
        await s.start()
        s.open()
        params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "partialResultToken": "partial", "options": {"maxTokens": 400, "temperature": 0.8}}
        fut = s.client.protocol.send_request("qualm/complete", params)
        await s.wait_for(lambda: len(s.partials) >= 2, "the first tokens")
        started = time.monotonic()
        s.client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id=max(s.client.protocol._request_futures)))
        with pytest.raises(BaseException):
            await asyncio.wait_for(asyncio.wrap_future(fut), 30)
        n = len(s.partials)
        await asyncio.sleep(1.0)
        assert len(s.partials) <= n + 1  # generation stopped within a token
        assert time.monotonic() - started < 5
        lenses = await s.lenses()
        assert len(lenses) == 2

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
        await s.start()
        s.open()
        base = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "partialResultToken": "partial"}
        first = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/complete", {**base, "options": {"maxTokens": 400, "temperature": 0.8}}))
        await s.wait_for(lambda: len(s.partials) >= 2, "the first completion to stream")
        second = await s.client.protocol.send_request_async("qualm/complete", {**base, "options": {"maxTokens": 16}})
        older = await first
        assert older.stopReason == "cancelled"
        assert second.stopReason != "cancelled" and second.text

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
        await s.start({"algorithmic": {"n_plans": 4, "max_tokens": 400}, "functional": {"n_tests": 6, "max_tokens": 400}})
        s.open()
        pending = asyncio.ensure_future(s.command("qualm.assessFunction", URI, "circle_area"))
        await s.wait_for(lambda: any(isinstance(p, dict) and "algorithmic" in str(p.get("message", "")) for p in s.progress), "the algorithmic stage")
        started = time.monotonic()
        s.client.protocol.notify(t.WINDOW_WORK_DONE_PROGRESS_CANCEL, t.WorkDoneProgressCancelParams(token=s.progress_tokens[0]))
        out = await asyncio.wait_for(pending, 60)
        assert out == {"function": "circle_area", "cancelled": True}
        assert time.monotonic() - started < 10
        assert s.progress[-1]["kind"] == "end"
        lenses = await s.lenses()
        assert lenses[0].command.title == "qualm: assess"  # nothing half-done was stored

    run(scenario)


def test_after_a_cancelled_request_the_status_returns_to_ready():
    async def scenario(s: Session):
        await s.start({"algorithmic": {"n_plans": 3, "max_tokens": 200}, "functional": {"n_tests": 3, "max_tokens": 300}})
        s.open()
        params = {"textDocument": {"uri": URI}, "function": "circle_area", "workDoneToken": "w"}
        task = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/assess", params))
        await s.wait_for(lambda: any(x["state"] == "busy" for x in s.statuses), "busy")
        await asyncio.sleep(1.0)
        cancelled_at = time.monotonic()
        s.client.protocol.notify(t.CANCEL_REQUEST, t.CancelParams(id=max(s.client.protocol._request_futures)))
        with pytest.raises(JsonRpcException):
            await task
        await s.wait_for(lambda: s.statuses[-1]["state"] == "ready", "ready after the cancelled assessment", timeout=30)
        assert time.monotonic() - cancelled_at < 10

    run(scenario)
