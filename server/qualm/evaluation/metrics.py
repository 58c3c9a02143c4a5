"""The paper's evaluation metrics: AUROC and PRAUC of an uncertainty score, pass@1, correlations
between the axes, and the rank-normalised weighted ensemble.

Conventions, as in the paper ("Metrics" paragraph): the positive class is a *correct* program (it
passes the problem's official hidden tests, never the self-generated ones) and the ranking score is
−U, i.e. confidence. AUROC 1.0 therefore means every correct program was scored less uncertain than
every incorrect one, 0.5 is chance, and below 0.5 the score points the wrong way.

A method may have no score for some problems (no tests could be generated, a sampling run failed).
Such values are ``None`` (a float NaN is read the same way) and are imputed by
:func:`impute_missing`; the number imputed is reported alongside every metric.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

# The paper's fixed ensemble weights, in axis order (lexical, algorithmic, functional).
PAPER_WEIGHTS: tuple[float, float, float] = (0.2, 0.4, 0.4)


@dataclass(frozen=True)
class Imputed:
    """Scores with every unavailable value replaced, and how many were replaced."""

    values: tuple[float, ...]
    missing: int


@dataclass(frozen=True)
class RocPoints:
    """An ROC curve, positive class = correct, score = −U."""

    fpr: tuple[float, ...]  # fraction of incorrect programs accepted at each threshold
    tpr: tuple[float, ...]  # fraction of correct programs accepted at each threshold


@dataclass(frozen=True)
class MethodMetrics:
    name: str
    family: str
    auroc: float | None  # None: only one class among the labels, or no score at all
    prauc: float | None
    n: int  # problems evaluated
    missing: int  # of those, how many had no score and were imputed
    seconds_per_problem: float | None  # None: not measured on this machine (computed on another)


def is_missing(value: float | None) -> bool:
    """``None`` and NaN both mean "this method produced no score for this problem"."""
    if value is None:
        return True
    try:
        return math.isnan(value)
    except TypeError:
        return False


def count_missing(values: Sequence[float | None]) -> int:
    return sum(1 for v in values if is_missing(v))


def impute_missing(uncertainty: Sequence[float | None]) -> Imputed | None:
    """Replace unavailable scores with the mean of the available ones; None if none is available.

    Why impute rather than drop: every method must be scored on the *same* problems. A method that
    fails on hard problems (say, no tests could be generated) would otherwise be judged on an
    easier subset and look better than it is, and its AUROC could not be compared with the others'.
    The mean of the method's own available scores is a neutral stand-in: it lies in the middle of
    that method's range, so the problem neither confirms nor contradicts the method, which is what
    "no signal" should mean. How many were imputed is reported next to the metric.
    """
    present = [float(v) for v in uncertainty if not is_missing(v)]
    if not present:
        return None
    fill = float(np.mean(present))
    values = tuple(fill if is_missing(v) else float(v) for v in uncertainty)
    return Imputed(values=values, missing=len(values) - len(present))


def _labels_and_confidence(
    labels: Sequence[bool], uncertainty: Sequence[float | None]
) -> tuple[np.ndarray, np.ndarray] | None:
    """Labels as booleans and −U as the score, or None when the metric is undefined (one class,
    or no score at all)."""
    if len(labels) != len(uncertainty):
        raise ValueError(f"{len(labels)} labels but {len(uncertainty)} uncertainty values")
    y = np.asarray([bool(label) for label in labels], dtype=bool)
    if y.size == 0 or y.all() or not y.any():
        return None
    imputed = impute_missing(uncertainty)
    if imputed is None:
        return None
    return y, -np.asarray(imputed.values, dtype=float)


def auroc(labels: Sequence[bool], uncertainty: Sequence[float | None]) -> float | None:
    """Area under the ROC curve, positive = correct, score = −U; None when only one class."""
    prepared = _labels_and_confidence(labels, uncertainty)
    if prepared is None:
        return None
    y, confidence = prepared
    return float(roc_auc_score(y, confidence))


def prauc(labels: Sequence[bool], uncertainty: Sequence[float | None]) -> float | None:
    """Average precision (area under the precision-recall curve), positive = correct,
    score = −U; None when only one class."""
    prepared = _labels_and_confidence(labels, uncertainty)
    if prepared is None:
        return None
    y, confidence = prepared
    return float(average_precision_score(y, confidence))


def roc_points(labels: Sequence[bool], uncertainty: Sequence[float | None]) -> RocPoints | None:
    """The ROC curve behind :func:`auroc`, for plotting; None when only one class."""
    prepared = _labels_and_confidence(labels, uncertainty)
    if prepared is None:
        return None
    y, confidence = prepared
    fpr, tpr, _ = roc_curve(y, confidence)
    return RocPoints(fpr=tuple(float(x) for x in fpr), tpr=tuple(float(x) for x in tpr))


def pass_at_1(labels: Sequence[bool]) -> float:
    """Fraction of problems whose (single, greedy) candidate passes the official tests."""
    if len(labels) == 0:
        raise ValueError("pass@1 of no problems is undefined")
    return float(np.mean([bool(label) for label in labels]))


def _complete_pairs(
    a: Sequence[float | None], b: Sequence[float | None]
) -> tuple[list[float], list[float]]:
    if len(a) != len(b):
        raise ValueError(f"cannot correlate {len(a)} values with {len(b)}")
    pairs = [(float(x), float(y)) for x, y in zip(a, b) if not is_missing(x) and not is_missing(y)]
    return [x for x, _ in pairs], [y for _, y in pairs]


def _correlatable(xs: list[float], ys: list[float]) -> bool:
    # Fewer than 3 pairs says nothing, and a constant input has no defined correlation.
    return len(xs) >= 3 and len(set(xs)) > 1 and len(set(ys)) > 1


def pearson(a: Sequence[float | None], b: Sequence[float | None]) -> float | None:
    """Pearson r over the problems where both values are available."""
    xs, ys = _complete_pairs(a, b)
    if not _correlatable(xs, ys):
        return None
    return float(stats.pearsonr(xs, ys).statistic)


def spearman(a: Sequence[float | None], b: Sequence[float | None]) -> float | None:
    """Spearman rho over the problems where both values are available."""
    xs, ys = _complete_pairs(a, b)
    if not _correlatable(xs, ys):
        return None
    return float(stats.spearmanr(xs, ys).statistic)


def complete_pairs_count(a: Sequence[float | None], b: Sequence[float | None]) -> int:
    return len(_complete_pairs(a, b)[0])


def rank_normalise(values: Sequence[float | None]) -> list[float | None]:
    """Ranks over the evaluation set scaled to [0, 1]: (rank − 1) / (n − 1), ties sharing their
    average rank. None stays None; a single available value maps to 0.5 (the middle, as a set of
    all-tied values does)."""
    present = [i for i, v in enumerate(values) if not is_missing(v)]
    out: list[float | None] = [None] * len(values)
    if len(present) == 1:
        out[present[0]] = 0.5
    elif present:
        ranks = stats.rankdata([float(values[i]) for i in present], method="average")
        for i, rank in zip(present, ranks):
            out[i] = float((rank - 1) / (len(present) - 1))
    return out


def weighted_ensemble(
    axes: Sequence[Sequence[float | None]], weights: Sequence[float]
) -> list[float | None]:
    """The paper's ensemble: rank-normalise each axis over the set, then per problem the weighted
    mean over the axes available for it, the weights renormalised over those axes (None when no
    axis is available). Rank-normalising first puts axes with different scales on one footing."""
    if not axes or len(axes) != len(weights):
        raise ValueError(f"{len(axes)} axes but {len(weights)} weights")
    if len({len(axis) for axis in axes}) != 1:
        raise ValueError("every axis must score the same problems")
    if any(not math.isfinite(w) or w < 0 for w in weights):
        raise ValueError(f"weights must be finite and non-negative: {list(weights)}")
    normalised = [rank_normalise(axis) for axis in axes]
    out: list[float | None] = []
    for i in range(len(axes[0])):
        available = [(ranks[i], w) for ranks, w in zip(normalised, weights) if ranks[i] is not None]
        if not available or sum(w for _, w in available) == 0:
            out.append(None)
            continue
        out.append(float(np.average([r for r, _ in available], weights=[w for _, w in available])))
    return out


def evaluate_method(
    name: str,
    family: str,
    labels: Sequence[bool],
    uncertainty: Sequence[float | None],
    seconds_per_problem: float | None,
) -> MethodMetrics:
    """All of one method's metrics on one run."""
    return MethodMetrics(
        name=name,
        family=family,
        auroc=auroc(labels, uncertainty),
        prauc=prauc(labels, uncertainty),
        n=len(labels),
        missing=count_missing(uncertainty),
        seconds_per_problem=None if seconds_per_problem is None else float(seconds_per_problem),
    )
