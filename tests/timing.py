"""Wall-clock limits in the tests, scaled for slow or loaded machines.

Tests check what happened (a fake clock, the scripted backend's delay per token, a completion that
cannot end first) rather than how fast; where a limit must stay (a bound on a hang, a time limit the
sandbox enforces), it is multiplied by ``QUALM_TEST_TIME_FACTOR`` (default 1): on a machine that is
busy with other work, ``QUALM_TEST_TIME_FACTOR=3 scripts/test`` gives every such limit three times
the time.
"""

from __future__ import annotations

import os


def _factor() -> float:
    raw = os.environ.get("QUALM_TEST_TIME_FACTOR", "").strip() or "1"
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"QUALM_TEST_TIME_FACTOR must be a number, got {raw!r}") from None
    if not value > 0:
        raise ValueError(f"QUALM_TEST_TIME_FACTOR must be above 0, got {raw!r}")
    return value


TIME_FACTOR = _factor()


def seconds(limit: float) -> float:
    """``limit`` seconds on a machine of normal speed, scaled by QUALM_TEST_TIME_FACTOR."""
    return limit * TIME_FACTOR
