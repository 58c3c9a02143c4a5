"""Uncertainty levels: an entropy (nats) placed against the thresholds. The editor shows levels, the
hover shows numbers; the levels in words are ``qualm.wording.LEVEL_WORDS``."""

from __future__ import annotations

from typing import Literal

Level = Literal["confident", "low", "medium", "high"]
LEVELS: tuple[Level, ...] = ("confident", "low", "medium", "high")


def level_of(entropy: float, thresholds: tuple[float, float, float]) -> Level:
    """``thresholds`` are the entropies (nats) at which low, medium and high begin."""
    level: Level = "confident"
    for name, bound in zip(LEVELS[1:], thresholds):
        if entropy >= bound:
            level = name
    return level
