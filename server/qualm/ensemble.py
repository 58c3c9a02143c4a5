"""The weighted ensemble: the weighted mean of the available axes' percentiles (each placed against
the model's reference distribution, ``qualm.calibration_file``; default weights 0.2 lexical,
0.4 algorithmic, 0.4 functional), re-weighted over the axes that are available.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class EnsembleResult:
    score: float | None  # weighted mean of available percentiles; None without calibration
    weights_used: dict[str, float]  # renormalised over the available axes


def ensemble(percentiles: Mapping[str, float | None], weights: Mapping[str, float]) -> EnsembleResult:
    available = {a: p for a, p in percentiles.items() if p is not None and weights.get(a, 0.0) > 0}
    total = sum(weights[a] for a in available)
    if not available or total <= 0:
        return EnsembleResult(None, {})
    used = {a: weights[a] / total for a in available}
    return EnsembleResult(sum(used[a] * p for a, p in available.items()), used)
