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


def fit_pass_model(examples: Sequence[Example], features: Sequence[str], fitted_on: str, c: float = 1.0, settings: Mapping | None = None) -> PassModel:
    """A logistic regression (L2, ``C = c``) on standardised features whose coefficients are all
    ``<= 0``: every signal is oriented so that larger means more doubt (``qualm.chance.signals_of``),
    so no signal can raise the chance as it grows (an unconstrained fit gave failed self-tests a
    positive weight where they correlated with other signals). A missing value takes the feature's
    training mean."""
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
    coef, intercept = _doubt_logistic(rows, [int(e.passed) for e in examples], c)
    return PassModel(
        features=list(features),
        mean=mean,
        scale=scale,
        coef=coef,
        intercept=intercept,
        fitted_on=fitted_on,
        n_fitted=len(examples),
        settings=dict(settings or {}),
    )


def _doubt_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int], c: float) -> tuple[list[float], float]:
    """Scikit-learn's L2 logistic objective (``c`` times the summed log-loss plus half the squared
    weights; the intercept is not penalised) minimised with every weight bounded to ``<= 0``, by
    SciPy's L-BFGS-B (scikit-learn has no bounds on coefficients)."""
    import numpy as np  # noqa: PLC0415 - the eval extra, offline only
    from scipy.optimize import minimize  # noqa: PLC0415
    from scipy.special import expit, log_expit  # noqa: PLC0415

    x = np.asarray(rows, dtype=float)
    y = np.asarray(labels, dtype=float)
    sign = 2 * y - 1  # the log-loss of a label is -log(sigmoid(sign * z))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = x @ w + b
        value = -c * float(np.sum(log_expit(sign * z))) + 0.5 * float(w @ w)
        residual = c * (expit(z) - y)  # d(c * log-loss)/dz
        return value, np.append(x.T @ residual + w, residual.sum())

    n = x.shape[1]
    found = minimize(loss, np.zeros(n + 1), jac=True, method="L-BFGS-B", bounds=[(None, 0.0)] * n + [(None, None)], options={"maxiter": 10000, "ftol": 1e-15, "gtol": 1e-10})
    if not found.success:
        raise ValueError(f"the constrained logistic fit did not converge: {found.message}")
    return [float(w) for w in found.x[:-1]], float(found.x[-1])


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
