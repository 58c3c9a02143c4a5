"""A completion at a cursor: the model continues the document there, and every token it writes is
placed where it will stand in the document once inserted.

A model with fill-in-the-middle tokens sees the code before and after the cursor and context from
other documents (``qualm.engine.infill``), and stops where the rules of
``qualm.engine.completion_end`` say; a model without them gets the paper's code prompt for the
enclosing function (``lang.*.completion``). The completion carries its own doubt: the largest and
the Top-K entropy of its tokens and their least probability (docs/completion.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from ..levels import Level, level_of
from ..model import CancelToken, GenerationOptions, ModelBackend, ModelRuntimeError
from ..prompts import ChatPrompt, ContextChunk, InfillPrompt
from ..settings import Settings
from ..trace import TokenRecord, Trace
from .completion_end import CompletionEnd, empty_body_at
from .document import Document
from .infill import InfillBudget, infill_context
from .placement import CompletionPlacement, PlacedToken, accepted_tokens

PromptKind = str  # "fim" | "chat"
COMMENT_STARTS = ("#", "//", "/*")


@dataclass(frozen=True)
class CompletionOptions:
    """Per-request choices; None takes the settings' value."""

    max_tokens: int | None = None  # capped by editor.completion_max_tokens and generation.max_tokens
    temperature: float = 0.0  # 0: greedy
    top_p: float = 1.0
    seed: int | None = None


@dataclass(frozen=True)
class CompletionDoubt:
    """How sure the model was of a completion's tokens (those with more than white space)."""

    max_entropy: float  # nats
    top_k_entropy: float  # mean of the K largest entropies (lexical.top_k)
    min_prob: float
    level: Level  # of the largest entropy, by lexical.level_thresholds
    tokens: int

    @classmethod
    def of(cls, tokens: Sequence[PlacedToken], k: int, thresholds: tuple[float, float, float]) -> CompletionDoubt | None:
        kept = [t for t in tokens if t.text.strip()]
        if not kept:
            return None
        entropies = sorted((t.entropy for t in kept), reverse=True)
        top = entropies[: max(1, k)]
        return cls(entropies[0], sum(top) / len(top), min(t.prob for t in kept), level_of(entropies[0], thresholds), len(kept))


@dataclass(frozen=True)
class Completion:
    offset: int  # where the text goes in the document
    text: str  # what is inserted there
    tokens: tuple[PlacedToken, ...]  # document offsets as if inserted at ``offset``
    function: str | None  # the enclosing function, if any
    stop_reason: str  # the trace's, or "doubt": cut before the first very uncertain token
    model: str
    seconds: float
    prompt_kind: PromptKind = "chat"
    doubt: CompletionDoubt | None = None
    first_token_seconds: float | None = None
    prompt_tokens: int = 0
    reused_prompt_tokens: int = 0
    prompt: str = ""  # the text the model saw (FIM markers included)
    context_files: tuple[str, ...] = ()  # the other documents whose chunks the FIM prompt showed
    end_rule: str | None = None  # the stop rule that cut the text (qualm.engine.completion_end), None: none did
    attempts: int = 1  # 2: the healed prompt's completion was empty and it was asked again from the cursor
    # the text begins with the model's second choice of first token: its first choice led to text
    # the stop rules cut to nothing (see ``complete``)
    second_choice: bool = False
    # the model's first token where the stop rules left nothing of what it wrote (None otherwise)
    opening: TokenRecord | None = field(default=None, repr=False, compare=False)

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


def generation_options(settings: Settings, options: CompletionOptions, reuse_cache: bool = False) -> GenerationOptions:
    cap = min(settings.editor.completion_max_tokens, settings.generation.max_tokens)
    wanted = options.max_tokens if options.max_tokens is not None else cap
    return GenerationOptions(
        max_tokens=max(1, min(wanted, cap)),
        temperature=options.temperature,
        top_p=options.top_p,
        seed=settings.generation.seed if options.seed is None else options.seed,
        top_alternatives=settings.generation.top_alternatives,
        reuse_cache=reuse_cache,
    )


def prompt_kind(backend: ModelBackend, settings: Settings) -> PromptKind:
    """Which prompt a completion gets (``editor.completion_prompt``): FIM where the model has the
    tokens and the setting allows it."""
    wanted = settings.editor.completion_prompt
    if wanted == "chat":
        return "chat"
    if backend.info.capabilities.infill:
        return "fim"
    if wanted == "fim":
        raise ModelRuntimeError(f"qualm.editor.completion_prompt is 'fim' but {backend.info.name} has no fill-in-the-middle tokens: set it to 'auto' or 'chat'")
    return "chat"


def display_name(name: str) -> str:
    """A document's name as the FIM prompt's repository pattern shows it (its last two parts)."""
    path = name.removeprefix("file://")
    parts = PurePosixPath(path).parts
    return "/".join(parts[-2:]) if parts else path


def complete(
    backend: ModelBackend, document: Document, offset: int, settings: Settings, options: CompletionOptions | None = None,
    on_token: Callable[[PlacedToken], None] | None = None, cancel: CancelToken | None = None,
    context: Sequence[ContextChunk] = (), kind: PromptKind | None = None, on_restart: Callable[[], None] | None = None,
) -> Completion:
    """Continue ``document`` at ``offset``; ``on_token`` gets each token already placed (on the
    calling thread, as soon as the model has written it). ``context``: chunks of other documents
    for a FIM prompt, the most wanted first. ``kind`` forces the prompt (the benchmarks compare them).
    ``on_restart`` is told when the tokens given so far are withdrawn (the completion is asked again).

    A FIM completion whose prompt left the cursor line's indentation out (healed) and that comes
    out empty is asked again from a prompt that ends at the cursor, indentation included: healed,
    the model sometimes writes less indentation and closes the block (a ``def`` at a method's end,
    which the stop rules cut to nothing), where from the cursor it writes the statement. On the
    real-code benchmark's tune part this took the empty rate from 0.087 to 0.052 and edit
    similarity from 0.368 to 0.378 (validation, results/realcode-completion)."""
    options = options or CompletionOptions()
    kind = kind or prompt_kind(backend, settings)
    chat = document.language.completion_context(document.text, offset)
    if kind != "fim":
        return _attempt(backend, chat.prompt, chat.heal, chat.indent, offset, settings, options, on_token, cancel, chat.function, kind, ())
    e = settings.editor
    budget = InfillBudget(e.completion_prefix_tokens, e.completion_suffix_tokens, e.completion_context_tokens)

    def fim_attempt(heal: bool, lead: str = "") -> tuple[str, Completion]:
        """The whitespace the prompt left out ("" where none) and the completion; with ``lead``,
        the completion that follows that text written at the cursor (one line: the cursor is then
        inside a line)."""
        text, at = document.text[:offset] + lead + document.text[offset:], offset + len(lead)
        fim = infill_context(text, at, budget, backend.count_tokens, display_name(document.name), context, document.language.name, heal=heal)
        shown = tuple(dict.fromkeys(c.filename for c in fim.prompt.extra))
        return fim.heal, _attempt(backend, fim.prompt, fim.heal, "", at, settings, options, on_token, cancel, chat.function, kind, shown)

    def stopped(c: Completion) -> bool:
        return bool(c.text.strip()) or c.stop_reason in ("cancelled", "doubt") or (cancel is not None and cancel.cancelled)

    if empty_body_at(document.text, offset, document.language.name) is not None:
        # under a header with no body (an empty method) the body's indentation is decided: healed,
        # the model wrote the class's next method there and was asked again (the editor's e2e run)
        result = fim_attempt(heal=False)[1]
    else:
        healed, result = fim_attempt(heal=True)
        if healed and not stopped(result):
            if on_restart is not None:
                on_restart()  # what streamed of the first attempt (a start the final checks cut) is gone
            first = result
            _, again = fim_attempt(heal=False)
            result = replace(again, seconds=first.seconds + again.seconds, first_token_seconds=None if again.first_token_seconds is None else first.seconds + again.first_token_seconds, attempts=2)
    if stopped(result) or result.opening is None or not result.opening.text.strip():
        return result  # (a first token of white space alone is indentation, not a choice of code)
    return _from_second_choice(result, document, offset, settings, lambda lead: fim_attempt(False, lead)[1], on_token, on_restart)


def _second_choice(opening: TokenRecord, before: str) -> tuple[str, float] | None:
    """The likeliest of the model's other first tokens that writes code where its first choice
    did not: not white space alone, no line break, no special token, no comment, not the first
    choice again with other spacing; a leading space only where the cursor does not follow white space."""
    chosen = opening.text.strip()
    for alt in sorted(opening.alternatives, key=lambda a: -a.prob):
        text = alt.text
        same = alt.token_id == opening.token_id if alt.token_id >= 0 else text == opening.text  # a server may name tokens by text only
        if same or not text.strip() or "\n" in text or text.startswith("<|") or text.strip() == chosen:
            continue
        if text[0].isspace() and (not before or before[-1].isspace()):
            continue
        if text.lstrip().startswith(COMMENT_STARTS):  # a comment alone is not the code that was asked for
            continue
        return text, alt.prob
    return None


def _from_second_choice(
    empty: Completion, document: Document, offset: int, settings: Settings, attempt: Callable[[str], Completion],
    on_token: Callable[[PlacedToken], None] | None, on_restart: Callable[[], None] | None,
) -> Completion:
    """The completion that begins with the model's second choice of first token, where its first
    choice led to text the stop rules cut to nothing (it resumed the code after the cursor, closed
    the block, or broke the file); ``empty`` where that start comes to nothing either.

    The model is asked to continue the document with that token written at the cursor; what comes
    back is one line (the cursor is then inside a line) and passes the rules of the cursor again
    as a whole: it must not repeat the next line, must not leave a header without its body, and
    the file must parse no worse. Chosen on the real-code benchmark's tune part over a variant
    that let the cursor's rules take several lines after the second choice (edit similarity
    0.4528 against 0.4520, one more run-on there; validation, results/realcode-fresh)."""
    opening = empty.opening
    assert opening is not None
    choice = _second_choice(opening, document.text[:offset])
    if choice is None:
        return empty
    start, prob = choice
    thresholds = settings.lexical.level_thresholds
    token_id = next((a.token_id for a in opening.alternatives if a.text == start), -1)
    lead = CompletionPlacement(offset, "", "", thresholds).place(replace(opening, text=start, start=0, end=len(start), prob=prob, token_id=token_id))
    if on_restart is not None:
        on_restart()
    if on_token is not None:
        on_token(lead)
    rest = attempt(start)
    text = start + rest.text
    ending = CompletionEnd.at(document.text, offset, "", document.language.name)
    for check in (lambda t: ending.cut(t + "\n"), ending.final):
        cut = check(text)
        if cut is not None and cut.at < len(text):
            text = text[: cut.at]
    seconds = empty.seconds + rest.seconds
    if not text.strip():
        if on_restart is not None:
            on_restart()  # the second choice came to nothing too: withdraw its start
        return replace(empty, seconds=seconds)
    tokens = _up_to((lead, *rest.tokens), offset + len(text))
    return replace(
        rest,
        offset=offset,
        text=text,
        tokens=tokens,
        seconds=seconds,
        first_token_seconds=None if rest.first_token_seconds is None else empty.seconds + rest.first_token_seconds,
        doubt=CompletionDoubt.of(tokens, settings.lexical.top_k, thresholds),
        attempts=empty.attempts,
        second_choice=True,
        end_rule=rest.end_rule,
    )


def _up_to(tokens: Sequence[PlacedToken], end: int) -> tuple[PlacedToken, ...]:
    """The tokens before document offset ``end``, the last one shortened to end there."""
    out = []
    for t in tokens:
        if t.start >= end:
            break
        out.append(t if t.end <= end else replace(t, end=end, text=t.text[: end - t.start]))
    return tuple(out)


def _attempt(
    backend: ModelBackend, prompt: ChatPrompt | InfillPrompt, heal: str, indent: str, offset: int, settings: Settings, options: CompletionOptions,
    on_token: Callable[[PlacedToken], None] | None, cancel: CancelToken | None, function: str | None, kind: PromptKind,
    shown: tuple[str, ...],
) -> Completion:
    """One generation from ``prompt``, its tokens placed at ``offset`` (``heal``: whitespace the
    prompt left out, which the model writes again; ``indent``: put back on the lines of a chat answer)."""
    thresholds = settings.lexical.level_thresholds
    cut_at: float | None = thresholds[2] if settings.editor.completion_doubt_cut else None
    inner = CancelToken(cancel)
    doubted: list[int] = []  # index of the first very uncertain token, once seen
    stream = CompletionPlacement(offset, heal, indent, thresholds)

    def on_record(rec) -> None:
        placed = stream.place(rec)
        if doubted:
            return
        if cut_at is not None and placed.text.strip() and rec.entropy >= cut_at:
            doubted.append(rec.index)
            inner.cancel()  # the rest would not be shown: stop writing it
            return
        if on_token is not None:
            on_token(placed)

    trace = backend.generate(prompt, generation_options(settings, options, reuse_cache=kind == "fim"), on_token=on_record, cancel=inner)
    final = CompletionPlacement(offset, heal, indent, thresholds)
    records = trace.tokens if not doubted else trace.tokens[: doubted[0]]
    tokens = tuple(final.place(rec) for rec in records)
    stop = "doubt" if doubted and not (cancel is not None and cancel.cancelled) else trace.stop_reason
    text = "".join(t.text for t in tokens)
    return Completion(
        offset,
        text,
        tokens,
        function,
        stop,
        trace.model,
        trace.seconds,
        prompt_kind=kind,
        doubt=CompletionDoubt.of(tokens, settings.lexical.top_k, thresholds),
        first_token_seconds=trace.extra.get("first_token_seconds"),
        prompt_tokens=trace.prompt_tokens,
        reused_prompt_tokens=int(trace.extra.get("reused_prompt_tokens", 0)),
        prompt=trace.prompt,
        context_files=shown,
        end_rule=None if doubted else trace.extra.get("end_rule"),
        opening=None if text.strip() else trace.extra.get("opening"),
    )
