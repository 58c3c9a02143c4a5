"""Entropy from the top N probabilities (remote engines): hand-computed cases and the bounds'
guarantee on random distributions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qualm.entropy_bounds import entropy_bound, geometric_tail_entropy


def test_hand_computed_bounds_on_a_four_token_vocabulary():
    # known [0.5, 0.25]: H_N = 0.5 ln 2 + 0.25 ln 4 = ln 2; tail r = 0.25 over 2 tokens
    b = entropy_bound([0.25, 0.5], vocab_size=4, estimator="lower")
    assert b.known == 2 and b.tail_mass == pytest.approx(0.25)
    # lower: the tail is one token of p_N = 0.25, the distribution [.5, .25, .25]
    assert b.lower == pytest.approx(1.5 * math.log(2))
    # upper: the tail spread over the two other tokens, [.5, .25, .125, .125]
    assert b.upper == pytest.approx(math.log(2) + 0.25 * math.log(8))
    assert b.estimate == b.lower and not b.exact
    assert entropy_bound([0.25, 0.5], 4, "midpoint").estimate == pytest.approx(0.5 * (b.lower + b.upper))


def test_a_complete_distribution_is_exact():
    b = entropy_bound([0.5, 0.5], vocab_size=10)
    assert b.exact and b.lower == b.upper == b.estimate == pytest.approx(math.log(2))


def test_geometric_tail_matches_its_series():
    p_last, mass = 0.05, 0.3
    rho = mass / (p_last + mass)
    series = sum(p_last * rho**k * -math.log(p_last * rho**k) for k in range(1, 2000))
    assert sum(p_last * rho**k for k in range(1, 2000)) == pytest.approx(mass)
    assert geometric_tail_entropy(p_last, mass) == pytest.approx(series, rel=1e-9)


def test_rounded_engine_values_are_clamped():
    b = entropy_bound([0.6, 0.5], vocab_size=100)  # sums above 1 by rounding
    assert b.tail_mass == 0.0 and b.exact
    assert entropy_bound([], vocab_size=8).upper == pytest.approx(math.log(8))
    with pytest.raises(ValueError, match="unknown estimator"):
        entropy_bound([0.5], 4, "mean")  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [1, 5, 20])
def test_bounds_hold_on_random_distributions(n):
    rng = np.random.default_rng(n)
    for alpha in (0.01, 0.1, 1.0):
        p = rng.dirichlet(np.full(2000, alpha))
        exact = float(-(p[p > 0] * np.log(p[p > 0])).sum())
        top = np.sort(p)[::-1][:n]
        for est in ("lower", "geometric", "midpoint"):
            b = entropy_bound(top.tolist(), 2000, est)  # type: ignore[arg-type]
            assert b.lower - 1e-9 <= exact <= b.upper + 1e-9
            assert b.lower - 1e-12 <= b.estimate <= b.upper + 1e-12
