"""Assessment and the commands: ``qualm/assess`` (a request with client-initiated, cancellable
work-done progress: the VS Code extension's notification), qualm.assessFunction (the same as a
command, with server-initiated progress, for code lenses in any client), qualm.scoreDocument,
qualm.clear and qualm.status. A function is named, or found from a position inside it."""

from __future__ import annotations

import asyncio
import uuid
from bisect import bisect_right
from typing import Any

from lsprotocol import types

from ... import engine
from ...assess import AssessmentCancelled, assess_function
from ...marks import Mark
from ...model import CancelToken
from ...pysource import FunctionSource, SourceError, find_function, function_at, functions_in
from ..presentation import TokenInfo, lens_title
from ..server import ModelUnavailable, QualmServer, StoredAssessment, UnknownDocument
from ..params import get as _get, plain as _plain
from .diagnostics import publish

ASSESS_REQUEST = "qualm/assess"
AXIS_STEPS = {"lexical": 10, "algorithmic": 40, "functional": 85, "done": 100}


def _error(exc: Exception) -> Exception:
    from pygls.exceptions import JsonRpcInvalidParams  # noqa: PLC0415

    return JsonRpcInvalidParams.of(exc) if isinstance(exc, (SourceError, UnknownDocument, ValueError, TypeError)) else exc


def register(server: QualmServer) -> None:
    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_progress_cancel(ls: QualmServer, params: types.WorkDoneProgressCancelParams) -> None:
        token = ls.progress_cancels.get(str(params.token))
        if token is not None:
            token.cancel()

    @server.command("qualm.assessFunction")
    async def assess_cmd(ls: QualmServer, *args: Any) -> dict:
        uri, target = _uri_and_target(args)
        fn = _function(ls, uri, target)
        cancel = CancelToken()
        progress = await _begin_progress(ls, f"qualm: assessing {fn.name}", cancel)
        return await _assess(ls, uri, fn, progress, cancel)

    @server.feature(ASSESS_REQUEST)
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

    @server.command("qualm.scoreDocument")
    async def score_cmd(ls: QualmServer, *args: Any) -> dict:
        uri = _uri(args)
        try:
            doc = ls.document(uri)
            functions = functions_in(doc.source, uri)
        except (SourceError, UnknownDocument) as exc:
            raise _error(exc) from exc
        text, settings = doc.source, ls.settings
        thresholds = settings.lexical.level_thresholds

        def job(backend, token):
            scored = []
            for fn in functions:
                if token.cancelled:
                    break
                scored.append((fn, engine.score_function(backend, fn, settings, cancel=token)))
            return scored

        results = await ls.run_model(job, key=f"score:{uri}")
        state = ls.doc_state(uri)
        if state.text != text:
            return {"stale": True}  # edited while scoring: these offsets no longer fit
        marks = [m for m in state.marks if m.data.source != "score"]
        for fn, result in results:
            to_doc = _offset_map(text, fn.line, result.trace.text)
            for rec in result.trace.tokens:
                if rec.start < result.body_offset or not rec.text.strip():
                    continue
                start, end = to_doc(rec.start), to_doc(rec.end - 1) + 1
                if text[start:end] == rec.text:  # a token over a re-indented line break is left out
                    marks.append(Mark(start, end, TokenInfo.of(rec, thresholds, "score")))
        state.marks = sorted(marks, key=lambda m: m.start)
        publish(ls, uri)
        return {"functions": [fn.name for fn, _ in results], "marks": len(state.marks)}

    @server.command("qualm.clear")
    def clear_cmd(ls: QualmServer, *args: Any) -> dict:
        uris = [args[0]] if args and isinstance(args[0], str) else list(ls.docs)
        for uri in uris:
            state = ls.docs.get(uri)
            if state is not None:
                state.marks, state.assessments = [], {}
                publish(ls, uri)
        _refresh_lenses(ls)
        return {"cleared": uris}

    @server.command("qualm.status")
    def status_cmd(ls: QualmServer, *args: Any) -> dict:
        return ls.status()


async def _assess(ls: QualmServer, uri: str, fn: FunctionSource, progress: str | int | None, cancel: CancelToken) -> dict:
    loop = asyncio.get_running_loop()

    def on_progress(stage: str, message: str) -> None:  # called on the model thread
        if progress is not None:
            loop.call_soon_threadsafe(
                ls.work_done_progress.report, progress, types.WorkDoneProgressReport(message=f"{stage}: {message}", percentage=AXIS_STEPS.get(stage, None), cancellable=True)
            )

    settings, calibration = ls.settings, ls.calibration
    try:
        a = await ls.run_model(lambda backend, token: assess_function(backend, fn, settings, calibration, on_progress, token), key=f"assess:{uri}:{fn.name}", cancel=cancel)
    except AssessmentCancelled:
        _end_progress(ls, progress, "cancelled")
        return {"function": fn.name, "cancelled": True}
    except ModelUnavailable as exc:
        _end_progress(ls, progress, str(exc))
        raise
    except BaseException:
        _end_progress(ls, progress, "stopped")
        raise
    ls.doc_state(uri).assessments[fn.name] = StoredAssessment(a, fn.source)
    _end_progress(ls, progress, lens_title(a, False))
    _refresh_lenses(ls)
    return {"function": a.function, "summary": lens_title(a, False), "assessment": a.to_dict()}


def _function(ls: QualmServer, uri: str, target: str | dict) -> FunctionSource:
    try:
        doc = ls.document(uri)
        if isinstance(target, str):
            return find_function(doc.source, target, uri)
        line = target.get("line")
        if not isinstance(line, int):
            raise ValueError("a position needs an integer line")
        return function_at(doc.source, line + 1, uri)
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


def _offset_map(document: str, first_line: int, source: str):
    """Offsets in a function's dedented source -> offsets in the document it came from.

    Dedenting removed some leading characters from each line (all of a blank line's); line by line,
    the document offset is that line's start plus what was removed plus the column in the source.
    """
    doc_lines = document.splitlines(keepends=True)
    doc_starts = [0]
    for line in doc_lines:
        doc_starts.append(doc_starts[-1] + len(line))
    src_lines = source.splitlines(keepends=True)
    src_starts = [0]
    for line in src_lines:
        src_starts.append(src_starts[-1] + len(line))
    removed = [len(doc_lines[first_line - 1 + i]) - len(src) if first_line - 1 + i < len(doc_lines) else 0 for i, src in enumerate(src_lines)]

    def to_doc(offset: int) -> int:
        i = max(0, min(len(src_lines) - 1, bisect_right(src_starts, offset) - 1))
        return doc_starts[first_line - 1 + i] + removed[i] + (offset - src_starts[i])

    return to_doc


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
