"""qualm's language server: a thin pygls layer over the engine.

State lives on the server object (settings, the model, per-document marks and assessments);
each LSP feature is a small module under ``qualm.lsp.features`` that registers its handlers.
"""

from __future__ import annotations

import asyncio
import logging
from bisect import bisect_right
from collections import OrderedDict
from itertools import accumulate
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import PositionCodec, TextDocument

from .. import __version__
from ..assess import Assessment
from ..ensemble import Calibration, find_calibration
from ..marks import Mark
from ..model import CancelToken, ModelBackend, load_model
from ..model.files import cache_dir, cached_sha256
from ..settings import Settings, SettingsError
from ..trace import Trace
from .presentation import TokenInfo
from .worker import ModelWorker

log = logging.getLogger("qualm.lsp")

STATUS = "qualm/status"


@dataclass
class StoredAssessment:
    assessment: Assessment
    source: str  # the function's source when it was assessed: a different source makes it stale


@dataclass
class DocumentState:
    text: str  # as of the last change we applied to the marks
    marks: list[Mark[TokenInfo]] = field(default_factory=list)
    assessments: dict[str, StoredAssessment] = field(default_factory=dict)


class QualmServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("qualm", __version__)
        self.settings = Settings()
        self.backend: ModelBackend | None = None
        self.calibration: Calibration | None = None
        self.worker = ModelWorker(on_idle=self._worker_idle)
        self.docs: dict[str, DocumentState] = {}
        self.traces: OrderedDict[str, Trace] = OrderedDict()  # completions awaiting qualm/accepted
        self.state = "loading"
        self.state_message = "starting"
        self.progress_cancels: dict[str, CancelToken] = {}

    # -- status and logging --------------------------------------------------------------------

    def set_status(self, state: str, message: str = "") -> None:
        self.state, self.state_message = state, message
        info = self.backend.info.name if self.backend is not None else None
        self.protocol.notify(STATUS, {"state": state, "message": message, "model": info})

    def status(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "message": self.state_message,
            "model": None if self.backend is None else self.backend.info.name,
            "modelPath": None if self.backend is None else self.backend.info.path,
            "calibration": None if self.calibration is None else self.calibration.describe(),
            "busy": self.worker.busy,
        }

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        log.info("%s", message)
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001 - before the connection is up
            pass

    # -- model ---------------------------------------------------------------------------------

    def load_model_in_background(self) -> None:
        """Load (or reload) the configured model on the worker; the event loop goes on."""
        self.set_status("loading", "loading the model")
        settings = self.settings

        def job(cancel: CancelToken) -> ModelBackend:
            # Runs on the worker, so no other model job can be using the old model meanwhile; the
            # new one is in place before the next queued job starts.
            old, self.backend = self.backend, None
            if old is not None:
                old.close()
            self.backend = load_model(settings.model)
            return self.backend

        future, _ = self.worker.submit(job, key="model")
        future.add_done_callback(self._model_loaded)

    def _model_loaded(self, future: asyncio.Future) -> None:
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None:
            self.backend = None
            self.set_status("error", str(exc))
            self.log(f"qualm: the model could not be loaded: {exc}", types.MessageType.Error)
            return
        try:
            digest = cached_sha256(Path(self.backend.info.path))
            self.calibration = find_calibration(digest, self.settings.ensemble.calibration_file, cache_dir() / "calibration")
        except Exception as exc:  # noqa: BLE001 - a bad calibration file must not stop the server
            self.calibration = None
            self.log(f"qualm: calibration not used: {exc}", types.MessageType.Warning)
        cal = self.calibration.describe() if self.calibration else "none (raw scores only)"
        self.log(f"qualm: {self.backend.info.name} ready ({self.backend.info.n_threads} threads, {self.backend.info.n_gpu_layers} GPU layers); calibration: {cal}")
        self.set_status("ready", self.backend.info.name)

    async def run_model(self, fn: Callable[[ModelBackend, CancelToken], Any], key: str | None = None, cancel: CancelToken | None = None) -> Any:
        """Run model work on the worker; cancelling the awaiting task cancels the work."""
        if self.backend is None and self.state != "loading":
            raise ModelUnavailable(f"the model is not ready ({self.state}: {self.state_message})")

        def job(token: CancelToken) -> Any:
            backend = self.backend  # the model of this moment: a reload queued before us has finished
            if backend is None:
                raise ModelUnavailable(f"the model is not ready ({self.state}: {self.state_message})")
            return fn(backend, token)

        future, token = self.worker.submit(job, key=key, cancel=cancel)
        if self.state == "ready":
            self.set_status("busy", "working")
        try:
            return await future
        except asyncio.CancelledError:
            token.cancel()  # $/cancelRequest: the model stops at the next token
            raise

    def _worker_idle(self) -> None:
        # Back to ready when the model really has nothing to do, not when a request stopped waiting.
        if self.state == "busy" and self.backend is not None and not self.worker.busy:
            self.set_status("ready", self.backend.info.name)

    # -- settings ------------------------------------------------------------------------------

    def apply_settings(self, data: Any) -> bool:
        """Replace the settings from client data; True if the model must be reloaded."""
        if isinstance(data, dict) and isinstance(data.get("qualm"), dict):
            data = data["qualm"]
        if not data:
            return False
        try:
            new = Settings.from_mapping(data)
        except SettingsError as exc:
            self.log(f"qualm: settings ignored: {exc}", types.MessageType.Error)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"qualm: {exc}"))
            return False
        reload = new.model != self.settings.model
        self.settings = new
        return reload

    # -- documents -----------------------------------------------------------------------------

    def doc_state(self, uri: str) -> DocumentState:
        state = self.docs.get(uri)
        if state is None:
            state = DocumentState(self.workspace.get_text_document(uri).source)
            self.docs[uri] = state
        return state

    def document(self, uri: str) -> TextDocument:
        if uri not in self.workspace.text_documents:
            raise UnknownDocument(f"qualm has no open document {uri}")
        return self.workspace.get_text_document(uri)

    def to_ranges(self, doc: TextDocument, spans: Iterable[tuple[int, int]]) -> list[types.Range]:
        return client_ranges(doc, self.workspace.position_codec, spans)

    def to_range(self, doc: TextDocument, start: int, end: int) -> types.Range:
        return self.to_ranges(doc, [(start, end)])[0]

    def remember_trace(self, trace_id: str, trace: Trace) -> None:
        self.traces[trace_id] = trace
        while len(self.traces) > 32:
            self.traces.popitem(last=False)


def client_ranges(doc: TextDocument, codec: PositionCodec, spans: Iterable[tuple[int, int]]) -> list[types.Range]:
    """Character offsets to client ranges, splitting the document into lines once for all spans
    (pygls's per-offset conversion splits and scans the whole text every time)."""
    lines = doc.lines
    starts = list(accumulate(map(len, lines), initial=0))

    def position(offset: int) -> types.Position:
        if offset >= starts[-1]:
            server = types.Position(line=len(lines), character=0)  # past the end, where pygls places it
        else:
            line = bisect_right(starts, offset) - 1
            server = types.Position(line=line, character=offset - starts[line])
        return codec.position_to_client_units(lines, server)

    return [types.Range(start=position(a), end=position(b)) for a, b in spans]


class ModelUnavailable(RuntimeError):
    pass


class UnknownDocument(ValueError):
    pass


def create_server() -> QualmServer:
    from .features import assess, codelens, completion, diagnostics, documents, hover, lifecycle  # noqa: PLC0415

    server = QualmServer()
    for feature in (lifecycle, documents, diagnostics, hover, codelens, assess, completion):
        feature.register(server)
    return server


def serve() -> None:
    create_server().start_io()
