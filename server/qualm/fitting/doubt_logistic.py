"""The chance of passing's logistic fit: scikit-learn's L2 objective with every weight ``<= 0``.

The objective is ``c`` times the summed log-loss plus half the squared weights (the intercept is not
penalised), minimised over weights bounded to ``<= 0`` (scikit-learn has no bounds on coefficients).
It is strictly convex, so its optimum is one point, and this module says in its own terms when it has
reached it: the fit ends when the largest component of the natural residual
``theta - P(theta - grad f(theta))`` (``P`` puts each weight back to ``<= 0``; zero exactly at the
optimum's KKT conditions) is at most ``residual_tolerance(n, c)``, and raises with the residual's size
when it cannot get there.

How: SciPy's L-BFGS-B from zero finds the optimum's face (which weights sit at 0), then projected
Newton steps on the free weights and the intercept polish it. L-BFGS-B's own verdict is not the
rule: on some OpenBLAS kernels (Haswell, Zen) its line search ends "ABNORMAL" a hair from the
optimum, on others (Prescott) it reports convergence at the same point; after the Newton polish the
coefficients agree across kernels to about 1e-12 (tests/unit/test_fit_kernels.py runs the fits
under several kernels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The natural residual's largest component, per unit of the objective's scale (c times the number of
# rows: the gradient is a sum over rows). Newton steps end far below it (about 1e-12 on the shipped
# fits); L-BFGS-B alone stopped between 4e-14 and 2e-6 on the same fits.
RELATIVE_RESIDUAL = 1e-9
NEWTON_STEPS = 50


def residual_tolerance(n_rows: int, c: float) -> float:
    return RELATIVE_RESIDUAL * max(1.0, c * n_rows)


@dataclass(frozen=True)
class LogisticFit:
    coef: list[float]
    intercept: float
    residual: float  # the natural residual's largest component at the result (the stopping rule's measure)
    newton_steps: int


def fit_doubt_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int], c: float) -> LogisticFit:
    """The constrained optimum (module docstring), or ValueError naming the residual it stopped at."""
    import numpy as np  # noqa: PLC0415 - the eval extra, offline only
    from scipy.optimize import minimize  # noqa: PLC0415
    from scipy.special import expit, log_expit  # noqa: PLC0415

    x = np.asarray(rows, dtype=float)
    y = np.asarray(labels, dtype=float)
    n_rows, n = x.shape
    sign = 2 * y - 1  # the log-loss of a label is -log(sigmoid(sign * z))
    weights = np.arange(n + 1) < n  # the bounded coordinates: every one but the intercept

    def value_and_gradient(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = x @ w + b
        value = -c * float(np.sum(log_expit(sign * z))) + 0.5 * float(w @ w)
        residual = c * (expit(z) - y)  # d(c * log-loss)/dz
        return value, np.append(x.T @ residual + w, residual.sum())

    def hessian(theta: np.ndarray) -> np.ndarray:
        p = expit(x @ theta[:-1] + theta[-1])
        xb = np.hstack([x, np.ones((n_rows, 1))])
        h = c * (xb.T * (p * (1 - p))) @ xb
        h[:n, :n] += np.eye(n)
        return h

    def natural_residual(theta: np.ndarray, gradient: np.ndarray) -> float:
        stepped = theta - gradient
        stepped[weights] = np.minimum(stepped[weights], 0.0)
        return float(np.max(np.abs(theta - stepped)))

    start = minimize(value_and_gradient, np.zeros(n + 1), jac=True, method="L-BFGS-B", bounds=[(None, 0.0)] * n + [(None, None)], options={"maxiter": 10000, "ftol": 1e-15, "gtol": 1e-10})
    theta = np.asarray(start.x, dtype=float)
    theta[weights] = np.minimum(theta[weights], 0.0)
    tolerance = residual_tolerance(n_rows, c)
    value, gradient = value_and_gradient(theta)
    steps = 0
    # Projected Newton (Bertsekas): a weight at 0 whose gradient pushes it up stays there; Newton's
    # step on the rest, projected, halved until the objective does not rise. Polishes to the
    # residual's floor rather than stopping at the tolerance, so that every kernel lands on the same digits.
    while steps < NEWTON_STEPS:
        before = natural_residual(theta, gradient)
        if before == 0.0:
            break
        held = weights & (theta >= 0.0) & (gradient <= 0.0)
        free = ~held
        direction = np.zeros(n + 1)
        direction[free] = np.linalg.solve(hessian(theta)[np.ix_(free, free)], -gradient[free])
        accepted = None
        for halving in range(40):
            trial = theta + direction * 0.5**halving
            trial[weights] = np.minimum(trial[weights], 0.0)
            trial_value, trial_gradient = value_and_gradient(trial)
            # At the optimum the objective is flat to rounding: a step that leaves it equal to
            # rounding and shrinks the residual is progress.
            if trial_value <= value + 1e-13 * abs(value) and natural_residual(trial, trial_gradient) < before:
                accepted = trial, trial_value, trial_gradient
                break
        if accepted is None:
            break
        theta, value, gradient = accepted
        steps += 1
    residual = natural_residual(theta, gradient)
    if not residual <= tolerance:
        raise ValueError(f"the constrained logistic fit did not converge: its natural residual is {residual:.3g}, above the tolerance {tolerance:.3g} (L-BFGS-B: {start.message})")
    return LogisticFit([float(w) for w in theta[:-1]], float(theta[-1]), residual, steps)
