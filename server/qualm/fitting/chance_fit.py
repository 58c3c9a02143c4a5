"""Fitting the chance of passing (``qualm.chance.PassModel``) and measuring its calibration.

Offline only (scikit-learn, the ``eval`` extra): the benchmark fits on the tune split of the
right/wrong pairs and measures on the holdout split; the server only evaluates the shipped numbers.
The fit refuses any problem outside the calibration splits (HumanEval, MBPP task_ids 511-974):
MBPP 11-510 is the evaluation's test split and no number may be tuned on it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..chance import PassModel
from .doubt_logistic import fit_doubt_logistic
from .reference_data import MBPP_CALIBRATION_IDS


class SplitError(ValueError):
    pass


def check_fit_split(task_ids: Sequence[str]) -> None:
    """Only HumanEval and MBPP task_ids 511-974 may be fitted on."""
    for task_id in task_ids:
        name, _, number = task_id.partition("/")
        if name == "HumanEval":
            continue
        if name == "MBPP" and number.isdigit() and int(number) in MBPP_CALIBRATION_IDS:
            continue
        raise SplitError(f"{task_id}: the chance of passing may only be fitted on HumanEval or MBPP task_ids 511-974 (MBPP 11-510 is the test split)")


@dataclass(frozen=True)
class Example:
    task_id: str
    signals: Mapping[str, float | None]
    passed: bool
    generated: bool = False  # the model's own greedy code (official label), not a right/wrong pair's function
    # a right/wrong pair the docstring's examples do not decide (the wrong function passes them, or
    # the docstring gives none): a kind a chain is judged on apart (qualm.fitting.chain)
    undecided: bool = False

    @property
    def kind(self) -> str:
        return "generated" if self.generated else "undecided" if self.undecided else "pairs"


def fit_pass_model(examples: Sequence[Example], features: Sequence[str], fitted_on: str, c: float = 1.0, settings: Mapping | None = None) -> PassModel:
    """A logistic regression (L2, ``C = c``) on standardised features whose coefficients are all
    ``<= 0``: every signal is oriented so that larger means more doubt (``qualm.chance.signals_of``),
    so no signal can raise the chance as it grows (an unconstrained fit gave failed self-tests a
    positive weight where they correlated with other signals). A missing value takes the feature's
    training mean. The optimiser and its stopping rule: ``qualm.fitting.doubt_logistic``."""
    check_fit_split([e.task_id for e in examples])
    if len({e.passed for e in examples}) < 2:
        raise ValueError("the fit needs functions that pass and functions that fail")
    mean, scale = [], []
    for f in features:
        present = [float(v) for e in examples if (v := e.signals.get(f)) is not None]
        if not present:
            raise ValueError(f"no example has the signal {f}")
        mu = sum(present) / len(present)
        sd = math.sqrt(sum((x - mu) ** 2 for x in present) / len(present))
        mean.append(mu)
        scale.append(sd if sd > 0 else 1.0)
    rows = [[((v - mu) / sd) if (v := e.signals.get(f)) is not None else 0.0 for f, mu, sd in zip(features, mean, scale)] for e in examples]
    fit = fit_doubt_logistic(rows, [int(e.passed) for e in examples], c)
    return PassModel(
        features=list(features),
        mean=mean,
        scale=scale,
        coef=fit.coef,
        intercept=fit.intercept,
        fitted_on=fitted_on,
        n_fitted=len(examples),
        settings=dict(settings or {}),
    )


@dataclass(frozen=True)
class Reliability:
    brier: float
    ece: float  # expected calibration error over equal-width bins
    bins: list[tuple[float, float, int, float, float]]  # (low, high, count, mean chance, share that passed)


def reliability(chances: Sequence[float], passed: Sequence[bool], n_bins: int = 10) -> Reliability:
    """Brier score, ECE and the reliability diagram's bins of predicted chances against outcomes."""
    if not chances or len(chances) != len(passed):
        raise ValueError("reliability needs one outcome per chance")
    n = len(chances)
    brier = sum((p - float(y)) ** 2 for p, y in zip(chances, passed)) / n
    bins = []
    ece = 0.0
    for b in range(n_bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        inside = [(p, y) for p, y in zip(chances, passed) if lo <= p < hi or (b == n_bins - 1 and p == 1.0)]
        if not inside:
            continue
        conf = sum(p for p, _ in inside) / len(inside)
        acc = sum(float(y) for _, y in inside) / len(inside)
        ece += len(inside) / n * abs(acc - conf)
        bins.append((lo, hi, len(inside), conf, acc))
    return Reliability(brier, ece, bins)
