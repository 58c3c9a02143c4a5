"""The gate of ``qualm check``: one metric of a function, one threshold, one verdict.

With ``--assess`` the metric is the calibrated chance of passing (``check.min_chance``: a function
below it fails); scored only, it is a lexical score of the body in nats (``check.score``, a function
above ``check.max_score`` fails). A value that could not be computed decides nothing: the function's
verdict is "unknown", never "pass".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..chance import LEXICAL_SIGNALS
from ..settings import CheckSettings
from ..signals.lexical import DERIVED, LexicalScores
from ..trace import surprisal
from ..wording import LEXICAL_SIGNAL_WORDS

CHANCE = "chance"
Verdict = Literal["pass", "fail", "unknown", "skipped"]

# The lexical scores a gate may read (settings.CHOICES["check.score"]): all in nats.
SCORE_WORDS = {**LEXICAL_SIGNAL_WORDS, **{s.name: s.words for s in DERIVED}}


@dataclass(frozen=True)
class Gate:
    metric: str  # CHANCE, or a lexical score's name (check.score)
    threshold: float
    top_k: int = 5  # K of the Top-K scores, for their words

    @property
    def fails_below(self) -> bool:
        """The chance fails below its threshold; a lexical score (doubt) fails above it."""
        return self.metric == CHANCE

    def fails(self, value: float) -> bool:
        return value < self.threshold if self.fails_below else value > self.threshold

    def words(self) -> str:
        """The metric in words: "chance of passing", "largest surprisal"."""
        return "chance of passing" if self.metric == CHANCE else SCORE_WORDS[self.metric].format(k=self.top_k)

    def show(self, value: float, digits: int = 0) -> str:
        return f"{100 * value:.{digits}f} %" if self.metric == CHANCE else f"{value:.{digits + 2}f} nats"

    def describe(self) -> str:
        """The rule in words: "chance of passing below 30 %", "largest surprisal above 11.00 nats"."""
        return f"{self.words()} {'below' if self.fails_below else 'above'} {self.show(self.threshold)}"

    def judge(self, value: float | None, why_missing: str) -> tuple[Verdict, str]:
        """The verdict on a value, and the reason in words with the numbers."""
        if value is None:
            return "unknown", f"no {self.words()}: {why_missing}"
        if self.fails(value):
            # enough digits that a value just past the threshold does not read as equal to it
            digits = next((d for d in range(4) if self.show(value, d) != self.show(self.threshold, d)), 4)
            return "fail", f"{self.words()} {self.show(value, digits)} is {'below' if self.fails_below else 'above'} the gate's {self.show(self.threshold, digits)}"
        return "pass", f"{self.words()} {self.show(value)}"

    def to_dict(self) -> dict:
        return {"metric": self.metric, "threshold": self.threshold, "fails": "below" if self.fails_below else "above", "rule": self.describe()}


def gate_for(settings: CheckSettings, assess: bool, top_k: int = 5) -> Gate:
    """The chance gate with an assessment, the lexical one without."""
    return Gate(CHANCE, settings.min_chance, top_k) if assess else Gate(settings.score, settings.max_score, top_k)


def lexical_scores(scores: LexicalScores) -> dict[str, float | None]:
    """A body's lexical scores by name, with ``max_surprisal`` = −ln(p_min) beside ``max_probability``
    = 1 − p_min (same order; a threshold in nats reads better than one at 0.99998)."""
    out: dict[str, float | None] = {name: (None if getattr(scores, name) is None else float(getattr(scores, name))) for name in LEXICAL_SIGNALS}
    q = scores.max_probability
    out["max_surprisal"] = None if q is None else surprisal(1.0 - q)
    return out
