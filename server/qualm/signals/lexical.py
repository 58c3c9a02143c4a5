"""Lexical uncertainty: aggregates of per-token entropy and probability over a trace.

Every score is oriented so that larger means more uncertain:

* ``top_k_entropy``   mean of the K largest token entropies (the paper's signal, K=5);
                      with fewer than K tokens, the mean of all of them
* ``max_entropy``     the largest token entropy (Top-K with K=1)
* ``mean_entropy``    mean token entropy
* ``mean_probability``  mean over tokens of (1 - p), p the chosen token's probability
* ``max_probability``   max over tokens of (1 - p) = 1 - the smallest chosen-token probability

and, for code the model did not write (scored, teacher-forced), how surprising each token in the
text was to the model, −log p (nats), beside how unsure it was before it (entropy):

* ``top_k_surprisal``   mean of the K largest token surprisals
* ``mean_surprisal``    mean token surprisal
* ``improbable_tokens`` how many tokens the model gave less than ``IMPROBABLE`` probability
* ``top_k_unexpected``  mean of the K largest excesses of surprisal over entropy, −log p − H: a
                        token less likely than the model's own uncertainty at that place explains
                        (0 on average for text the model would write; large where it was sure of
                        something else), so that a function's general difficulty cancels out
* ``blended_surprisal`` the least likely token's surprisal plus ``BLEND_MEAN_WEIGHT`` times the
                        mean surprisal: the one wrong token, and how unlike the model's own
                        writing the body is as a whole (a person's style raises the mean of a right
                        function and a wrong one alike, but it also says how much one odd token
                        means). The weight is the ratio of a logistic fit's coefficients on the
                        tune pairs of issue 23 (2.9; flat from 2.5 to 4)

Entropy says "the model was unsure here"; surprisal says "the model would not have written this".
For the model's own greedy output the two nearly agree (it wrote its likeliest token); on a
person's edit they differ, which is why the editor's lexical score is chosen by measurement.

Each is computed on all tokens, on code tokens only, and on comment tokens only (comments and
docstrings); a scope with no tokens gives ``None``, never a number. Which tokens are comments is
the language's business: traces arrive with their scopes set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trace import MIN_PROB, TokenRecord, Trace

SCOPES = ("all", "code", "comment")
IMPROBABLE = 0.1  # a token the model gave less than this is counted as improbable
BLEND_MEAN_WEIGHT = 3.0  # blended_surprisal = max surprisal + this x mean surprisal (nats)


@dataclass(frozen=True)
class LexicalSignal:
    """A lexical score by name, declared once: what it measures (``kind``) and its words, as an
    axis's note and the gate say it (``{k}``: the K of Top-K)."""

    name: str
    kind: str  # "entropy" or "surprisal" (nats), "probability" (1 - p), "count"
    words: str


# Every lexical score that is a signal, in order: a field of LexicalScores each (test_lexical.py
# checks), a signal of the chance of passing (``lexical.<scope>.<name>``, qualm.chance.signals_of),
# and the settings' choices below (qualm.settings.CHOICES; package.json's enums are checked against
# them by tests/unit/test_extension_manifest.py).
SIGNALS: tuple[LexicalSignal, ...] = (
    LexicalSignal("top_k_entropy", "entropy", "Top-{k} entropy"),
    LexicalSignal("max_entropy", "entropy", "largest entropy"),
    LexicalSignal("mean_entropy", "entropy", "mean entropy"),
    LexicalSignal("mean_probability", "probability", "mean 1 - p"),
    LexicalSignal("max_probability", "probability", "largest 1 - p"),
    LexicalSignal("top_k_surprisal", "surprisal", "Top-{k} surprisal"),
    LexicalSignal("mean_surprisal", "surprisal", "mean surprisal"),
    LexicalSignal("improbable_tokens", "count", "tokens with p < 0.1"),
    LexicalSignal("top_k_unexpected", "surprisal", "Top-{k} excess surprisal"),
    LexicalSignal("blended_surprisal", "surprisal", f"least likely token's surprisal + {BLEND_MEAN_WEIGHT:g} x mean surprisal"),
)
# Derived from a signal, not a field: max_surprisal = -ln(1 - max_probability) = -ln(p_min)
# (qualm.chance.with_derived, qualm.check.gate.lexical_scores).
DERIVED: tuple[LexicalSignal, ...] = (LexicalSignal("max_surprisal", "surprisal", "largest surprisal"),)
SIGNAL_NAMES = tuple(s.name for s in SIGNALS)
# lexical.assess_signal's choices: a score of the body, not a count.
ASSESS_SIGNALS = tuple(s.name for s in SIGNALS if s.kind != "count")
# check.score's choices: the scores in nats, so that one threshold, check.max_score, reads the same;
# surprisals first.
GATE_SCORES = tuple(s.name for kind in ("surprisal", "entropy") for s in (*DERIVED, *SIGNALS) if s.kind == kind)


@dataclass(frozen=True)
class LexicalScores:
    scope: str
    n_tokens: int
    k: int
    top_k_entropy: float | None
    max_entropy: float | None
    mean_entropy: float | None
    mean_probability: float | None
    max_probability: float | None
    top_k_surprisal: float | None = None
    mean_surprisal: float | None = None
    improbable_tokens: int = 0
    top_k_unexpected: float | None = None
    blended_surprisal: float | None = None


@dataclass(frozen=True)
class LexicalReport:
    all: LexicalScores
    code: LexicalScores
    comment: LexicalScores

    @property
    def score(self) -> float | None:
        """The lexical axis: Top-K entropy over all generated tokens, as in the paper."""
        return self.all.top_k_entropy


def top_k_mean(values: np.ndarray, k: int) -> float:
    if k < 1:
        raise ValueError("k must be at least 1")
    if values.size == 0:
        raise ValueError("no values")
    k = min(k, values.size)
    return float(np.mean(np.partition(values, values.size - k)[values.size - k :]))


def scores_of(tokens: list[TokenRecord] | tuple[TokenRecord, ...], k: int, scope: str = "all") -> LexicalScores:
    if not tokens:
        return LexicalScores(scope, 0, k, None, None, None, None, None, None, None, 0, None, None)
    h = np.array([t.entropy for t in tokens], dtype=np.float64)
    p = np.array([t.prob for t in tokens], dtype=np.float64)
    q = 1.0 - p
    surprisal = -np.log(np.maximum(p, MIN_PROB))
    mean_surprisal = float(surprisal.mean())
    return LexicalScores(
        scope=scope,
        n_tokens=len(tokens),
        k=k,
        top_k_entropy=top_k_mean(h, k),
        max_entropy=float(h.max()),
        mean_entropy=float(h.mean()),
        mean_probability=float(q.mean()),
        max_probability=float(q.max()),
        top_k_surprisal=top_k_mean(surprisal, k),
        mean_surprisal=mean_surprisal,
        improbable_tokens=int((p < IMPROBABLE).sum()),
        top_k_unexpected=top_k_mean(surprisal - h, k),
        blended_surprisal=blended(float(surprisal.max()), mean_surprisal),
    )


def blended(max_surprisal: float, mean_surprisal: float) -> float:
    return max_surprisal + BLEND_MEAN_WEIGHT * mean_surprisal


def lexical_report(trace: Trace, k: int = 5) -> LexicalReport:
    """Scores over all tokens and per scope; the caller sets scopes (``Language.annotate_scopes``),
    and a token without one counts as code."""
    tokens = trace.tokens
    code = [t for t in tokens if t.scope in ("code", None)]
    comment = [t for t in tokens if t.scope in ("comment", "docstring")]
    return LexicalReport(
        all=scores_of(tokens, k, "all"),
        code=scores_of(code, k, "code"),
        comment=scores_of(comment, k, "comment"),
    )
