"""Completions with uncertainty: ``qualm/complete`` streams tokens as partial results (``$/progress``
with the request's partialResultToken); ``textDocument/inlineCompletion`` answers generic clients
with the final text; ``qualm/accepted`` turns the accepted text of a recent completion into marks
and diagnostics. The engine places every token; this module only translates to and from LSP."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from ... import engine
from ...engine import CompletionOptions, PlacedToken
from ...engine.completion import Completion, CompletionDoubt, display_name
from ...engine.context_chunks import OpenDocument, context_chunks
from ...prompts import ContextChunk
from ..marks import Mark
from ..params import get as _get
from ..params import invalid as _invalid
from ..params import plain as _plain
from ..presentation import token_json
from ..protocol import ACCEPTED, COMPLETE
from ..server import QualmServer, UnknownDocument
from .diagnostics import publish


def _options(raw: dict) -> CompletionOptions:
    """A request's ``options`` ({maxTokens, temperature, topP, seed}, each optional)."""
    max_tokens = raw.get("maxTokens")
    seed = raw.get("seed")
    return CompletionOptions(
        max_tokens=None if max_tokens is None else int(max_tokens),
        temperature=float(raw.get("temperature", 0.0)),
        top_p=float(raw.get("topP", 1.0)),
        seed=None if seed is None else int(seed),
    )


def doubt_json(doubt: CompletionDoubt | None) -> dict[str, Any] | None:
    """A completion's doubt as the client shows it (the status bar while it streams)."""
    if doubt is None:
        return None
    return {"maxEntropy": round(doubt.max_entropy, 3), "topKEntropy": round(doubt.top_k_entropy, 3), "minProb": round(doubt.min_prob, 4), "level": doubt.level, "tokens": doubt.tokens}


def _context(ls: QualmServer, uri: str) -> list[ContextChunk]:
    """Other open documents of the same language, and what was edited in them lately."""
    state = ls.docs.get(uri)
    if state is None:
        return []
    docs = [
        OpenDocument(display_name(u), s.text, tuple(s.edited), s.last_edit)
        for u, s in ls.docs.items()
        if s.language.name == state.language.name
    ]
    return context_chunks(docs, display_name(uri))


def _describe(result: Completion) -> str:
    """One line for the log: which prompt, how much of it was cached, how long."""
    first = f", first token {result.first_token_seconds:.2f} s" if result.first_token_seconds is not None else ""
    reused = f" ({result.reused_prompt_tokens} cached)" if result.prompt_kind == "fim" else ""
    if result.context_files:
        reused += f" with {', '.join(result.context_files)}"
    doubt = f", doubt {result.doubt.level} (max entropy {result.doubt.max_entropy:.2f} nats)" if result.doubt else ""
    again = ", asked again from the cursor (the healed prompt's completion was empty)" if result.attempts > 1 else ""
    if result.second_choice:
        again += ", begun with the model's second choice of first token (its first led to nothing the stop rules kept)"
    return f"completion: {result.prompt_kind} prompt of {result.prompt_tokens} tokens{reused}{first}, {len(result.tokens)} tokens in {result.seconds:.2f} s, stopped: {result.stop_reason}{f' ({result.end_rule})' if result.end_rule else ''}{doubt}{again}"


async def _complete(ls: QualmServer, uri: str, position: types.Position, options: CompletionOptions, partial_token: Any) -> dict[str, Any]:
    doc, document = ls.document(uri)
    offset = doc.offset_at_position(position)
    settings = ls.settings_for(uri)
    context = _context(ls, uri)
    loop = asyncio.get_running_loop()
    k, thresholds = settings.lexical.top_k, settings.lexical.level_thresholds
    so_far: list[PlacedToken] = []

    def on_token(t: PlacedToken) -> None:  # on the model thread
        so_far.append(t)
        value = {"text": t.text, "tokens": [token_json(t, offset)], "doubt": doubt_json(CompletionDoubt.of(so_far, k, thresholds))}
        loop.call_soon_threadsafe(ls.protocol.notify, types.PROGRESS, types.ProgressParams(token=partial_token, value=value))

    def on_restart() -> None:  # on the model thread: the client drops what it was sent so far
        so_far.clear()
        value = {"text": "", "tokens": [], "doubt": None, "restart": True}
        loop.call_soon_threadsafe(ls.protocol.notify, types.PROGRESS, types.ProgressParams(token=partial_token, value=value))

    stream, restart = (on_token, on_restart) if partial_token is not None else (None, None)
    result = await ls.run_model(
        lambda backend, token: engine.complete(backend, document, offset, settings, options, on_token=stream, cancel=token, context=context, on_restart=restart),
        key=f"complete:{uri}",
        urgent=True,  # ghost text does not wait for an assessment (worker.py)
    )
    ls.log(_describe(result))
    state = ls.docs.get(uri)
    if state is not None:
        state.completions.append(result)  # qualm/accepted names it by its text
    return {
        "text": result.text,
        "tokens": [token_json(t, offset) for t in result.tokens],
        "stopReason": result.stop_reason,
        "endRule": result.end_rule,
        "model": result.model,
        "seconds": result.seconds,
        "function": result.function,
        "promptKind": result.prompt_kind,
        "doubt": doubt_json(result.doubt),
        "firstTokenSeconds": result.first_token_seconds,
    }


def register(server: QualmServer) -> None:
    @server.feature(COMPLETE)
    async def on_complete(ls: QualmServer, params: Any) -> dict[str, Any]:
        p = _plain(params)
        uri = _get(p, "textDocument", "uri")
        pos = _get(p, "position")
        if not isinstance(uri, str) or not isinstance(pos, dict) or not isinstance(pos.get("line"), int) or not isinstance(pos.get("character"), int):
            raise _invalid("qualm/complete needs textDocument.uri and position {line, character}")
        try:
            options = _options(p.get("options") if isinstance(p.get("options"), dict) else {})
            return await _complete(ls, uri, types.Position(line=pos["line"], character=pos["character"]), options, p.get("partialResultToken"))
        except (UnknownDocument, ValueError, TypeError) as exc:
            raise _invalid(str(exc)) from exc

    @server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
    async def on_inline(ls: QualmServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
        try:
            result = await _complete(ls, params.text_document.uri, params.position, CompletionOptions(), None)
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
        uri = _get(p, "textDocument", "uri") or p.get("uri")
        text, start = p.get("text"), _get(p, "range", "start") or _get(p, "position")
        state = ls.docs.get(uri) if isinstance(uri, str) else None
        if state is None or not isinstance(text, str) or not isinstance(start, dict) or uri not in ls.workspace.text_documents:
            ls.log("qualm: ignored a malformed qualm/accepted (it needs textDocument.uri, range.start and text)")
            return
        completion = next((c for c in reversed(state.completions) if text and c.text.startswith(text)), None)
        if completion is None:
            ls.log(f"qualm: ignored qualm/accepted for text no recent completion of {uri} began with")
            return
        doc = ls.workspace.get_text_document(uri)
        try:
            at = doc.offset_at_position(types.Position(line=int(start.get("line", 0)), character=int(start.get("character", 0))))
        except (TypeError, ValueError):
            ls.log("qualm: ignored qualm/accepted with a malformed position")
            return
        state.text = doc.source
        fresh = [Mark(t.start, t.end, t) for t in completion.accepted(at, text, doc.source)]
        taken = {(m.start, m.end) for m in fresh}
        state.marks = sorted([m for m in state.marks if (m.start, m.end) not in taken] + fresh, key=lambda m: m.start)
        publish(ls, uri)
