"""A completion at a cursor: the model continues the document there, and every token it writes is
placed where it will stand in the document once inserted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..model import CancelToken, GenerationOptions, ModelBackend
from ..settings import Settings
from ..trace import Trace
from .document import Document
from .placement import CompletionPlacement, PlacedToken, accepted_tokens


@dataclass(frozen=True)
class CompletionOptions:
    """Per-request choices; None takes the settings' value."""

    max_tokens: int | None = None  # capped by editor.completion_max_tokens and generation.max_tokens
    temperature: float = 0.0  # 0: greedy
    top_p: float = 1.0
    seed: int | None = None


@dataclass(frozen=True)
class Completion:
    offset: int  # where the text goes in the document
    text: str  # what is inserted there
    tokens: tuple[PlacedToken, ...]  # document offsets as if inserted at ``offset``
    function: str | None  # the enclosing function, if any
    stop_reason: str
    model: str
    seconds: float

    @classmethod
    def of(cls, offset: int, tokens: tuple[PlacedToken, ...], function: str | None, trace: Trace, seconds: float) -> Completion:
        """A completion made of placed ``tokens``, with the trace's stop reason and model."""
        return cls(offset, "".join(t.text for t in tokens), tokens, function, trace.stop_reason, trace.model, seconds)

    def accepted(self, inserted_at: int, accepted_text: str, document: str) -> list[PlacedToken]:
        """This completion's tokens once the user took ``accepted_text`` (all or a prefix of
        :attr:`text`) at ``inserted_at`` of ``document``; empty when it is not a prefix."""
        if not accepted_text or not self.text.startswith(accepted_text):
            return []
        return accepted_tokens(self.tokens, inserted_at, self.offset, accepted_text, document)


def generation_options(settings: Settings, options: CompletionOptions) -> GenerationOptions:
    cap = min(settings.editor.completion_max_tokens, settings.generation.max_tokens)
    wanted = options.max_tokens if options.max_tokens is not None else cap
    return GenerationOptions(
        max_tokens=max(1, min(wanted, cap)),
        temperature=options.temperature,
        top_p=options.top_p,
        seed=settings.generation.seed if options.seed is None else options.seed,
        top_alternatives=settings.generation.top_alternatives,
    )


def complete(
    backend: ModelBackend, document: Document, offset: int, settings: Settings, options: CompletionOptions | None = None,
    on_token: Callable[[PlacedToken], None] | None = None, cancel: CancelToken | None = None,
) -> Completion:
    """Continue ``document`` at ``offset``; ``on_token`` gets each token already placed (on the
    calling thread, as soon as the model has written it)."""
    ctx = document.language.completion_context(document.text, offset)
    thresholds = settings.lexical.level_thresholds
    stream = CompletionPlacement(offset, ctx.heal, ctx.indent, thresholds)
    callback = (lambda rec: on_token(stream.place(rec))) if on_token is not None else None
    trace = backend.generate(ctx.prompt, generation_options(settings, options or CompletionOptions()), on_token=callback, cancel=cancel)
    final = CompletionPlacement(offset, ctx.heal, ctx.indent, thresholds)
    tokens = tuple(final.place(rec) for rec in trace.tokens)
    return Completion.of(offset, tokens, ctx.function, trace, trace.seconds)
