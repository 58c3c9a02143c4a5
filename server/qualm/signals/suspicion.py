"""Which line of a function the model doubts most: its lines ranked from the teacher-forced pass.

Scoring code the model did not write gives, at every token, how likely the model found the token
that is there (``prob``), how spread its own choice was (``entropy``) and its likeliest token
(``alternatives[0]``). A bug is often a token the model would not have written. Each line of the
body gets the largest value, over its code tokens, of one of these measures:

    surprisal    −log p                            (how unlikely the written token was)
    unexpected   −log p − H                        (beyond what the model expected to be surprised by)
    margin       log p_top − log p                 (how far below the model's own choice; 0 where the
                                                    written token is the model's choice)

The line with the largest value is the suspect. The assessment ranks by ``unexpected``: on mutants of
tune problems it put the bug's line first most often (results/localization: top-1 0.567 against
0.543 for surprisal and 0.561 for the margin; validation).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..trace import TokenRecord, Trace, surprisal

Measure = Literal["surprisal", "unexpected", "margin"]
MEASURES: tuple[Measure, ...] = ("surprisal", "unexpected", "margin")
# The measure the assessment ranks by, chosen by results/localization/rules.md on the tune mutants.
SUSPECT_MEASURE: Measure = "unexpected"


def _surprisal(rec: TokenRecord) -> float:
    return surprisal(rec.prob)


def _unexpected(rec: TokenRecord) -> float:
    return surprisal(rec.prob) - rec.entropy


def _margin(rec: TokenRecord) -> float:
    top = max((a.prob for a in rec.alternatives), default=rec.prob)
    return math.log(max(top, rec.prob, 1e-12)) + surprisal(rec.prob)


MEASURE_OF: dict[Measure, Callable[[TokenRecord], float]] = {"surprisal": _surprisal, "unexpected": _unexpected, "margin": _margin}


@dataclass(frozen=True)
class SuspectLine:
    """One line of a function's source, by the token on it that the model doubted most."""

    line: int  # 1-based, in the function's source
    score: float  # the measure's largest value on the line
    token: str  # that token's text
    start: int  # its offsets in the source
    end: int
    prob: float  # how likely the model found it
    preferred: str  # the model's likeliest token there ("" where that is the written token)
    preferred_prob: float

    def describe(self) -> str:
        """The token and what the model would have written there, in words."""
        rather = f"; the model would write '{self.preferred.strip()}' (p {self.preferred_prob:.2f})" if self.preferred.strip() else ""
        return f"'{self.token.strip()}' (p {self.prob:.2f}){rather}"


def visible_line(source: str, start: int, text: str) -> int:
    """The 1-based line in ``source`` of the first non-blank character of ``text``, which stands at
    ``start`` (a token such as ``"\\n    x"`` belongs to the line of ``x``)."""
    return source.count("\n", 0, start + len(text) - len(text.lstrip())) + 1


def token_line(rec: TokenRecord, source: str) -> int:
    """The 1-based line of ``rec``'s first non-blank character in ``source``."""
    return visible_line(source, rec.start, rec.text)


def suspect_lines(trace: Trace, source: str, body_offset: int, measure: Measure = SUSPECT_MEASURE) -> list[SuspectLine]:
    """The body's lines that hold code tokens, most suspect first (ties: the earlier line first).
    ``trace`` is the teacher-forced pass over ``source`` with scopes set (docstrings and comments
    are left out)."""
    value = MEASURE_OF[measure]
    best: dict[int, tuple[float, TokenRecord]] = {}
    for rec in trace.tokens:
        if rec.start < body_offset or not rec.text.strip() or (rec.scope or "code") != "code":
            continue
        line = token_line(rec, source)
        v = value(rec)
        if line not in best or v > best[line][0]:
            best[line] = (v, rec)
    out = [_suspect(line, v, rec) for line, (v, rec) in best.items()]
    return sorted(out, key=lambda s: (-s.score, s.line))


def _suspect(line: int, score: float, rec: TokenRecord) -> SuspectLine:
    top = max(rec.alternatives, key=lambda a: a.prob, default=None)
    preferred = "" if top is None or top.token_id == rec.token_id or top.text == rec.text or top.prob <= rec.prob else top.text
    return SuspectLine(line, score, rec.text, rec.start, rec.end, rec.prob, preferred, top.prob if preferred and top else rec.prob)


def hit_at(ranked: Sequence[SuspectLine], truth: set[int], k: int) -> bool:
    """Whether one of the first ``k`` suspect lines is among the bug's lines ``truth``."""
    return any(s.line in truth for s in ranked[:k])
