"""Acting on the doubt at a marked token: code actions "use ' max' instead (25 %)" for each of the
model's alternatives above ``editor.alternative_floor``, and "regenerate from here".

Any LSP client: the actions are resolvable (``codeAction/resolve``); resolving one runs the model
and returns the rewrite as a versioned WorkspaceEdit, applied only when the user picks the action
(Neovim applies it then; undo takes it back). The VS Code extension instead previews the rewrite,
streamed through ``qualm/regenerate`` (partial results like ``qualm/complete``), and applies it only
when the user accepts. Either way, when the document changes by exactly that edit, the new tokens
get their own marks."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from ...engine import PlacedToken
from ...engine.regeneration import Regeneration, choices, regenerate, rewrite_end, rewrite_start, run_end
from ..marks import Mark
from ..params import invalid as _invalid
from ..params import plain as _plain
from ..presentation import token_json
from ..protocol import REGENERATE
from ..server import QualmServer, UnknownDocument
from .fix import fix_actions

KIND = types.CodeActionKind.QuickFix


@dataclass(frozen=True)
class Target:
    """What an action acts on, as carried in its ``data``: a mark of one version of a document."""

    uri: str
    version: int
    start: int
    end: int
    choice: int  # index into the token's alternatives; -1: regenerate from here

    def to_data(self) -> dict[str, Any]:
        return {"qualm": "regenerate", "uri": self.uri, "version": self.version, "start": self.start, "end": self.end, "choice": self.choice}

    @classmethod
    def from_data(cls, data: Any) -> Target:
        d = _plain(data) if not isinstance(data, dict) else data
        try:
            return cls(str(d["uri"]), int(d["version"]), int(d["start"]), int(d["end"]), int(d["choice"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise _invalid(f"not a qualm regeneration: {data!r}") from exc


def _show(text: str) -> str:
    return text.replace("\n", "⏎").replace("\t", "⇥")


def _marks_at(marks: list[Mark[PlacedToken]], start: int, end: int) -> list[int]:
    """Indexes of the non-confident marks a range touches (a cursor: the token it is on or after)."""
    return [i for i, m in enumerate(marks) if m.data.level != "confident" and m.start <= end and start <= m.end and (start < m.end or m.start == start)]


def _actions(ls: QualmServer, uri: str, version: int, marks: list[Mark[PlacedToken]], index: int, diagnostics: list[types.Diagnostic]) -> list[types.CodeAction]:
    m = marks[index]
    token = m.data
    shown = _show(token.text.strip() or token.text)
    related = [d for d in diagnostics if d.source == "qualm"]
    out = []
    state = ls.docs.get(uri)
    comments = state.language.comment_starts if state is not None else ("#",)
    offered = choices(token, ls.settings_for(uri).editor.alternative_floor, comment_starts=comments)
    for i, alt in enumerate(token.alternatives):
        if alt in offered:
            out.append(types.CodeAction(
                title=f"qualm: use '{_show(alt.text.strip() or alt.text)}' instead of '{shown}' ({alt.prob:.0%})",
                kind=KIND, diagnostics=related or None, data=Target(uri, version, m.start, m.end, i).to_data(),
            ))
    out.append(types.CodeAction(title=f"qualm: regenerate from '{shown}'", kind=KIND, diagnostics=related or None, data=Target(uri, version, m.start, m.end, -1).to_data()))
    return out


def _locate(ls: QualmServer, target: Target) -> tuple[Any, Any, int, PlacedToken, int]:
    """The document, its engine view, and the mark the target names, checked against its version."""
    try:
        doc, document = ls.document(target.uri)
    except UnknownDocument as exc:
        raise _invalid(str(exc)) from exc
    if doc.version != target.version:
        raise _invalid("the document changed since this action was offered: ask for the actions again")
    state = ls.docs[target.uri]
    found = [i for i, m in enumerate(state.marks) if (m.start, m.end) == (target.start, target.end)]
    if not found:
        raise _invalid("the token is no longer marked (the text under it changed): ask for the actions again")
    index = found[0]
    token = state.marks[index].data
    if target.choice >= len(token.alternatives):
        raise _invalid(f"the token has no alternative {target.choice}")
    end = rewrite_end(document, token, run_end([(m.start, m.end) for m in state.marks], index, document.text))
    return doc, document, index, token, end


async def run_regeneration(ls: QualmServer, target: Target, partial_token: Any = None, seed: int | None = None) -> tuple[Any, Regeneration]:
    doc, document, _, token, end = _locate(ls, target)
    choice = token.alternatives[target.choice] if target.choice >= 0 else None
    settings = ls.settings_for(target.uri)
    loop = asyncio.get_running_loop()
    origin = rewrite_start(token, document.text)
    r = ls.to_range(doc, origin, end)
    replaced = {"start": {"line": r.start.line, "character": r.start.character}, "end": {"line": r.end.line, "character": r.end.character}}

    def on_token(t: PlacedToken) -> None:  # on the model thread
        value = {"text": t.text, "tokens": [token_json(t, origin)], "range": replaced}
        loop.call_soon_threadsafe(ls.protocol.notify, types.PROGRESS, types.ProgressParams(token=partial_token, value=value))

    result: Regeneration = await ls.run_model(
        lambda backend, cancel: regenerate(backend, document, token, end, settings, choice, seed, on_token if partial_token is not None else None, cancel),
        key=f"regenerate:{target.uri}",
        urgent=True,  # a rewrite the user waits for: as a completion (worker.py)
    )
    state = ls.docs.get(target.uri)
    if state is not None and state.text == document.text:
        state.offer(result)  # its marks come when the document becomes the rewritten text
    return doc, result


def edit_of(ls: QualmServer, doc: Any, target: Target, result: Regeneration) -> types.WorkspaceEdit:
    edit = types.TextEdit(range=ls.to_range(doc, result.start, result.end), new_text=result.text)
    ident = types.OptionalVersionedTextDocumentIdentifier(uri=target.uri, version=target.version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=ident, edits=[edit])])


def register(server: QualmServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[KIND], resolve_provider=True))
    def on_code_action(ls: QualmServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        state = ls.docs.get(uri)
        if state is None or uri not in ls.workspace.text_documents:
            return None
        only = params.context.only
        wanted = [str(getattr(k, "value", k)) for k in only or ()]  # enum members or plain strings
        if wanted and not any(KIND.value == k or KIND.value.startswith(f"{k}.") for k in wanted):
            return None  # the client asked for other kinds (say, source actions on save)
        actions = fix_actions(ls, uri, params.range, list(params.context.diagnostics))  # an assessed function's likely fix
        doc = ls.workspace.get_text_document(uri)
        start, end = doc.offset_at_position(params.range.start), doc.offset_at_position(params.range.end)
        found = _marks_at(state.marks, start, end)
        if found:
            # the most uncertain token the range touches: one token's actions, not a list per token
            index = max(found, key=lambda i: state.marks[i].data.entropy)
            actions += _actions(ls, uri, doc.version or 0, state.marks, index, list(params.context.diagnostics))
        return actions or None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def on_resolve(ls: QualmServer, action: types.CodeAction) -> types.CodeAction:
        if not isinstance(action.data, dict) or action.data.get("qualm") != "regenerate":
            return action
        target = Target.from_data(action.data)
        doc, result = await run_regeneration(ls, target)
        action.edit = edit_of(ls, doc, target, result)
        return action

    @server.feature(REGENERATE)
    async def on_regenerate(ls: QualmServer, params: Any) -> dict[str, Any]:
        p = _plain(params)
        target = Target.from_data(p.get("data"))
        seed = p.get("seed")
        doc, result = await run_regeneration(ls, target, p.get("partialResultToken"), None if seed is None else int(seed))
        r = ls.to_range(doc, result.start, result.end)
        return {
            "text": result.text,
            "tokens": [token_json(t, result.start) for t in result.completion.tokens],
            "range": {"start": {"line": r.start.line, "character": r.start.character}, "end": {"line": r.end.line, "character": r.end.character}},
            "version": target.version,
            "replaced": result.replaced,
            "choice": None if result.choice is None else result.choice.text,
            "stopReason": result.completion.stop_reason,
            "seconds": result.completion.seconds,
        }

