"""Diagnostics on uncertain tokens (source ``qualm``) from accepted completions and scored documents,
one on each assessed function's suspect line (while the function is as it was assessed), and
``qualm/marks``: every mark's range and level, for clients that colour the tokens (the VS Code
extension's highlights), sent with the document version the ranges belong to. Called by the
features that change marks; it registers no handler.

Typing in a marked document only moves its marks, and clients move what they show themselves (the
extension's highlights follow each edit). So a change is published once typing pauses
(:func:`publish_after_pause`), not per keystroke: a document with a few hundred marks makes a
``qualm/marks`` of tens of kilobytes, and a soak run spent more time parsing those than on every
other message together (results/soak/run-500-messages). What a feature changes itself (an accepted
completion, an assessment, a setting) is published at once. Every pause publishes in full, even when
nothing moved: a client that dropped the last one as stale (its version had passed) needs the next."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from ...engine import PlacedToken
from ...engine.placement import source_to_document
from ...lang import SourceError
from ...levels import LEVELS
from ..marks import Mark, adjacent_runs
from ..presentation import diagnostic_message
from ..protocol import MARKS
from ..server import QualmServer, UnknownDocument

PAUSE_S = 0.3  # no change for this long: typing has paused (a key every 0.1–0.2 s is usual)

SEVERITY = {"high": types.DiagnosticSeverity.Information, "medium": types.DiagnosticSeverity.Hint, "low": types.DiagnosticSeverity.Hint}


def publish_after_pause(ls: QualmServer, uri: str) -> None:
    """:func:`publish` once no change has come for :data:`PAUSE_S`; each call starts the wait again."""
    state = ls.docs.get(uri)
    if state is None:
        return
    if state.publish_timer is not None:
        state.publish_timer.cancel()
    state.publish_timer = asyncio.get_running_loop().call_later(PAUSE_S, publish, ls, uri)


def publish(ls: QualmServer, uri: str) -> None:
    """Send the document's current marks at or above the configured level, most uncertain first."""
    state = ls.docs.get(uri)
    if state is None or uri not in ls.workspace.text_documents:
        return
    if state.publish_timer is not None:  # what it would have sent goes now
        state.publish_timer.cancel()
        state.publish_timer = None
    doc = ls.workspace.get_text_document(uri)
    editor = ls.settings_for(uri).editor  # the levels of the document's folder
    floor = LEVELS.index(editor.diagnostic_level) if editor.diagnostic_level in LEVELS else 2
    spans = [m for m in state.marks if m.end > m.start]
    # once for both messages; a token's white space (a line break it ends with) is not painted
    ranges = dict(zip(map(id, spans), ls.to_ranges(doc, [visible(state.text, m.start, m.end) for m in spans])))
    shown = sorted((m for m in spans if LEVELS.index(m.data.level) >= floor), key=lambda m: -m.data.entropy)
    diagnostics = [
        types.Diagnostic(
            range=ranges[id(m)],
            message=diagnostic_message(m.data),
            severity=SEVERITY.get(m.data.level, types.DiagnosticSeverity.Hint),
            source="qualm",
            code=m.data.level,
            data={"entropy": m.data.entropy, "prob": m.data.prob},
        )
        for m in shown[: editor.max_diagnostics]
    ]
    diagnostics += suspect_diagnostics(ls, uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=doc.version))
    coloured = colour_marks(spans, editor.highlight_level, state.text)
    marks = [{"range": _plain_range(ranges[id(m)]), "level": m.data.level, "doubt": m.data.doubt, "span": run} for m, run in coloured]
    ls.protocol.notify(MARKS, {"uri": uri, "version": doc.version, "marks": marks})


def suspect_diagnostics(ls: QualmServer, uri: str) -> list[types.Diagnostic]:
    """At each assessed function's suspect token (qualm.signals.suspicion), while the function is
    the one that was assessed: the line to read first."""
    state = ls.docs[uri]
    if not state.assessments:  # publish runs after each pause in typing in a marked document: nothing to do here
        return []
    try:
        doc, document = ls.document(uri)
        assessed = state.current_assessments(document)
    except (UnknownDocument, SourceError):
        return []  # while the file does not parse, no function is where it was
    out = []
    for fn, a in assessed:
        if not a.suspects:
            continue
        s = a.suspects[0]
        to_doc = source_to_document(state.text, fn.line, fn.source)
        start, end = visible(state.text, to_doc(s.start), to_doc(s.end))
        rather = f"; it would write '{s.preferred.strip()}' ({s.preferred_prob:.0%})" if s.preferred.strip() else ""
        message = f"suspect line of {fn.name}: the model least expected '{s.token.strip()}' here ({s.prob:.0%}){rather}. Where to look first, not a verdict."
        out.append(types.Diagnostic(range=ls.to_ranges(doc, [(start, end)])[0], message=message, severity=types.DiagnosticSeverity.Information, source="qualm", code="suspect"))
    return out


def visible(text: str, start: int, end: int) -> tuple[int, int]:
    """The part of ``text[start:end]`` without its leading and trailing white space (the token
    ``)\\n`` is painted on ``)``, not into the next line); the whole span when it is all white space."""
    token = text[start:end]
    stripped = token.strip()
    if not stripped:
        return start, end
    first = start + token.index(stripped)
    return first, first + len(stripped)


def colour_marks(marks: list[Mark[PlacedToken]], level: str, text: str) -> list[tuple[Mark[PlacedToken], int]]:
    """The marks at or above ``level`` (``editor.highlight_level``), each with its span number:
    neighbours on a line are one span (one highlight, one hover)."""
    floor = LEVELS.index(level) if level in LEVELS else 2
    shown = [m for m in marks if m.data.level != "confident" and LEVELS.index(m.data.level) >= floor]
    return list(zip(shown, adjacent_runs([(m.start, m.end) for m in shown], text)))


def span_of(marks: list[Mark[PlacedToken]], index: int, level: str, text: str) -> list[Mark[PlacedToken]]:
    """The coloured span the mark ``marks[index]`` is in (just itself when it is not coloured)."""
    coloured = colour_marks(marks, level, text)
    run = next((r for m, r in coloured if m is marks[index]), None)
    return [m for m, r in coloured if r == run] if run is not None else [marks[index]]


def _plain_range(r: types.Range) -> dict:
    return {"start": {"line": r.start.line, "character": r.start.character}, "end": {"line": r.end.line, "character": r.end.character}}
