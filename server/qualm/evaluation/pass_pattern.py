"""Pass-pattern disagreement, a multi-candidate functional signal beyond the paper (its Consistency
Score paragraph leaves "aggregations exploiting multiple candidates' joint pass/fail patterns
(pairwise Hamming agreement, per-test Bernoulli entropy)" to future work)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class PassPatternResult:
    uncertainty: float | None  # 1 - mean_agreement; None: no two samples share a run test
    mean_agreement: float | None
    pairs: tuple[tuple[int, int, float, int], ...]  # (i, j, agreement, tests both ran)
    samples: int
    tests: int


def pass_pattern_disagreement(matrix: Sequence[Sequence[bool | None]]) -> PassPatternResult:
    """1 - mean pairwise Hamming agreement of the samples' pass/fail patterns.

    ``matrix[i][t]`` is True when sample i passed self-test t, False when it failed, None when it
    was not run. For each pair of samples i < j, over the tests T_ij that both ran,
    ``agreement_ij = |{t in T_ij : matrix[i][t] == matrix[j][t]}| / |T_ij|`` (pairs with T_ij
    empty are skipped); the uncertainty is 1 - the mean of agreement_ij over the pairs kept, i.e.
    the mean normalised Hamming distance, in [0, 1]. None with fewer than two samples or no pair
    sharing a run test.

    Why this rather than the entropy of the distinct patterns: it is on the same [0, 1] scale as
    the other consistency scores, handles tests that were not run pair by pair, and grades partial
    agreement: with M = 10 tests, two samples differing on one test are nearly alike here, while
    distinct-pattern entropy counts them as fully different. It measures disagreement only:
    samples that all fail the same tests agree perfectly (uncertainty 0), so it complements, not
    replaces, the paper's U_func = 1 - pass rate.
    """
    widths = {len(row) for row in matrix}
    if len(widths) > 1:
        raise ValueError(f"every row needs one entry per test; row lengths {sorted(widths)}")
    tests = widths.pop() if widths else 0
    pairs = []
    for i, j in combinations(range(len(matrix)), 2):
        both = [(a, b) for a, b in zip(matrix[i], matrix[j]) if a is not None and b is not None]
        if both:
            pairs.append((i, j, sum(a == b for a, b in both) / len(both), len(both)))
    if not pairs:
        return PassPatternResult(None, None, (), len(matrix), tests)
    mean = sum(p[2] for p in pairs) / len(pairs)
    return PassPatternResult(1.0 - mean, mean, tuple(pairs), len(matrix), tests)
