"""Regenerate from a token: act on the doubt at an uncertain token.

The user picks one of the model's alternatives at a marked token (or asks for the rest again), and
the model rewrites what follows from there: the document up to the token is the prompt (the same
completion context a completion at that place would get), the chosen token is forced as the start
of the answer, and the model continues. The result replaces the token and the rest of its run of
marks (the rest of that completion, or of the scored function); it is returned, never written: a
front end shows it and the user accepts or rejects it.

The forced token is given to the model as text (the prompt's end), which every backend takes; an
inference server's prefix cache (llama-server's ``cache_prompt``, vLLM's prefix caching) then
reuses the shared prompt, and the in-process backend evaluates it again in batches.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..lang import SourceError
from ..model import CancelToken, GenerationOptions, ModelBackend
from ..prompts import ChatPrompt
from ..settings import Settings
from ..trace import Alternative, TokenRecord
from .completion import Completion, CompletionOptions, generation_options
from .document import Document
from .placement import CompletionPlacement, PlacedToken


@dataclass(frozen=True)
class Regeneration:
    """What would replace ``document[start:end]``: the completion's text (its tokens placed as if
    inserted at ``start``, the forced one first), and what it replaces."""

    start: int
    end: int
    replaced: str  # document[start:end] when it was computed
    completion: Completion
    choice: Alternative | None  # the forced alternative; None: the rest sampled again

    @property
    def text(self) -> str:
        return self.completion.text


def choices(token: PlacedToken, floor: float, limit: int = 5, comment_starts: Sequence[str] = ("#",)) -> list[Alternative]:
    """The alternatives worth offering at a token: not the token itself, at least ``floor`` likely,
    and, in place of code, none that is only white space or would start a comment (the model
    often considers a comment or a line break; offered as a replacement for `running` they would
    delete code or comment the line out)."""
    own = token.text

    def replaces_code(a: Alternative) -> bool:
        text = a.text.strip()
        return bool(text) and not text.startswith(tuple(comment_starts))

    is_code = bool(own.strip()) and not own.strip().startswith(tuple(comment_starts))
    return [a for a in token.alternatives if a.text != own and a.text.strip() != own.strip() and a.prob >= floor and (not is_code or replaces_code(a))][:limit]


def run_end(spans: Sequence[tuple[int, int]], index: int, text: str) -> int:
    """Where the run of marked tokens that ``spans[index]`` belongs to ends: marks one after another
    with only whitespace between them are one completion (or one scored body); the first text that
    no mark covers (the user's own code, the next ``def``) ends it."""
    end = spans[index][1]
    for start, stop in spans[index + 1 :]:
        if start < end:
            continue
        if text[end:start].strip():
            break
        end = stop
    return end


def rewrite_end(document: Document, token: PlacedToken, run: int) -> int:
    """Where a rewrite from ``token`` ends: the end of its run of marks (``run``, from
    :func:`run_end`), or, when the token is inside a function, that function's end if it is
    later. The model writes the function to its end whatever follows the cursor (the prompt holds
    only what precedes it), so ending the rewrite earlier would leave the old rest after the new one
    (a mark dropped by an edit, or the user's own lines, would cut the run short)."""
    text = document.text
    line = text.count("\n", 0, token.start) + 1
    try:
        fn = document.language.function_at(text, line, document.name)
    except SourceError:
        return run  # outside a function, or a file that does not parse: the run alone
    lines = text.split("\n")
    end = sum(len(x) + 1 for x in lines[: fn.end_line]) - 1  # the end of the function's last line
    return max(run, min(end, len(text)))


def rewrite_start(token: PlacedToken, text: str) -> int:
    """Where a rewrite from ``token`` begins: where the model's own token began. A token whose first
    characters were healed whitespace (the document had them already) is rewritten from that
    whitespace on, so an alternative with its own leading space does not land after the document's."""
    if token.trimmed and text[: token.start].endswith(token.trimmed):
        return token.start - len(token.trimmed)
    return token.start


def regenerate(
    backend: ModelBackend,
    document: Document,
    token: PlacedToken,
    end: int,
    settings: Settings,
    choice: Alternative | None = None,
    seed: int | None = None,
    on_token: Callable[[PlacedToken], None] | None = None,
    cancel: CancelToken | None = None,
) -> Regeneration:
    """Rewrite ``document[token.start:end]`` from the token on. With ``choice``, that alternative of
    the model's at the token is forced and the rest is greedy; without, the model writes the token
    and the rest again, sampled (``editor.regenerate_temperature``, top-p 0.95, ``seed``).
    ``on_token`` gets each placed token as it is written, the forced one first."""
    t0 = time.perf_counter()
    text = document.text
    start = rewrite_start(token, text)
    ctx = document.language.completion_context(text[:start] + text[end:], start)
    thresholds = settings.lexical.level_thresholds
    line_start = text[:start].endswith("\n")
    # The forced token: the distribution it was chosen from is the marked token's (same entropy and
    # alternatives), its own probability the alternative's.
    forced = () if choice is None else (TokenRecord(0, choice.token_id, choice.text, 0, len(choice.text), token.entropy, choice.prob, token.alternatives),)

    def placement() -> CompletionPlacement:
        # The prompt ends exactly where the token began (the healed whitespace included: the
        # document already has it), so the placement has nothing to heal.
        return CompletionPlacement(start, "", ctx.indent, thresholds, at_line_start=line_start)

    live = placement()
    callback = None
    if on_token is not None:
        for rec in forced:
            on_token(live.place(rec))
        callback = lambda rec: on_token(live.place(rec))  # noqa: E731 - the stream's hook
    prompt = ChatPrompt(
        user=ctx.prompt.user,
        assistant_prefix=ctx.prompt.assistant_prefix + ctx.heal + "".join(r.text for r in forced),
        stop=ctx.prompt.stop,
        name="regeneration",
        ends=ctx.prompt.ends,
    )
    trace = backend.generate(prompt, _options(settings, choice, seed, text[start:end]), on_token=callback, cancel=cancel)
    final = placement()  # as complete(): the final tokens from the trace (an end rule may cut the stream's last ones)
    tokens = tuple(final.place(rec) for rec in (*forced, *trace.tokens))
    completion = Completion.of(start, tokens, ctx.function, trace, time.perf_counter() - t0)
    return Regeneration(start, end, text[start:end], completion, choice)


def _options(settings: Settings, choice: Alternative | None, seed: int | None, replaced: str) -> GenerationOptions:
    # the prompt up to the token is the completion's (or the last rewrite's): its cache is reused;
    # the budget is the editor's, or more where the text it replaces is longer (about 3.5
    # characters a token in code: twice that room), so a rewrite is not cut shorter than what it replaces
    base = replace(generation_options(settings, CompletionOptions()), reuse_cache=True)
    base = replace(base, max_tokens=min(settings.generation.max_tokens, max(base.max_tokens, len(replaced) // 2 + 16)))
    if choice is not None:
        return base  # greedy after the forced token: what the model writes given that choice
    return replace(base, temperature=settings.editor.regenerate_temperature, top_p=0.95, seed=random.randrange(2**31) if seed is None else seed)
