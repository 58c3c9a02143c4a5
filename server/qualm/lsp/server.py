"""qualm's language server: state and model wiring; the features are thin modules over the engine.

State lives on the server object (settings, the model, per-document marks, completions and
assessments). Settings are kept per workspace folder (a document reads its folder's with
:meth:`QualmServer.settings_for`); the model and the calibration file are one per server, from the
window's settings. Each LSP feature is a module under ``qualm.lsp.features`` that registers its
handlers on a server (``qualm.lsp.app`` assembles them); nothing here imports a feature.
"""

from __future__ import annotations

import asyncio
import logging
import time
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from dataclasses import fields as dataclass_fields
from itertools import accumulate
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.workspace import PositionCodec, TextDocument

from .. import __version__
from ..calibration_file import Calibration
from ..engine import Assessment, Completion, Document, PlacedToken, SampleCache, calibration_for, roots_for
from ..engine.regeneration import Regeneration
from ..lang import FunctionSource, ImportRoots, Language
from ..model import CancelToken, ModelBackend, ModelUnreachable, load_model
from ..model.file_stamp import FileStamp, changed_model_message
from ..settings import Settings, SettingsError
from .heap import release_free_memory
from .marks import Mark
from .protocol import STATUS
from .protocol_io import AnsweringProtocol
from .worker import ModelWorker

log = logging.getLogger("qualm.lsp")

RECENT_COMPLETIONS = 4  # per document: qualm/accepted names one of these by its text
RECENT_EDITS = 4  # per document: edited regions that completions elsewhere are shown


@dataclass
class StoredAssessment:
    assessment: Assessment
    source: str  # the function's source when it was assessed: a different source makes it stale


@dataclass
class DocumentState:
    language: Language
    text: str  # as of the last change we applied to the marks
    marks: list[Mark[PlacedToken]] = field(default_factory=list)
    assessments: dict[str, StoredAssessment] = field(default_factory=dict)
    completions: deque[Completion] = field(default_factory=lambda: deque(maxlen=RECENT_COMPLETIONS))
    # The functions of one version of the text (hover and code lens ask often; parsing is not free).
    parsed: tuple[str, list[FunctionSource]] | None = None
    # The last rewrite offered from a marked token (qualm.engine.regeneration), with the text the
    # document will have once it is taken: when the document becomes that text (the user took the
    # edit, however the client reports the change), the rewrite's tokens become marks.
    pending: tuple[Regeneration, str] | None = None
    # Line ranges edited lately (0-based, the latest last) and when: what other documents'
    # completions are shown of this one (qualm.engine.context_chunks).
    edited: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=RECENT_EDITS))
    last_edit: float = 0.0
    # The publish of marks and diagnostics waiting for a pause in typing (features.diagnostics).
    publish_timer: asyncio.TimerHandle | None = None

    def note_edit(self, first: int, last: int) -> None:
        """An edit of lines ``first``..``last``: merged with the latest when they touch."""
        if self.edited and self.edited[-1][0] - 1 <= last and first <= self.edited[-1][1] + 1:
            a, b = self.edited.pop()
            first, last = min(a, first), max(b, last)
        self.edited.append((first, last))
        self.last_edit = time.monotonic()

    def offer(self, rewrite: Regeneration) -> None:
        self.pending = (rewrite, self.text[: rewrite.start] + rewrite.text + self.text[rewrite.end :])

    def take_pending(self) -> bool:
        """Called after every change: when the text is now the pending rewrite's, its tokens become
        the marks of the rewritten range (replacing any there). True if it was."""
        if self.pending is None or self.pending[1] != self.text:
            return False
        rewrite = self.pending[0]
        self.pending = None
        start, stop = rewrite.start, rewrite.start + len(rewrite.text)
        fresh = [Mark(t.start, t.end, t) for t in rewrite.completion.accepted(start, rewrite.text, self.text)]
        kept = [m for m in self.marks if m.end <= start or m.start >= stop]
        self.marks = sorted(kept + fresh, key=lambda m: m.start)
        return True

    def functions(self, document: Document) -> list[FunctionSource]:
        """The document's functions, parsed once per text; :class:`SourceError` when it does not parse."""
        if self.parsed is None or self.parsed[0] is not document.text:
            self.parsed = (document.text, document.functions())
        return self.parsed[1]

    def current_assessments(self, document: Document) -> list[tuple[FunctionSource, Assessment]]:
        """Each stored assessment whose function is still as it was assessed, with that function as
        it stands in ``document`` (its line may have moved); :class:`SourceError` when it does not parse."""
        functions = {fn.name: fn for fn in self.functions(document)}
        return [(fn, stored.assessment) for name, stored in self.assessments.items() if (fn := functions.get(name)) is not None and fn.source == stored.source]


class QualmServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("qualm", __version__, protocol_cls=AnsweringProtocol)
        # The window's settings (the answer without a scope): the model and the calibration file
        # (one per server), features not tied to a document, and documents outside every folder.
        self.settings = Settings()
        # Each workspace folder's settings by the folder's URI (its own answer), with the model and
        # the calibration file taken from the window's: settings_for(uri) picks a document's.
        self.folder_settings: dict[str, Settings] = {}
        self._told: set[tuple[str, str, str]] = set()  # (folder, setting, value) said once in the log
        self.backend: ModelBackend | None = None
        self.model_stamp: FileStamp | None = None  # the loaded model's file as it was (file_stamp.py)
        self.calibration: Calibration | None = None
        # The plans and tests of problems assessed before, for this model: re-assessing an edited
        # function decodes only the code's own plan (qualm.engine.samples).
        self.samples = SampleCache()
        self.worker = ModelWorker(on_idle=self._worker_idle)
        self.docs: dict[str, DocumentState] = {}
        self.state = "loading"
        self.state_message = "starting"
        self.progress_cancels: dict[str, CancelToken] = {}

    # -- status and logging --------------------------------------------------------------------

    def set_status(self, state: str, message: str = "") -> None:
        self.state, self.state_message = state, message
        info = self.backend.info if self.backend is not None else None
        self.protocol.notify(STATUS, {"state": state, "message": message, "model": None if info is None else info.name, "modelPath": None if info is None else info.identity.locator})

    def status(self) -> dict[str, Any]:
        info = None if self.backend is None else self.backend.info
        return {
            "state": self.state,
            "message": self.state_message,
            "model": None if info is None else info.name,
            "modelPath": None if info is None else info.identity.locator,
            "backend": None if info is None else info.backend,
            "capabilities": None if info is None else info.capabilities.describe(),
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

        def job(cancel: CancelToken) -> tuple[ModelBackend, Calibration | None, str | None]:
            # Runs on the worker, so no other model job can be using the old model meanwhile; the
            # new one is in place before the next queued job starts. Hashing the file for the
            # calibration lookup happens here too, off the event loop.
            old, self.backend = self.backend, None
            if old is not None:
                old.close()
            self.samples.clear()
            self.backend = load_model(settings.model)
            self.model_stamp = FileStamp.of(self.backend.info.identity.locator)
            calibration, problem = self._find_calibration(self.backend, settings)
            return self.backend, calibration, problem

        future, _ = self.worker.submit(job, key="model")
        future.add_done_callback(self._model_loaded)

    @staticmethod
    def _find_calibration(backend: ModelBackend, settings: Settings) -> tuple[Calibration | None, str | None]:
        try:
            return calibration_for(backend.info.identity, settings.ensemble), None
        except Exception as exc:  # noqa: BLE001 - a bad calibration file must not stop the server
            return None, str(exc)

    def _model_loaded(self, future: asyncio.Future) -> None:
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None:
            self.backend = None
            self.set_status("error", str(exc))
            self.log(f"qualm: the model could not be loaded: {exc}", types.MessageType.Error)
            return
        backend, calibration, problem = future.result()
        self._use_calibration(calibration, problem)
        cal = self.calibration.describe() if self.calibration else "none (raw scores only)"
        self.log(f"qualm: {backend.info.summary()} ready; calibration: {cal}")
        # what it can do: "entropy bounds, no scoring of existing code" matters for a served model
        self.set_status("ready", backend.info.summary())

    def _use_calibration(self, calibration: Calibration | None, problem: str | None) -> None:
        self.calibration = calibration
        if problem is not None:
            self.log(f"qualm: calibration not used: {problem}", types.MessageType.Warning)

    def reload_calibration(self) -> None:
        """Settle the calibration again (``ensemble.calibration_file`` changed), on the worker: the
        file's hash may need computing, and the model must stay the one it was looked up for."""
        settings = self.settings

        def job(cancel: CancelToken) -> tuple[Calibration | None, str | None]:
            if self.backend is None:
                return None, None
            return self._find_calibration(self.backend, settings)

        future, _ = self.worker.submit(job, key="calibration")

        def done(f: asyncio.Future) -> None:
            if not f.cancelled() and f.exception() is None:
                self._use_calibration(*f.result())
                cal = self.calibration.describe() if self.calibration else "none (raw scores only)"
                self.log(f"qualm: calibration now {cal}")

        future.add_done_callback(done)

    async def run_model(
        self, fn: Callable[[ModelBackend, CancelToken], Any], key: str | None = None, cancel: CancelToken | None = None, urgent: bool = False, large: bool = False
    ) -> Any:
        """Run model work on the worker; cancelling the awaiting task cancels the work. ``urgent``
        (someone watches the cursor): before other work, and at a long job's checkpoints (worker.py).
        ``large`` (a scoring pass, an assessment): the heap's freed pages go back to the system
        after it, on the worker (qualm.lsp.heap)."""
        if self.backend is None and self.state != "loading":
            raise ModelUnavailable(f"the model is not ready ({self.state}: {self.state_message})")

        loop = asyncio.get_running_loop()

        def job(token: CancelToken) -> Any:
            backend = self.backend  # the model of this moment: a reload queued before us has finished
            if backend is None:
                raise ModelUnavailable(f"the model is not ready ({self.state}: {self.state_message})")
            self._check_model_file(backend, loop)
            try:
                return fn(backend, token)
            finally:
                if large:
                    release_free_memory()

        future, token = self.worker.submit(job, key=key, cancel=cancel, urgent=urgent)
        if self.state == "ready":
            self.set_status("busy", "working")
        started = time.perf_counter()
        try:
            result = await future
        except asyncio.CancelledError:
            token.cancel()  # $/cancelRequest: the model stops at the next token
            self._log_job(key, f"cancelled after {time.perf_counter() - started:.1f} s")
            raise
        except ModelUnreachable as exc:
            # the inference server failed after start-up (down, overloaded, cut mid-answer): the
            # status bar says so until a request gets through again; what was shown stays
            self.set_status("unreachable", str(exc))
            self.log(f"qualm: the model server failed: {exc}", types.MessageType.Warning)
            raise
        except Exception as exc:
            outcome = "cancelled" if token.cancelled else f"failed ({type(exc).__name__}: {exc})"
            self._log_job(key, f"{outcome} after {time.perf_counter() - started:.1f} s", failed=not token.cancelled)
            raise
        self._log_job(key, f"done in {time.perf_counter() - started:.1f} s")
        if self.state == "unreachable" and self.backend is not None:
            self.set_status("busy" if self.worker.busy else "ready", "working" if self.worker.busy else self.backend.info.summary())
        return result

    def _check_model_file(self, backend: ModelBackend, loop: asyncio.AbstractEventLoop) -> None:
        """On the worker, before model work: a model whose memory-mapped file changed on disk is
        closed before it reads a page that is gone (SIGBUS would kill the server), and every
        request is refused with a message naming the file until qualm restarts."""
        stamp = self.model_stamp
        what = stamp.change() if stamp is not None else None
        if stamp is None or what is None:
            return
        message = changed_model_message(stamp, what)
        self.backend, self.model_stamp = None, None
        backend.close()
        self.samples.clear()
        loop.call_soon_threadsafe(self._model_file_changed, message)
        raise ModelUnavailable(message)

    def _model_file_changed(self, message: str) -> None:
        self.set_status("error", message)
        self.log(f"qualm: {message}", types.MessageType.Error)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"qualm: {message}"))

    def _log_job(self, key: str | None, outcome: str, failed: bool = False) -> None:
        # One line per piece of model work, so the output channel says what the model did and how
        # long it took; completions come on every pause in typing, so theirs are debug-level.
        if key is None:
            return
        kind = types.MessageType.Warning if failed else types.MessageType.Debug if key.startswith("complete:") else types.MessageType.Info
        self.log(f"qualm: {key}: {outcome}", kind)

    def _worker_idle(self) -> None:
        # Back to ready when the model really has nothing to do, not when a request stopped waiting.
        if self.state == "busy" and self.backend is not None and not self.worker.busy:
            self.set_status("ready", self.backend.info.summary())

    # -- settings ------------------------------------------------------------------------------

    def settings_for(self, uri: str | None) -> Settings:
        """The settings of the document at ``uri``: those of the workspace folder it is in (the
        deepest, when folders nest), else the window's (an untitled document, a file outside the
        folders, a folder whose settings have not come yet)."""
        return _deepest(uri, self.folder_settings) or self.settings

    def document_settings(self) -> dict[str, Settings]:
        """Every open document's settings now: compared after a change, the documents to publish again."""
        return {uri: self.settings_for(uri) for uri in self.docs}

    def apply_configuration(self, window: Any, folders: dict[str, tuple[str, Any]]) -> bool:
        """Apply a ``workspace/configuration`` answer: the window's settings (no scope) and each
        folder's (folder URI -> (name, answer)). A folder whose settings are refused keeps its last
        good ones; a folder no longer open is forgotten. True if the model must be reloaded."""
        reload = self.apply_settings(window)
        kept = {uri: s for uri, s in self.folder_settings.items() if uri in folders}
        for uri, (name, data) in folders.items():
            if isinstance(data, dict) and isinstance(data.get("qualm"), dict):
                data = data["qualm"]
            if not data:
                continue  # no answer for this folder: its last settings, else the window's
            try:
                own = Settings.from_mapping(data)
            except SettingsError as exc:
                self.log(f"qualm: settings of the workspace folder {name} ignored (it keeps its previous ones): {exc}", types.MessageType.Error)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"qualm: workspace folder {name}: {exc}"))
                continue
            self._tell_server_wide(name, own)
            kept[uri] = own
        self.folder_settings = {uri: self._server_wide(s) for uri, s in kept.items()}
        return reload

    def _server_wide(self, own: Settings) -> Settings:
        """A folder's settings with what one server has once (the model, the calibration file) from
        the window's settings."""
        window = self.settings
        if own.model == window.model and own.ensemble.calibration_file == window.ensemble.calibration_file:
            return own
        return replace(own, model=window.model, ensemble=replace(own.ensemble, calibration_file=window.ensemble.calibration_file))

    def _tell_server_wide(self, folder: str, own: Settings) -> None:
        """Say once per value when a folder sets a model setting (or the calibration file) other than
        the window's: one model serves every folder, and which value it uses."""
        window = self.settings
        pairs = [(f"model.{f.name}", getattr(own.model, f.name), getattr(window.model, f.name)) for f in dataclass_fields(own.model)]
        pairs.append(("ensemble.calibration_file", own.ensemble.calibration_file, window.ensemble.calibration_file))
        for name, mine, used in pairs:
            if mine == used or (folder, name, repr(mine)) in self._told:
                continue
            self._told.add((folder, name, repr(mine)))
            self.log(
                f"qualm: the workspace folder {folder} sets qualm.{name} to {mine!r}, but one server runs one model for every folder: "
                f"it uses {used!r}, the window's value (user or workspace settings; the folder's own when it is opened alone)",
                types.MessageType.Warning,
            )

    def apply_settings(self, data: Any) -> bool:
        """Replace the window's settings from client data; True if the model must be reloaded (a
        changed calibration file alone is re-read at once)."""
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
        calibration_changed = new.ensemble.calibration_file != self.settings.ensemble.calibration_file
        self.settings = new
        if reload or calibration_changed:
            self.folder_settings = {uri: self._server_wide(s) for uri, s in self.folder_settings.items()}
        if calibration_changed and not reload and self.backend is not None:
            self.reload_calibration()
        return reload

    # -- documents -----------------------------------------------------------------------------

    def document(self, uri: str) -> tuple[TextDocument, Document]:
        """The open document (for positions) and the engine's view of it (text, name, language)."""
        state = self.docs.get(uri)
        if state is None or uri not in self.workspace.text_documents:
            raise UnknownDocument(f"qualm has no open document {uri} in a language it handles")
        doc = self.workspace.get_text_document(uri)
        return doc, Document(doc.source, uri, state.language)

    def import_roots(self, uri: str) -> ImportRoots | None:
        """Where the imports of the document at ``uri`` resolve when its tests run: its file's
        package, folder and workspace folder (the saved file's; None for an unsaved document)."""
        state = self.docs.get(uri)
        if state is None or not uri.startswith("file:") or (path := uris.to_fs_path(uri)) is None:
            return None
        folders = [Path(p) for f in self.workspace.folders.values() if (p := uris.to_fs_path(f.uri)) is not None]
        return roots_for(state.language, path, folders)

    def to_ranges(self, doc: TextDocument, spans: Iterable[tuple[int, int]]) -> list[types.Range]:
        return client_ranges(doc, self.workspace.position_codec, spans)

    def to_range(self, doc: TextDocument, start: int, end: int) -> types.Range:
        return self.to_ranges(doc, [(start, end)])[0]


def _deepest(uri: str | None, by_folder: dict[str, Settings]) -> Settings | None:
    """The value of the deepest folder (by URI) that holds ``uri``; None when none does. URIs are
    compared unquoted, so that the client's encoding of a character does not matter."""
    if not uri:
        return None
    target = unquote(uri)
    best: tuple[int, Settings] | None = None
    for folder, value in by_folder.items():
        root = unquote(folder).rstrip("/")
        if (target == root or target.startswith(root + "/")) and (best is None or len(root) > best[0]):
            best = (len(root), value)
    return None if best is None else best[1]


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
