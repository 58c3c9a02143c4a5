"""Teacher-forced lexical scores of code that is already written: one function, or a whole document."""

from __future__ import annotations

from dataclasses import dataclass

from .. import prompts
from ..lang import FunctionSource, language_named
from ..model import CancelToken, ModelBackend
from ..settings import Settings
from ..signals.lexical import LexicalReport, lexical_report
from ..trace import Trace
from .document import Document
from .placement import PlacedToken, place, source_to_document


@dataclass(frozen=True)
class FunctionScore:
    function: str
    line: int
    trace: Trace  # teacher-forced over the whole function source
    body_offset: int  # tokens starting here or later are the body the scores describe
    lexical: LexicalReport


def score_function(backend: ModelBackend, fn: FunctionSource, settings: Settings, cancel: CancelToken | None = None) -> FunctionScore:
    """Teacher-forced lexical scores of an existing function, as if the model had written it.

    The model sees the problem description (imports, signature, docstring) and is then forced
    through the function's source. The signature and docstring are copied from the prompt, so
    the scores cover only the body's tokens.
    """
    language = language_named(fn.language)
    prompt = prompts.code_generation(fn.problem_description, language.display_name, language.fence)
    trace = language.annotate_scopes(backend.score(prompt, fn.source, cancel=cancel, top_alternatives=settings.generation.top_alternatives))
    body = trace.with_tokens(tuple(t for t in trace.tokens if t.start >= fn.body_offset))
    return FunctionScore(
        function=fn.name,
        line=fn.line,
        trace=trace,
        body_offset=fn.body_offset,
        lexical=lexical_report(body, settings.lexical.top_k),
    )


@dataclass(frozen=True)
class DocumentScore:
    functions: tuple[FunctionScore, ...]  # in the document's order; fewer than it has when cancelled
    tokens: tuple[PlacedToken, ...]  # every scored body token, at its offsets in the document
    cancelled: bool = False


def score_document(backend: ModelBackend, document: Document, settings: Settings, cancel: CancelToken | None = None) -> DocumentScore:
    """Every function of the document scored, and its body tokens placed in the document's offsets.

    A token whose text the document does not hold at its place (one spanning a line break inside a
    re-indented line) is left out: a mark must describe the text under it.
    """
    text, thresholds = document.text, settings.lexical.level_thresholds
    scores: list[FunctionScore] = []
    tokens: list[PlacedToken] = []
    for fn in document.functions():
        if cancel is not None and cancel.cancelled:
            return DocumentScore(tuple(scores), tuple(tokens), cancelled=True)
        result = score_function(backend, fn, settings, cancel=cancel)
        scores.append(result)
        to_doc = source_to_document(text, fn.line, result.trace.text)
        for rec in result.trace.tokens:
            if rec.start < result.body_offset or not rec.text.strip():
                continue
            start, end = to_doc(rec.start), to_doc(rec.end - 1) + 1
            if text[start:end] == rec.text:
                tokens.append(place(rec, start, end, rec.text, thresholds, "score", settings.editor.scored_doubt))
    return DocumentScore(tuple(scores), tuple(sorted(tokens, key=lambda t: t.start)))
