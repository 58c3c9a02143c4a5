"""Turns a stream of token byte pieces into text with exact character offsets and stop strings.

Byte-level BPE tokens can split a UTF-8 character; a record's text is what its bytes complete.
Stop strings (the closing code fence) may arrive across several tokens, so records that might
still be cut are held back until they are certain: streamed records are final, never revised.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ..trace import Alternative, TokenRecord


@dataclass(frozen=True)
class TokenStats:
    token_id: int
    entropy: float
    prob: float
    alternatives: tuple[Alternative, ...]
    # a remote engine's top-N view of the distribution (qualm.entropy_bounds); None when exact
    entropy_bounds: tuple[float, float] | None = None
    tail_mass: float | None = None


class EndCut(Protocol):
    at: int  # the length of text to keep
    rule: str  # why (the completion reports it as its end rule)


class Ending(Protocol):
    """Where a completion ends, asked after every token (``qualm.engine.completion_end``): ``cut``
    gives the length to keep once the text is complete, ``held`` how many characters at its end may
    still be cut (they are not streamed until that is decided), ``final`` how much of the finished
    text to keep (after a cut, the model's end or the token limit)."""

    def cut(self, text: str) -> EndCut | None: ...

    def held(self, text: str) -> int: ...

    def final(self, text: str) -> EndCut | None: ...


class TextStream:
    def __init__(
        self,
        stop: Sequence[str] = (),
        on_token: Callable[[TokenRecord], None] | None = None,
        ends: Callable[[str], int | None] | None = None,
        ending: Ending | None = None,
    ):
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stop = tuple(s for s in stop if s)
        # A rule that says where the answer is complete (``qualm.answer_ends``), asked at line ends.
        self._ends = ends
        self._ending = ending
        self._on_token = on_token
        self._text = ""
        self._length = 0
        self._records: list[TokenRecord] = []
        self._emitted = 0
        self.stopped = False
        self.stop_kind = ""  # "fence": a stop string; "complete": the end rule or the ending
        self.end_rule: str | None = None  # the ending's rule that cut the text last (None: none did)
        # the model's first token as written, kept when the ending's rules cut everything (a
        # completion may then begin with the model's second choice: qualm.engine.completion)
        self.opening: TokenRecord | None = None

    @property
    def text(self) -> str:
        return self._text

    @property
    def records(self) -> tuple[TokenRecord, ...]:
        return tuple(self._records)

    def push(self, piece: bytes, stats: TokenStats) -> bool:
        """Add one token; returns True when a stop string or the end rule has ended the text."""
        chunk = self._decoder.decode(piece)
        start = self._length
        self._text += chunk
        self._length += len(chunk)
        self._records.append(
            TokenRecord(
                index=len(self._records),
                token_id=stats.token_id,
                text=chunk,
                start=start,
                end=self._length,
                entropy=stats.entropy,
                prob=stats.prob,
                alternatives=stats.alternatives,
                entropy_bounds=stats.entropy_bounds,
                tail_mass=stats.tail_mass,
            )
        )
        if self.opening is None:
            self.opening = self._records[0]
        if self._stop and self._cut_at_stop(start):
            return self._stopped("fence")
        if self._ends is not None and "\n" in chunk:
            end = self._ends(self._text)
            if end is not None:
                self._cut(end)
                return self._stopped("complete")
        if self._ending is not None:
            end = self._ending.cut(self._text)
            if end is not None:
                self._cut_by(end)
                self._finalise()
                return self._stopped("complete")
        self._emit(self._length - self._held_back())
        return False

    def finish(self) -> None:
        """End of generation: flush undecodable trailing bytes and every held record."""
        tail = self._decoder.decode(b"", final=True)
        if tail and self._records:
            last = self._records[-1]
            self._records[-1] = replace(last, text=last.text + tail, end=last.end + len(tail))
            self._text += tail
            self._length += len(tail)
        if self._ends is not None and not self.stopped:
            # The model ended its turn: what follows the answer's last complete part (a plan's
            # closing paragraph) is cut as it would have been had the model gone on.
            end = self._ends(self._text + "\n")
            if end is not None and end < self._length:
                self._cut(end)
        if self._ending is not None and not self.stopped:
            # The model ended the middle itself: the same rules still apply to what it wrote.
            end = self._ending.cut(self._text + "\n")
            if end is not None and end.at < self._length:
                self._cut_by(end)
            self._finalise()
        self._emit(self._length)

    def _cut_by(self, end: EndCut) -> None:
        self._cut(end.at)
        self.end_rule = end.rule

    def _finalise(self) -> None:
        """The ending's last word on the finished text (a completion closes what it opens)."""
        end = self._ending.final(self._text) if self._ending is not None else None
        if end is not None and end.at < self._length:
            self._cut_by(end)

    def _cut_at_stop(self, new_start: int) -> bool:
        text = self.text
        longest = max(len(s) for s in self._stop)
        search_from = max(0, new_start - longest + 1)
        hits = [i for s in self._stop if (i := text.find(s, search_from)) >= 0]
        if not hits:
            return False
        self._cut(min(hits))
        return True

    def _stopped(self, kind: str) -> bool:
        self.stopped = True
        self.stop_kind = kind
        self._emit(self._length)
        return True

    def _cut(self, cut: int) -> None:
        """Keep the text before ``cut`` and the records that hold it (the last one shortened)."""
        text = self.text
        kept: list[TokenRecord] = []
        for rec in self._records:
            if rec.start >= cut and rec.end > rec.start:
                break
            if rec.start >= cut:  # an empty partial-character record after the cut
                break
            if rec.end > cut:
                rec = replace(rec, text=rec.text[: cut - rec.start], end=cut)
            kept.append(rec)
        self._records = kept
        self._text = text[:cut]
        self._length = cut

    def _held_back(self) -> int:
        """Characters at the end that could be the start of a stop string, or cut by the ending."""
        text = self.text
        held = self._ending.held(text) if self._ending is not None else 0
        if not self._stop:
            return held
        for s in self._stop:
            for n in range(min(len(s) - 1, len(text)), 0, -1):
                if text.endswith(s[:n]):
                    held = max(held, n)
                    break
        return held

    def _emit(self, safe_end: int) -> None:
        while self._emitted < len(self._records) and self._records[self._emitted].end <= safe_end:
            if self._on_token is not None:
                self._on_token(self._records[self._emitted])
            self._emitted += 1
