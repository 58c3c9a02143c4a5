"""Teacher-forced traces built by hand for tests that need the model's numbers without the model:
the swaps' and the likely fix's sandbox runs (tests/sandbox)."""

from __future__ import annotations

import re

from qualm.lang import PYTHON
from qualm.trace import Alternative, TokenRecord, Trace


def word_trace(source: str, unlikely: dict[str, list[tuple[str, float]]]) -> Trace:
    """``source`` in word-sized tokens, each likely (0.9) but those named in ``unlikely`` (0.01, with
    the given alternatives), scopes set as the assessment sets them."""
    tokens = []
    for i, m in enumerate(re.finditer(r"\s*\S+|\s+", source)):
        text = m.group()
        alts = unlikely.get(text.strip())
        tokens.append(TokenRecord(i, i, text, m.start(), m.end(), 0.5, 0.01 if alts else 0.9, tuple(Alternative(50 + j, t, p) for j, (t, p) in enumerate(alts or []))))
    return PYTHON.annotate_scopes(Trace(text=source, tokens=tuple(tokens), model="hand-made", mode="scored"))
