"""A client session against the real server process (`python -m qualm serve` over stdio), driven by
pygls's LanguageClient: the notifications it sent, and helpers for the requests tests make."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient
from timing import seconds

from qualm.lsp.params import plain

URI = "file:///tmp/qualm-lsp-test/sample.py"
DOC = '''import math


def circle_area(r: float) -> float:
    """Area of a circle of radius r."""
    # pi times r squared
    return math.pi * r ** 2


def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
'''
SMALL = {"algorithmic": {"n_plans": 2, "max_tokens": 120}, "functional": {"n_tests": 3, "max_tokens": 300, "n_solutions": 2, "solution_max_tokens": 200}, "editor": {"diagnostic_level": "low", "highlight_level": "low"}}


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
        self.marks_sent: list[tuple[str, int | None]] = []  # (uri, version) of every qualm/marks, in order
        c = self.client

        @c.feature("qualm/marks")
        def on_marks(ls, params):
            p = plain(params)  # pygls hands custom notifications over as namedtuples
            self.marks[p["uri"]] = p
            self.marks_sent.append((p["uri"], p["version"]))

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

    async def start(
        self, options: dict | None = None, wait_ready: bool = True, workspace_folders: list[str] | None = None, configuration: bool = False, python: str = sys.executable, cwd: str | None = None
    ) -> None:
        """``configuration``: the client answers workspace/configuration (register its handler on
        ``self.client`` first). ``python``: the interpreter that runs the server (default: the tests')."""
        await self.client.start_io(python, "-m", "qualm", "serve", "--stdio", cwd=cwd)  # as VS Code starts it
        # pygls's client pipes the server's stderr and never reads it; a full pipe would block the
        # server's logging (as an editor's output channel would not), so drain it here.
        self.stderr: list[bytes] = []
        self._drain = asyncio.create_task(self._read_stderr(self.client._server.stderr))
        caps = t.ClientCapabilities(
            window=t.WindowClientCapabilities(work_done_progress=True),
            workspace=t.WorkspaceClientCapabilities(code_lens=t.CodeLensWorkspaceClientCapabilities(refresh_support=True), configuration=configuration or None),
        )
        folders = [t.WorkspaceFolder(uri=uri, name=uri.rsplit("/", 1)[-1]) for uri in workspace_folders or []]
        self.init = await self.client.initialize_async(
            t.InitializeParams(capabilities=caps, initialization_options={"qualm": options or SMALL}, workspace_folders=folders or None),
        )
        self.client.initialized(t.InitializedParams())
        if wait_ready:
            await self.wait_for(lambda: any(s["state"] == "ready" for s in self.statuses), "the model to load")

    async def _read_stderr(self, stream) -> None:
        while chunk := await stream.read(65536):
            self.stderr.append(chunk)

    async def wait_for(self, cond, what: str, timeout: float = 120.0) -> None:
        """Until ``cond()`` holds; the bound (``timeout`` at normal speed) scales with QUALM_TEST_TIME_FACTOR."""
        end = time.monotonic() + seconds(timeout)
        while not cond():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what}; statuses {self.statuses}, messages {self.messages}")
            await asyncio.sleep(0.05)

    async def eventually(self, probe, what: str, timeout: float = 30.0) -> Any:
        """Until the awaitable ``probe()`` returns something truthy (a request's answer that changes
        once the server has handled earlier notifications), and that; the bound scales as wait_for's."""
        end = time.monotonic() + seconds(timeout)
        while not (found := await probe()):
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.05)
        return found

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

    asyncio.run(asyncio.wait_for(main(), seconds(600)))
