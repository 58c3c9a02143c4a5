"""The chance's constrained logistic fit (qualm.fitting.doubt_logistic) and its stopping rule: the
result meets the optimum's KKT conditions, agrees with scikit-learn where no bound binds, holds a
weight that wants to rise at exactly 0, and a fit that cannot reach the tolerance says how far it got.

Real SciPy and scikit-learn on small made-up data; no model."""

from __future__ import annotations

import numpy as np
import pytest

from qualm.fitting import doubt_logistic
from qualm.fitting.doubt_logistic import fit_doubt_logistic, residual_tolerance


def data(seed: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Two standardised signals of doubt: the first lowers the chance of passing, the second (noise
    correlated with the first) would get a positive weight from an unconstrained fit."""
    rng = np.random.default_rng(seed)
    doubt = rng.normal(size=n)
    noise = 0.8 * doubt + 0.6 * rng.normal(size=n)
    passed = (rng.random(n) < 1 / (1 + np.exp(2.0 * doubt - 0.8 * noise))).astype(int)
    return np.column_stack([doubt, noise]), passed


def gradient(x: np.ndarray, y: np.ndarray, c: float, coef: list[float], intercept: float) -> np.ndarray:
    z = x @ np.asarray(coef) + intercept
    r = c * (1 / (1 + np.exp(-z)) - y)
    return np.append(x.T @ r + np.asarray(coef), r.sum())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_fit_meets_the_optimum_s_conditions(seed):
    x, y = data(seed)
    fit = fit_doubt_logistic(x.tolist(), y.tolist(), 1.0)
    g = gradient(x, y, 1.0, fit.coef, fit.intercept)
    assert fit.residual <= residual_tolerance(len(y), 1.0)
    assert all(w <= 0.0 for w in fit.coef)
    assert abs(g[-1]) <= residual_tolerance(len(y), 1.0)  # the intercept is free
    for w, gw in zip(fit.coef, g[:-1]):
        if w < 0:
            assert abs(gw) <= residual_tolerance(len(y), 1.0)
        else:
            assert w == 0.0 and gw <= 0.0  # held at its bound: the objective would fall only if it rose


def test_a_weight_that_would_rise_is_held_at_exactly_zero():
    x, y = data(0)
    fit = fit_doubt_logistic(x.tolist(), y.tolist(), 1.0)
    assert fit.coef[0] < 0 and fit.coef[1] == 0.0


def test_where_no_bound_binds_it_is_scikit_learn_s_fit():
    from sklearn.linear_model import LogisticRegression

    x, y = data(5)
    x = x[:, :1]  # the doubt alone: its weight is negative, the bound never binds
    fit = fit_doubt_logistic(x.tolist(), y.tolist(), 0.5)
    theirs = LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000).fit(x, y)
    assert fit.coef[0] < 0
    assert fit.coef[0] == pytest.approx(float(theirs.coef_[0][0]), abs=1e-6)
    assert fit.intercept == pytest.approx(float(theirs.intercept_[0]), abs=1e-6)


def test_a_fit_that_cannot_reach_the_tolerance_says_how_far_it_got(monkeypatch):
    x, y = data(1)
    monkeypatch.setattr(doubt_logistic, "NEWTON_STEPS", 0)
    monkeypatch.setattr(doubt_logistic, "RELATIVE_RESIDUAL", 1e-30)
    with pytest.raises(ValueError, match=r"natural residual is [0-9.e+-]+, above the tolerance"):
        fit_doubt_logistic(x.tolist(), y.tolist(), 1.0)
