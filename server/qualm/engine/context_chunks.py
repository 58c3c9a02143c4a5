"""Which code from elsewhere a fill-in-the-middle prompt shows: regions edited lately in other open
documents, then the opening of the other open documents, most recently edited first.

What the user just edited elsewhere is what a completion is most likely to use (a function they
wrote, a class they changed); a file's opening holds its imports and the names it defines. The
current document is not among them: its own windows show the code around the cursor. The order
changes only when another document is edited, so the prompt's opening stays cached while the user
types in this one (``qualm.engine.infill``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..prompts import ContextChunk

AROUND_EDIT = 12  # lines kept above and below an edited region
OPENING_LINES = 40  # lines of a document's opening


@dataclass(frozen=True)
class OpenDocument:
    name: str  # as the model is told (a short path)
    text: str
    edited: tuple[tuple[int, int], ...] = ()  # 0-based line ranges edited lately, the latest last
    last_edit: float = 0.0  # when it was last edited (monotonic seconds; 0: never)


def context_chunks(documents: Sequence[OpenDocument], current: str) -> list[ContextChunk]:
    """Chunks from every open document but ``current``, the most wanted first."""
    others = sorted((d for d in documents if d.name != current), key=lambda d: -d.last_edit)
    edited: list[ContextChunk] = []
    openings: list[ContextChunk] = []
    for doc in others:
        lines = doc.text.split("\n")
        covered: list[tuple[int, int]] = []
        for first, last in reversed(doc.edited):
            lo, hi = max(0, first - AROUND_EDIT), min(len(lines), last + AROUND_EDIT + 1)
            if any(lo < b and a < hi for a, b in covered):
                continue
            covered.append((lo, hi))
            edited.append(ContextChunk(doc.name, "\n".join(lines[lo:hi]) + "\n"))
        if not any(lo == 0 for lo, _ in covered):
            openings.append(ContextChunk(doc.name, "\n".join(lines[:OPENING_LINES]) + "\n"))
    return [c for c in edited + openings if c.text.strip()]
