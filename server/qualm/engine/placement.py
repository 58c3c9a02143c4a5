"""Tokens placed in a document: from the model's trace to offsets in the text the user sees.

A completion's tokens are the model's own text; what is inserted at the cursor differs (the
whitespace healed before the cursor is dropped, a method's indentation is put back), and a scored
function's tokens index its dedented source, not the file. Both end here as :class:`PlacedToken`
records whose ``start``/``end`` are offsets into the document.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from ..levels import LEVELS, Level, level_of
from ..trace import Alternative, TokenRecord, surprisal

Origin = Literal["completion", "score"]
Doubt = Literal["unsure", "unexpected"]


@dataclass(frozen=True)
class PlacedToken:
    """One token at its place in a document, with what the editor shows about it."""

    start: int  # offsets into the document's text
    end: int
    text: str
    entropy: float
    prob: float
    level: Level
    alternatives: tuple[Alternative, ...]
    origin: Origin  # a completion the model wrote, or code it was forced through (scored)
    # Which doubt the level shows: "unsure", the model's distribution before the token was spread
    # (entropy); "unexpected", the token in the file is one the model would not have written
    # (surprisal, -log p). Only scored code can be "unexpected": a completion is the model's choice.
    doubt: Doubt = "unsure"
    # The start of the model's own token that the document does not show here (whitespace healed
    # before a completion's cursor: the model wrote " x" where the document already had the space).
    # Its alternatives are the model's tokens at the place where that whitespace began.
    trimmed: str = ""

    def shifted(self, delta: int) -> PlacedToken:
        return replace(self, start=self.start + delta, end=self.end + delta)


def place(rec: TokenRecord, start: int, end: int, text: str, thresholds: tuple[float, float, float], origin: Origin, scored_doubt: str = "either") -> PlacedToken:
    """``scored_doubt`` (``editor.scored_doubt``): which doubt a scored token's level shows:
    "surprisal", "entropy", or "either" (the higher level). A completion's is always entropy."""
    level = level_of(rec.entropy, thresholds)
    doubt: Doubt = "unsure"
    if origin == "score" and scored_doubt != "entropy":
        # Entropy is the expected surprisal, so both are in nats on one scale: the same thresholds.
        by_surprise = level_of(surprisal(rec.prob), thresholds)
        if scored_doubt == "surprisal" or LEVELS.index(by_surprise) > LEVELS.index(level):
            level, doubt = by_surprise, "unexpected"
    return PlacedToken(start, end, text, rec.entropy, rec.prob, level, rec.alternatives, origin, doubt)


class PrefixTrimmer:
    """Drops a known prefix (the whitespace healed before the cursor) from the start of a token
    stream, as far as the model wrote it again: the document already has it."""

    def __init__(self, prefix: str) -> None:
        self.rest = prefix

    def feed(self, text: str) -> str:
        if not self.rest:
            return text
        n = 0
        while n < len(text) and n < len(self.rest) and text[n] == self.rest[n]:
            n += 1
        # Either the whole token was prefix (more may follow), or the prefix is used up, or the model
        # went another way: in the last two cases trimming stops here.
        self.rest = self.rest[n:] if n == len(text) else ""
        return text[n:]


class Reindenter:
    """Puts the function's indentation back on each line the model starts, token by token.

    The model writes a dedented function; a method's completion must be indented again. Fed the
    tokens in order, it indents the first character of every line after a line break (blank lines
    stay blank, with no trailing whitespace), so a streamed prefix and the final text agree.
    """

    def __init__(self, indent: str, at_line_start: bool = False) -> None:
        self.indent = indent
        self._at_line_start = at_line_start

    def feed(self, text: str) -> str:
        if not self.indent:
            return text
        out: list[str] = []
        for ch in text:
            if ch == "\n":
                self._at_line_start = True
            elif self._at_line_start:
                out.append(self.indent)
                self._at_line_start = False
            out.append(ch)
        return "".join(out)


class CompletionPlacement:
    """The model's completion tokens, one by one, to the text inserted at ``offset`` and each token's
    place in the document once inserted there. The stream and the final result go through it alike."""

    def __init__(self, offset: int, heal: str, indent: str, thresholds: tuple[float, float, float], at_line_start: bool = False) -> None:
        self._trim = PrefixTrimmer(heal)
        self._indent = Reindenter(indent, at_line_start)
        self._thresholds = thresholds
        self.offset = offset
        self._end = offset

    def place(self, rec: TokenRecord) -> PlacedToken:
        kept = self._trim.feed(rec.text)
        piece = self._indent.feed(kept)
        start, self._end = self._end, self._end + len(piece)
        placed = place(rec, start, self._end, piece, self._thresholds, "completion")
        return replace(placed, trimmed=rec.text[: len(rec.text) - len(kept)]) if len(kept) < len(rec.text) else placed


def source_to_document(document: str, first_line: int, source: str) -> Callable[[int], int]:
    """Offsets in a function's dedented source -> offsets in the document it came from.

    Dedenting removed some leading characters from each line (all of a blank line's); line by line,
    the document offset is that line's start plus what was removed plus the column in the source.
    """
    doc_lines = document.splitlines(keepends=True)
    doc_starts = [0]
    for line in doc_lines:
        doc_starts.append(doc_starts[-1] + len(line))
    src_lines = source.splitlines(keepends=True) or [""]
    src_starts = [0]
    for line in src_lines:
        src_starts.append(src_starts[-1] + len(line))
    removed = [len(doc_lines[first_line - 1 + i]) - len(src) if first_line - 1 + i < len(doc_lines) else 0 for i, src in enumerate(src_lines)]

    def to_doc(offset: int) -> int:
        i = max(0, min(len(src_lines) - 1, bisect_right(src_starts, offset) - 1))
        return doc_starts[first_line - 1 + i] + removed[i] + (offset - src_starts[i])

    return to_doc


def accepted_tokens(tokens: tuple[PlacedToken, ...], inserted_at: int, completion_offset: int, accepted: str, document: str) -> list[PlacedToken]:
    """The tokens of a completion the user accepted (all of it, or its first ``len(accepted)``
    characters) now that it stands at ``inserted_at``: moved there, and kept only where the
    document really holds their text (never a mark on text it does not describe)."""
    delta = inserted_at - completion_offset
    end = completion_offset + len(accepted)
    out = []
    for t in tokens:
        if t.end > end or not t.text.strip():
            continue
        moved = t.shifted(delta)
        if document[moved.start : moved.end] == moved.text:
            out.append(moved)
    return out
