"""benchmarks.chance.chance_conditions: the paired difference of two chances reads the same resamples
for both, so a chance against itself differs by exactly 0 and a better ranking shows a positive
AUROC difference. Synthetic pairs, no model."""

from __future__ import annotations

import re

from benchmarks.chance.chance_conditions import paired_difference
from qualm.fitting.chance_fit import Example


def pairs(n: int) -> list[tuple[Example, Example]]:
    # the signal "doubt" is higher for every wrong function but two
    out = []
    for i in range(n):
        right = Example(f"t{i}", {"doubt": 0.2 + 0.01 * i}, True, False)
        wrong = Example(f"t{i}", {"doubt": 0.1 if i < 2 else 0.8}, False, False)
        out.append((right, wrong))
    return out


def by_doubt(e: Example) -> float:
    return 1 - e.signals["doubt"]


def coin(e: Example) -> float:
    return 0.5


def figures_of(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"[+-]\d\.\d{3}", line)]


def test_a_chance_against_itself_differs_by_nothing():
    assert figures_of(paired_difference(pairs(12), by_doubt, by_doubt)) == [0.0] * 6


def test_a_better_ranking_is_a_positive_auroc_difference_and_a_lower_brier():
    auroc, lo, hi, brier, *_ = figures_of(paired_difference(pairs(12), by_doubt, coin))
    assert auroc > 0.3 and lo <= auroc <= hi
    assert brier < 0


def test_too_few_pairs_are_named():
    assert "too few" in paired_difference(pairs(1), by_doubt, coin)


def test_a_problem_with_two_pairs_is_resampled_as_one():
    # Each resample draws problems, not pairs: with every problem giving two identical pairs, the
    # interval is that of the problems alone; counted as pairs it would be narrower.
    from benchmarks.chance.chance_conditions import bootstrapped, figures

    once = pairs(12)
    twice = [p for p in once for _ in range(2)]
    stat = lambda ps: figures(ps, by_doubt)  # noqa: E731
    point_once, ci_once = bootstrapped(once, stat)
    point_twice, ci_twice = bootstrapped(twice, stat)
    assert point_once["auroc"] == point_twice["auroc"]
    assert ci_once("auroc") == ci_twice("auroc")


def test_each_measured_row_is_a_pair_even_where_a_problem_gives_two():
    from benchmarks.chance.chance_conditions import pairs_of, pairs_of_rows

    right = Example("MBPP/1", {"doubt": 0.1}, True, False)
    wrong_a, wrong_b = Example("MBPP/1", {"doubt": 0.5}, False, False), Example("MBPP/1", {"doubt": 0.9}, False, False)
    examples = [right, wrong_a, right, wrong_b]  # examples_of: each row's right, then its wrong function
    assert pairs_of_rows(examples) == [(right, wrong_a), (right, wrong_b)]
    assert len(pairs_of(examples)) == 1  # the holdout's reading: one pair a problem
