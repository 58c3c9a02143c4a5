"""Completions with uncertainty: ``qualm/complete`` streams tokens as partial results (``$/progress``
with the request's partialResultToken); ``textDocument/inlineCompletion`` answers generic clients
with the final text; ``qualm/accepted`` turns an accepted completion into marks and diagnostics."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import asdict, replace
from typing import Any, Iterable

from lsprotocol import types

from ...completion_context import CompletionContext, PrefixTrimmer, Reindenter, completion_context
from ...marks import Mark
from ...model import GenerationOptions
from ...signals.lexical import lexical_report
from ...trace import TokenRecord, Trace
from ..presentation import TokenInfo
from ..server import QualmServer, UnknownDocument
from ..params import get as _get, invalid as _invalid, plain as _plain
from .diagnostics import publish

COMPLETE = "qualm/complete"
ACCEPTED = "qualm/accepted"


def _token_json(rec: TokenRecord, thresholds) -> dict[str, Any]:
    info = TokenInfo.of(rec, thresholds, "completion")
    return {
        "text": rec.text,
        "start": rec.start,
        "end": rec.end,
        "entropy": rec.entropy,
        "prob": rec.prob,
        "level": info.level,
        "alternatives": [{"text": a.text, "prob": a.prob} for a in rec.alternatives],
    }


class Placement:
    """From the model's tokens to the text inserted at the cursor: the healed whitespace trimmed, the
    function's indentation put back, each record moved to its offsets in the inserted text. The
    stream and the final result go through the same steps."""

    def __init__(self, ctx: CompletionContext) -> None:
        self._trim = PrefixTrimmer(ctx.heal)
        self._indent = Reindenter(ctx.indent)
        self._length = 0

    def place(self, rec: TokenRecord) -> TokenRecord:
        piece = self._indent.feed(self._trim.feed(rec.text))
        start, self._length = self._length, self._length + len(piece)
        return replace(rec, text=piece, start=start, end=self._length)


def placed(tokens: Iterable[TokenRecord], ctx: CompletionContext) -> tuple[str, list[TokenRecord]]:
    """The completion as inserted, and each token record moved to its place in that text."""
    placement = Placement(ctx)
    out = [placement.place(rec) for rec in tokens]
    return "".join(r.text for r in out), out


async def _complete(ls: QualmServer, uri: str, position: types.Position, options: dict, partial_token: Any) -> dict[str, Any]:
    doc = ls.document(uri)
    offset = doc.offset_at_position(position)
    ctx = completion_context(doc.source, offset)
    settings = ls.settings
    thresholds = settings.lexical.level_thresholds
    max_tokens = int(options.get("maxTokens", settings.editor.completion_max_tokens))
    gen = GenerationOptions(
        max_tokens=max(1, min(max_tokens, settings.generation.max_tokens)),
        temperature=float(options.get("temperature", 0.0)),
        top_p=float(options.get("topP", 1.0)),
        seed=int(options.get("seed", settings.generation.seed)),
        top_alternatives=settings.generation.top_alternatives,
    )
    loop = asyncio.get_running_loop()
    stream = Placement(ctx)

    def on_token(rec: TokenRecord) -> None:  # on the model thread
        if partial_token is None:
            return
        moved = stream.place(rec)
        value = {"text": moved.text, "tokens": [_token_json(moved, thresholds)]}
        loop.call_soon_threadsafe(ls.protocol.notify, types.PROGRESS, types.ProgressParams(token=partial_token, value=value))

    trace = await ls.run_model(lambda backend, token: backend.generate(ctx.prompt, gen, on_token=on_token, cancel=token), key=f"complete:{uri}")
    text, records = placed(trace.tokens, ctx)
    trace_id = str(uuid.uuid4())
    ls.remember_trace(trace_id, Trace(text=text, tokens=tuple(records), model=trace.model, mode=trace.mode, stop_reason=trace.stop_reason, seconds=trace.seconds))
    lex = lexical_report(trace, settings.lexical.top_k)
    return {
        "traceId": trace_id,
        "text": text,
        "tokens": [_token_json(r, thresholds) for r in records],
        "lexical": asdict(lex),
        "stopReason": trace.stop_reason,
        "model": trace.model,
        "seconds": trace.seconds,
        "function": ctx.function,
    }


def register(server: QualmServer) -> None:
    @server.feature(COMPLETE)
    async def on_complete(ls: QualmServer, params: Any) -> dict[str, Any]:
        p = _plain(params)
        uri = _get(p, "textDocument", "uri")
        pos = _get(p, "position")
        if not isinstance(uri, str) or not isinstance(pos, dict) or not isinstance(pos.get("line"), int) or not isinstance(pos.get("character"), int):
            raise _invalid("qualm/complete needs textDocument.uri and position {line, character}")
        options = p.get("options") if isinstance(p.get("options"), dict) else {}
        try:
            return await _complete(ls, uri, types.Position(line=pos["line"], character=pos["character"]), options, p.get("partialResultToken"))
        except (UnknownDocument, ValueError, TypeError) as exc:
            raise _invalid(str(exc)) from exc

    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def on_inline(ls: QualmServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
        try:
            result = await _complete(ls, params.text_document.uri, params.position, {}, None)
        except UnknownDocument:
            return types.InlineCompletionList(items=[])
        if not result["text"]:
            return types.InlineCompletionList(items=[])
        return types.InlineCompletionList(
            items=[types.InlineCompletionItem(insert_text=result["text"], range=types.Range(start=params.position, end=params.position))]
        )

    @server.feature(ACCEPTED)
    def on_accepted(ls: QualmServer, params: Any) -> None:
        p = _plain(params)
        uri, trace_id, start = _get(p, "textDocument", "uri") or p.get("uri"), p.get("traceId"), _get(p, "range", "start") or _get(p, "position")
        trace = ls.traces.get(trace_id) if isinstance(trace_id, str) else None
        if not isinstance(uri, str) or trace is None or not isinstance(start, dict) or uri not in ls.workspace.text_documents:
            ls.log(f"qualm: ignored qualm/accepted for an unknown completion ({trace_id!r})")
            return
        doc = ls.workspace.get_text_document(uri)
        base = doc.offset_at_position(types.Position(line=int(start.get("line", 0)), character=int(start.get("character", 0))))
        state = ls.doc_state(uri)
        state.text = doc.source
        thresholds = ls.settings.lexical.level_thresholds
        fresh = [Mark(base + r.start, base + r.end, TokenInfo.of(r, thresholds, "completion")) for r in trace.tokens if r.text.strip()]
        fresh = [m for m in fresh if doc.source[m.start : m.end] == m.data.text]  # only text that is really there
        taken = {(m.start, m.end) for m in fresh}
        state.marks = sorted([m for m in state.marks if (m.start, m.end) not in taken] + fresh, key=lambda m: m.start)
        publish(ls, uri)
