"""Uncertainty levels in words, for display: the editor shows levels, the hover shows numbers."""

from __future__ import annotations

from typing import Literal

Level = Literal["confident", "low", "medium", "high"]
LEVELS: tuple[Level, ...] = ("confident", "low", "medium", "high")
LEVEL_WORDS: dict[Level, str] = {
    "confident": "confident",
    "low": "slightly uncertain",
    "medium": "uncertain",
    "high": "very uncertain",
}


def level_of(entropy: float, thresholds: tuple[float, float, float]) -> Level:
    """``thresholds`` are the entropies (nats) at which low, medium and high begin."""
    level: Level = "confident"
    for name, bound in zip(LEVELS[1:], thresholds):
        if entropy >= bound:
            level = name
    return level


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
