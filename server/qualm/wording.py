"""The words qualm shows for its numbers, in one place for every front end (the editor's hovers and
lens, the command line, ``qualm check``): what a level, the ensemble, a lexical score and the
chance of passing mean. The numbers themselves are computed elsewhere (``qualm.levels``,
``qualm.ensemble``, ``qualm.signals.lexical``, ``qualm.chance``); an assessment's sentences are
built from these in ``qualm.summary``.
"""

from __future__ import annotations

from .levels import Level
from .signals.lexical import SIGNALS

LEVEL_WORDS: dict[Level, str] = {
    "confident": "confident",
    "low": "slightly uncertain",
    "medium": "uncertain",
    "high": "very uncertain",
}


def ensemble_words(score: float | None) -> str:
    """The ensemble (a weighted percentile against the model's reference problems) in words."""
    if score is None:
        return "not calibrated"
    if score < 0.25:
        return "confident"
    if score < 0.5:
        return "fairly sure"
    if score < 0.75:
        return "uncertain"
    return "very uncertain"


# The lexical scores by name, as an axis's note and the gate say them (declared with the scores,
# qualm.signals.lexical.SIGNALS).
LEXICAL_SIGNAL_WORDS = {s.name: s.words for s in SIGNALS}


# What the chance is and where it was measured, said wherever it is shown (hover, lens, CLI): the
# fit's figures are of benchmark functions, never of the user's code.
CHANCE_BASIS = (
    "fitted and checked on benchmark functions (HumanEval and MBPP solutions and one-edit bugs in them), "
    "not on code like yours: a guide to where to look, not a guarantee. It is least reliable where the "
    "docstring's examples pass and no self-test fails"
)


def chance_words(p: float, failed_tests: int | None = 1) -> str:
    """What a chance of passing means for what to do next. ``failed_tests``: how many self-tests
    failed (None: none ran), so the advice points at something that exists."""
    if p >= 0.8:
        return "likely passes"
    if p >= 0.5:
        if failed_tests is None:
            return "may pass: no self-test ran, so read it closely"
        return "may pass: check the failing self-tests" if failed_tests else "may pass: its self-tests pass, but read it closely"
    if p >= 0.2:
        return "doubtful: read it closely"
    return "likely wrong"
