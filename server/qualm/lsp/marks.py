"""Uncertainty marks on a document, kept true while the document is edited.

A mark covers one scored token (character offsets into the document's text). An edit that touches
a mark's text removes the mark; an edit before it shifts it; an edit after it leaves it alone. So
a mark never sits on text it no longer describes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Mark(Generic[T]):
    start: int
    end: int
    data: T


@dataclass(frozen=True)
class Edit:
    """Replace document[start:end] with ``text`` (offsets in the text before the edit)."""

    start: int
    end: int
    text: str

    @property
    def delta(self) -> int:
        return len(self.text) - (self.end - self.start)


def apply_edit(marks: Iterable[Mark[T]], edit: Edit) -> list[Mark[T]]:
    out: list[Mark[T]] = []
    for m in marks:
        if m.end <= edit.start:
            out.append(m)  # entirely before the edit (typing right after a token keeps it)
        elif m.start >= edit.end:
            out.append(replace(m, start=m.start + edit.delta, end=m.end + edit.delta))
        # otherwise the edit touched the mark's text: the mark no longer describes it
    return out


def adjacent_runs(spans: list[tuple[int, int]], text: str) -> list[int]:
    """A run number for each of ``spans`` (sorted by start): spans one after another on one line,
    with nothing but spaces between them, share a run (shown as one highlight with one hover)."""
    runs: list[int] = []
    for i, (start, _) in enumerate(spans):
        if i and _joins(text[spans[i - 1][1] : start]):
            runs.append(runs[-1])
        else:
            runs.append(runs[-1] + 1 if runs else 0)
    return runs


def _joins(gap: str) -> bool:
    return gap.strip(" \t") == ""
