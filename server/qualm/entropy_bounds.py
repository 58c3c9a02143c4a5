"""Entropy of a next-token distribution known only by its N most probable tokens.

A remote engine returns the top N log-probabilities of each step (``top_logprobs``), not the
whole distribution. With p_1 >= ... >= p_N known and the tail mass r = 1 - sum(p_i) spread over
the other V - N tokens of the vocabulary, each of probability at most p_N:

    H_N = -sum_i p_i ln p_i                       (the known part)
    lower = H_N + r ln(1 / p_N)                   every tail token has q <= p_N, so -ln q >= -ln p_N
    upper = H_N + r ln((V - N) / r)               the tail spread evenly over V - N tokens

(the upper bound is the entropy of a uniform tail, the largest for a fixed mass and support; the
lower bound is reached when the tail is r / p_N tokens of probability p_N each). Both are exact
when r = 0. A point estimate must pick a tail shape; ``geometric`` continues the known tokens
with ratio rho chosen so the tail sums to r (q_k = p_N rho^k, rho = r / (p_N + r)), whose entropy
has the closed form below. Which estimate to use was measured against the local model's exact
entropies (``benchmarks/assessment/entropy_bounds.py``, results/entropy-bounds/).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Estimator = Literal["lower", "geometric", "midpoint"]
ESTIMATORS: tuple[Estimator, ...] = ("lower", "geometric", "midpoint")


@dataclass(frozen=True)
class EntropyBound:
    lower: float  # nats
    upper: float
    estimate: float  # the point estimate the lexical scores use
    tail_mass: float  # 1 - the sum of the known probabilities
    known: int  # how many probabilities were known (N)

    @property
    def exact(self) -> bool:
        return self.upper - self.lower <= 1e-9


def entropy_bound(probs: Sequence[float], vocab_size: int, estimator: Estimator = "geometric") -> EntropyBound:
    """Bounds and a point estimate of the entropy from the top ``probs`` (any order; values outside
    [0, 1] or summing above 1 by rounding are clamped: engines return rounded log-probabilities)."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; known: {', '.join(ESTIMATORS)}")
    ps = sorted((min(1.0, max(0.0, float(p))) for p in probs), reverse=True)
    ps = [p for p in ps if p > 0.0]
    total = sum(ps)
    if total > 1.0:
        ps = [p / total for p in ps]
        total = 1.0
    n = len(ps)
    known = -sum(p * math.log(p) for p in ps)
    r = max(0.0, 1.0 - total)
    others = vocab_size - n
    if n == 0:
        # nothing known: the uniform distribution is all that can be said
        h = math.log(max(vocab_size, 1))
        return EntropyBound(0.0, h, h, 1.0, 0)
    if r <= 1e-12 or others <= 0:
        return EntropyBound(known, known, known, r, n)
    p_n = ps[-1]
    lower = known + r * math.log(1.0 / p_n)
    upper = max(lower, known + r * math.log(others / r))
    if estimator == "lower":
        estimate = lower
    elif estimator == "midpoint":
        estimate = 0.5 * (lower + upper)
    else:
        estimate = min(upper, known + geometric_tail_entropy(p_n, r))
    return EntropyBound(lower, upper, estimate, r, n)


def geometric_tail_entropy(p_last: float, mass: float) -> float:
    """Entropy contribution of a tail q_k = p_last rho^k (k >= 1) of total ``mass``:
    sum q_k ln(1/q_k) = mass ln(1/p_last) + ln(1/rho) p_last rho / (1 - rho)^2, rho = mass / (p_last + mass)."""
    if mass <= 0.0:
        return 0.0
    rho = mass / (p_last + mass)
    return mass * math.log(1.0 / p_last) + math.log(1.0 / rho) * p_last * rho / (1.0 - rho) ** 2
