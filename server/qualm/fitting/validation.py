"""How well a doubt score or a chance of passing tells right functions from wrong ones: AUROC (with a
bootstrap interval over pairs) and a fitted chain's quality on the holdout split, which no choice
has seen. scikit-learn and SciPy (the ``eval`` extra) are imported where used."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..chance import PassModel
from .chance_fit import Example, Reliability, reliability
from .pairs import describe_split


def auroc_fails(examples: Sequence[Example], doubt: Sequence[float | None]) -> tuple[float | None, int]:
    """AUROC of a doubt score for "this function fails", over the functions that have it
    (scikit-learn's, ties counting half; None without both outcomes)."""
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415 - the eval extra, like the fit

    kept = [(not e.passed, u) for e, u in zip(examples, doubt) if u is not None]
    if len({y for y, _ in kept}) < 2:
        return None, len(kept)
    return float(roc_auc_score([y for y, _ in kept], [u for _, u in kept])), len(kept)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    se: float  # the bootstrap distribution's standard deviation

    def __str__(self) -> str:
        return f"{self.low:.3f} to {self.high:.3f}"


def pair_doubts(examples: Sequence[Example], doubt: Sequence[float | None]) -> list[tuple[float, float]]:
    """(right function's, wrong function's) doubt of each pair, from ``examples_of``'s order (each
    pair's original, then its mutant); a pair with a function without a doubt is left out."""
    if len(examples) % 2 or any(not (r.passed and not w.passed and r.task_id == w.task_id) for r, w in zip(examples[::2], examples[1::2])):
        raise ValueError("the examples are not right/wrong pairs in order (examples_of's order)")
    return [(a, b) for a, b in zip(doubt[::2], doubt[1::2]) if a is not None and b is not None]


def pairs_auroc_interval(doubt: Sequence[tuple[float, float]], against: Sequence[tuple[float, float]] | None = None, resamples: int = 2000, seed: int = 0) -> Interval | None:
    """A 95 % percentile bootstrap interval of the AUROC right-vs-wrong of a doubt score given as
    (right function's, wrong function's) per pair; with ``against`` (the same pairs, in the same
    order, scored another way), of AUROC(doubt) - AUROC(against). The pair is the unit drawn
    (scipy.stats.bootstrap over pair indices): its two functions share a problem, its tests and
    solutions, so drawing functions apart would understate the spread. Only the pairs' sampling is
    in it: a second draw of the same pairs' samples moves a figure too (see README). None for fewer
    than two pairs (nothing to resample)."""
    import numpy as np  # noqa: PLC0415 - the eval extra, like the fit
    from scipy.stats import bootstrap  # noqa: PLC0415
    from sklearn.metrics import roc_auc_score  # noqa: PLC0415

    if against is not None and len(against) != len(doubt):
        raise ValueError(f"{len(doubt)} pairs against {len(against)}: the same pairs are needed")
    if len(doubt) < 2:
        return None

    def auroc(scores: Sequence[tuple[float, float]], idx: np.ndarray) -> float:
        return float(roc_auc_score([0, 1] * len(idx), [u for i in idx for u in scores[i]]))

    def statistic(idx: np.ndarray) -> float:
        return auroc(doubt, idx) - (auroc(against, idx) if against is not None else 0.0)

    res = bootstrap((np.arange(len(doubt)),), statistic, vectorized=False, n_resamples=resamples, method="percentile", random_state=np.random.default_rng(seed))
    return Interval(float(res.confidence_interval.low), float(res.confidence_interval.high), float(res.standard_error))


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error (sample standard deviation / sqrt(n))."""
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((x - mean) ** 2 for x in values) / max(1, len(values) - 1) / len(values))


@dataclass(frozen=True)
class HoldoutQuality:
    description: str
    chances: list[float | None]
    auroc: float | None
    reliability: Reliability | None


def holdout_quality(model: PassModel, holdout: Sequence[Example]) -> HoldoutQuality:
    chances = [model.probability(e.signals) for e in holdout]
    auc, _ = auroc_fails(holdout, [None if p is None else 1 - p for p in chances])
    present = [(p, e.passed) for p, e in zip(chances, holdout) if p is not None]
    rel = reliability([p for p, _ in present], [y for _, y in present]) if present else None
    return HoldoutQuality(describe_split(holdout, "holdout"), chances, auc, rel)


def with_quality(model: PassModel, quality: HoldoutQuality | None) -> PassModel:
    if quality is None or quality.reliability is None:
        return model
    return replace(model, evaluated_on=quality.description, quality={"brier": quality.reliability.brier, "ece": quality.reliability.ece, "auroc": quality.auroc if quality.auroc is not None else float("nan")})


def with_chain_quality(model: PassModel, holdout: Sequence[Example]) -> tuple[PassModel, HoldoutQuality | None]:
    """The chain with its quality on the holdout functions: the whole chain's on every one (the
    first fit carries it), and each later fit's alone on the holdout functions with all its signals."""
    if not holdout:
        return model, None
    links = model.chain()
    rebuilt: PassModel | None = None
    for link in reversed(links[1:]):
        alone = replace(link, fallback=None)
        served = [e for e in holdout if not alone.missing(e.signals)]
        quality = holdout_quality(alone, served) if len({e.passed for e in served}) == 2 else None
        if quality is not None:
            quality = replace(quality, description=f"the {len(served)} holdout functions with its signals")
        rebuilt = replace(with_quality(alone, quality), fallback=rebuilt)
    head = replace(model, fallback=rebuilt)
    quality = holdout_quality(head, holdout)
    return with_quality(head, quality), quality
