"""From a document, a cursor and context from elsewhere to a fill-in-the-middle prompt.

The model sees the code before the cursor and the code after it, each in a window sized in the
model's tokens and cut at line boundaries, and before them chunks of other open documents and of
regions edited lately, as far as their budget goes. The prefix window's first line moves in steps
of :data:`PREFIX_STEP` lines, so that while the user types on, the prompt's opening stays the same
and the model's cache of it is reused (the prompt changes only from the cursor's line on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..prompts import ContextChunk, InfillPrompt
from .completion_end import CompletionEnd

PREFIX_STEP = 16  # lines: the prefix window starts on a multiple of this many lines


@dataclass(frozen=True)
class InfillBudget:
    """Tokens for each part of the prompt (``editor.completion_*_tokens``)."""

    prefix: int
    suffix: int
    context: int


@dataclass(frozen=True)
class InfillContext:
    prompt: InfillPrompt
    heal: str  # whitespace before the cursor left out of the prompt (the model writes it again)
    prefix_from_line: int  # 0-based: the first document line in the prefix window
    suffix_to_line: int  # 0-based, exclusive: the line after the last one in the suffix window


def infill_context(
    text: str,
    offset: int,
    budget: InfillBudget,
    count_tokens: Callable[[str], int],
    filename: str = "",
    extra: Sequence[ContextChunk] = (),
    language: str = "python",
    heal: bool = True,
) -> InfillContext:
    """The FIM prompt at ``offset``. ``heal``: where the cursor's line holds only whitespace before
    the cursor, leave that indentation out of the prompt (the model writes it again, as one token
    with what follows); in the middle of a line the prefix ends at the cursor, spaces included. On
    the real-code benchmark's tune part healing the indentation was worth +0.013 edit similarity at
    the start of a line, and healing mid-line cost -0.052 pass@1 on HumanEval's random spans
    (results/realcode-completion). False never heals (the benchmarks compare)."""
    before, after = text[:offset], text[offset:]
    line_before = before[before.rfind("\n") + 1 :]
    kept = before.rstrip(" \t") if heal and not line_before.strip() else before
    heal = before[len(kept) :]
    prefix_lines = kept.split("\n")  # the last one is the cursor's line up to the cursor
    start = _prefix_start(prefix_lines, budget.prefix, count_tokens)
    prefix = "\n".join(prefix_lines[start:])
    suffix_lines = after.split("\n")  # the first one is the rest of the cursor's line
    end = _suffix_end(suffix_lines, budget.suffix, count_tokens)
    suffix = "\n".join(suffix_lines[:end]) + ("\n" if end < len(suffix_lines) else "")
    prompt = InfillPrompt(
        prefix=prefix,
        suffix=suffix,
        extra=fit_chunks(extra, budget.context, count_tokens),
        filename=filename,
        ending=CompletionEnd.at(text, offset, heal, language),
    )
    cursor_line = len(prefix_lines) - 1
    return InfillContext(prompt, heal, start, cursor_line + end)


def _prefix_start(lines: list[str], budget: int, count: Callable[[str], int]) -> int:
    """The first line of the prefix window: the cursor's line always, then whole lines back while
    they fit, the start rounded up to a step so that it moves rarely."""
    used = count(lines[-1])
    start = len(lines) - 1
    while start > 0:
        cost = count(lines[start - 1] + "\n")
        if used + cost > budget:
            break
        used += cost
        start -= 1
    if start == 0:
        return 0
    return min(len(lines) - 1, -(-start // PREFIX_STEP) * PREFIX_STEP)


def _suffix_end(lines: list[str], budget: int, count: Callable[[str], int]) -> int:
    """How many lines of the suffix (the rest of the cursor's line first, always) fit."""
    used = count(lines[0])
    end = 1
    while end < len(lines):
        cost = count("\n" + lines[end])
        if used + cost > budget:
            break
        used += cost
        end += 1
    return end


def fit_chunks(chunks: Sequence[ContextChunk], budget: int, count: Callable[[str], int]) -> tuple[ContextChunk, ...]:
    """The chunks in the order given (the most wanted first) as far as ``budget`` tokens go; a chunk
    that does not fit whole keeps its first lines that do."""
    out: list[ContextChunk] = []
    left = budget
    for chunk in chunks:
        if left <= 0:
            break
        cost = count(chunk.filename + "\n" + chunk.text)
        if cost <= left:
            out.append(chunk)
            left -= cost
            continue
        lines, used = [], count(chunk.filename + "\n")
        for line in chunk.text.split("\n"):
            c = count(line + "\n")
            if used + c > left:
                break
            lines.append(line)
            used += c
        if lines:
            out.append(ContextChunk(chunk.filename, "\n".join(lines) + "\n"))
        break  # the budget is spent
    return tuple(c for c in out if c.text.strip())
