"""Assessment and the commands: ``qualm/assess`` (a request with client-initiated, cancellable
work-done progress: the VS Code extension's notification), qualm.assessFunction (the same as a
command, with server-initiated progress, for code lenses in any client), qualm.scoreDocument,
qualm.clear and qualm.status. A function is named, or found from a position inside it."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ... import engine
from ...engine import AssessmentCancelled
from ...lang import FunctionSource, SourceError
from ...model import CancelToken
from ..marks import Mark
from ..params import get as _get
from ..params import plain as _plain
from ..presentation import lens_title
from ..protocol import ASSESS, ASSESS_COMMAND, CLEAR_COMMAND, SCORE_COMMAND, STATUS_COMMAND
from ..server import ModelUnavailable, QualmServer, StoredAssessment, UnknownDocument
from .diagnostics import publish

AXIS_STEPS = {"lexical": 10, "algorithmic": 40, "functional": 85, "done": 100}


def _error(exc: Exception) -> Exception:
    return JsonRpcInvalidParams.of(exc) if isinstance(exc, (SourceError, UnknownDocument, ValueError, TypeError)) else exc


def register(server: QualmServer) -> None:
    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_progress_cancel(ls: QualmServer, params: types.WorkDoneProgressCancelParams) -> None:
        token = ls.progress_cancels.get(str(params.token))
        if token is not None:
            token.cancel()

    @server.command(ASSESS_COMMAND)
    async def assess_cmd(ls: QualmServer, *args: Any) -> dict:
        uri, target = _uri_and_target(args)
        fn = _function(ls, uri, target)
        cancel = CancelToken()
        progress = await _begin_progress(ls, f"qualm: assessing {fn.name}", cancel)
        return await _assess(ls, uri, fn, progress, cancel)

    @server.feature(ASSESS)
    async def assess_request(ls: QualmServer, params: Any) -> dict:
        p = _plain(params)
        uri = _get(p, "textDocument", "uri")
        target = p.get("function") or p.get("position")
        if not isinstance(uri, str) or not isinstance(target, (str, dict)):
            raise _error(ValueError("qualm/assess needs textDocument.uri and a function name or a position"))
        fn = _function(ls, uri, target)
        cancel = CancelToken()
        token = p.get("workDoneToken")
        progress = None
        if isinstance(token, (str, int)):  # the client made the progress: it shows it, we report to it
            progress = _start_progress(ls, token, f"qualm: assessing {fn.name}", cancel)
        return await _assess(ls, uri, fn, progress, cancel)

    @server.command(SCORE_COMMAND)
    async def score_cmd(ls: QualmServer, *args: Any) -> dict:
        uri = _uri(args)
        try:
            _, document = ls.document(uri)
            document.functions()  # a file that does not parse is refused now, not on the model thread
        except (SourceError, UnknownDocument) as exc:
            raise _error(exc) from exc
        settings = ls.settings_for(uri)
        result = await ls.run_model(lambda backend, token: engine.score_document(backend, document, settings, cancel=token), key=f"score:{uri}", large=True)
        state = ls.docs.get(uri)
        if state is None or state.text != document.text:
            return {"stale": True}  # edited (or closed) while scoring: these offsets no longer fit
        kept = [m for m in state.marks if m.data.origin != "score"]
        state.marks = sorted(kept + [Mark(t.start, t.end, t) for t in result.tokens], key=lambda m: m.start)
        publish(ls, uri)
        return {"functions": [f.function for f in result.functions], "marks": len(state.marks)}

    @server.command(CLEAR_COMMAND)
    def clear_cmd(ls: QualmServer, *args: Any) -> dict:
        uris = [args[0]] if args and isinstance(args[0], str) else list(ls.docs)
        for uri in uris:
            state = ls.docs.get(uri)
            if state is not None:
                state.marks, state.assessments = [], {}
                publish(ls, uri)
        _refresh_lenses(ls)
        return {"cleared": uris}

    @server.command(STATUS_COMMAND)
    def status_cmd(ls: QualmServer, *args: Any) -> dict:
        return ls.status()


async def _assess(ls: QualmServer, uri: str, fn: FunctionSource, progress: str | int | None, cancel: CancelToken) -> dict:
    loop = asyncio.get_running_loop()

    def on_progress(stage: str, message: str) -> None:  # called on the model thread
        if progress is not None:
            loop.call_soon_threadsafe(
                ls.work_done_progress.report, progress, types.WorkDoneProgressReport(message=f"{stage}: {message}", percentage=AXIS_STEPS.get(stage, None), cancellable=True)
            )

    settings, calibration, samples, roots = ls.settings_for(uri), ls.calibration, ls.samples, ls.import_roots(uri)
    try:
        a = await ls.run_model(
            lambda backend, token: engine.assess_function(backend, fn, settings, calibration, on_progress, token, samples, roots), key=f"assess:{uri}:{fn.name}", cancel=cancel, large=True,
        )
    except AssessmentCancelled:
        _end_progress(ls, progress, "cancelled")
        return {"function": fn.name, "cancelled": True}
    except ModelUnavailable as exc:
        _end_progress(ls, progress, str(exc))
        raise
    except BaseException:
        _end_progress(ls, progress, "stopped")
        raise
    state = ls.docs.get(uri)
    if state is not None:  # closed meanwhile: the result is still returned, nothing is kept
        state.assessments[fn.name] = StoredAssessment(a, fn.source)
        publish(ls, uri)  # the suspect line's diagnostic
    summary = lens_title(a, False, settings.editor.headline)
    _end_progress(ls, progress, summary)
    _refresh_lenses(ls)
    return {"function": a.function, "summary": summary, "assessment": a.to_dict()}


def _function(ls: QualmServer, uri: str, target: str | dict) -> FunctionSource:
    """The function to assess, resolved once here: the model thread gets this very function (a name
    looked up again could be another function of the same name)."""
    try:
        _, document = ls.document(uri)
        if isinstance(target, str):
            return document.function(target)
        line = target.get("line")
        if not isinstance(line, int):
            raise ValueError("a position needs an integer line")
        return document.function(line + 1)
    except (SourceError, UnknownDocument, ValueError) as exc:
        raise _error(exc) from exc


def _uri(args: tuple) -> str:
    if not args or not isinstance(args[0], str):
        raise _error(ValueError("expected the document's URI as the first argument"))
    return args[0]


def _uri_and_target(args: tuple) -> tuple[str, str | dict]:
    uri = _uri(args)
    target = args[1] if len(args) > 1 else None
    if hasattr(target, "_asdict"):  # pygls hands JSON objects over as namedtuples
        target = target._asdict()
    if not (isinstance(target, str) and target) and not isinstance(target, dict):
        raise _error(ValueError("expected [uri, function name] or [uri, {line, character}]"))
    return uri, target


async def _begin_progress(ls: QualmServer, title: str, cancel: CancelToken) -> str | int | None:
    caps = ls.client_capabilities.window
    if caps is None or not caps.work_done_progress:
        return None
    token = f"qualm-{uuid.uuid4()}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:  # noqa: BLE001 - the client refused: run without progress
        return None
    return _start_progress(ls, token, title, cancel)


def _start_progress(ls: QualmServer, token: str | int, title: str, cancel: CancelToken) -> str | int:
    """Begin cancellable progress on a token (ours or the client's); a cancel from the client stops ``cancel``."""
    ls.progress_cancels[str(token)] = cancel
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0))
    return token


def _end_progress(ls: QualmServer, token: str | int | None, message: str) -> None:
    if token is None:
        return
    ls.progress_cancels.pop(str(token), None)
    ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


def _refresh_lenses(ls: QualmServer) -> None:
    caps = ls.client_capabilities.workspace
    if caps is not None and caps.code_lens is not None and caps.code_lens.refresh_support:
        ls.workspace_code_lens_refresh(None)
