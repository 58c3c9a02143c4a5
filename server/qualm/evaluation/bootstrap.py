"""Paired bootstrap of AUROC over problems: how sure a difference between two methods' AUROC is.

One set of resamples per run: problems drawn with replacement (a fixed seed, so a report is
written the same every time), the *same* resample for every method, so each difference is paired
(both methods judged on the same problems, and what they share cancels out). Every method's AUROC
is computed once per resample; a difference's 95 % interval is the 2.5th and 97.5th percentiles of
its resampled values (percentile interval).

Why not ``scipy.stats.bootstrap``: with ``paired=True`` it could resample (labels, A, B) together,
but it draws its resamples again for every comparison, recomputes each method's AUROC per
comparison, and a resample holding one class only (AUROC undefined) turns its bounds into NaN. Here
one index matrix serves every comparison of a run, a method's AUROC is one vectorised rank sum
(equal to ``sklearn.metrics.roc_auc_score``, ties counted half), and one-class resamples are
drawn again rather than kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from .metrics import impute_missing

RESAMPLES = 2000
SEED = 20_251_128
LEVEL = 0.95


class PairedAurocBootstrap:
    """The resamples of one run's problems and every method's AUROC on each of them."""

    def __init__(self, labels: Sequence[bool], resamples: int = RESAMPLES, seed: int = SEED) -> None:
        y = np.asarray([bool(label) for label in labels], dtype=bool)
        n = y.size
        if n == 0 or y.all() or not y.any():
            raise ValueError("AUROC needs both correct and incorrect problems")
        self.resamples, self.seed = resamples, seed
        rng = np.random.default_rng(seed)
        kept: list[np.ndarray] = []
        count = 0
        while count < resamples:  # a resample of one class has no AUROC: draw another instead
            idx = rng.integers(0, n, size=(resamples, n))
            correct = y[idx].sum(axis=1)
            idx = idx[(correct > 0) & (correct < n)]
            kept.append(idx)
            count += len(idx)
        self._idx = np.concatenate(kept)[:resamples]
        self._y = y[self._idx]
        self._n_pos = self._y.sum(axis=1)
        self._n_neg = n - self._n_pos

    def aurocs(self, uncertainty: Sequence[float | None]) -> np.ndarray | None:
        """AUROC on each resample (positive = correct, score = −U, unavailable scores imputed
        with the mean over all problems as :func:`metrics.auroc` does); None when no score."""
        imputed = impute_missing(uncertainty)
        if imputed is None:
            return None
        confidence = -np.asarray(imputed.values, dtype=float)[self._idx]
        ranks = stats.rankdata(confidence, axis=1)  # ties share their average rank
        rank_sum = np.where(self._y, ranks, 0.0).sum(axis=1)
        return (rank_sum - self._n_pos * (self._n_pos + 1) / 2) / (self._n_pos * self._n_neg)

    def interval(self, values: np.ndarray) -> tuple[float, float]:
        """The percentile interval at :data:`LEVEL` of a statistic's resampled values."""
        tail = (1 - LEVEL) / 2 * 100
        low, high = np.percentile(values, [tail, 100 - tail])
        return float(low), float(high)
