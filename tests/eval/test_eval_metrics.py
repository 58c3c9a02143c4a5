"""The evaluation metrics against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import pytest

from qualm.evaluation.metrics import (
    PAPER_WEIGHTS,
    MethodMetrics,
    auroc,
    evaluate_method,
    impute_missing,
    pass_at_1,
    pearson,
    prauc,
    rank_normalise,
    roc_points,
    spearman,
    weighted_ensemble,
)

# Two correct (True) and two incorrect programs. Confidence is -U, so a correct program should
# have the LOWER uncertainty.
LABELS = [True, True, False, False]
U = [0.1, 0.4, 0.35, 0.8]


def test_auroc_counts_concordant_pairs():
    # Pairs (correct, incorrect) by uncertainty; concordant when the correct one is lower:
    #   (0.1, 0.35) yes   (0.1, 0.8) yes   (0.4, 0.35) NO   (0.4, 0.8) yes
    # AUROC = 3 concordant / 4 pairs = 0.75
    assert auroc(LABELS, U) == pytest.approx(0.75)


def test_auroc_counts_a_tie_as_half():
    # correct U: 0.2, 0.5; incorrect U: 0.2, 0.9
    #   (0.2, 0.2) tie = 0.5   (0.2, 0.9) yes = 1   (0.5, 0.2) no = 0   (0.5, 0.9) yes = 1
    # AUROC = 2.5 / 4 = 0.625
    assert auroc([True, False, True, False], [0.2, 0.2, 0.5, 0.9]) == pytest.approx(0.625)


def test_auroc_of_a_score_pointing_the_wrong_way_is_below_chance():
    # Uncertainty HIGHER for the correct ones: every pair discordant, AUROC = 0 / 4.
    assert auroc(LABELS, [0.9, 0.8, 0.1, 0.2]) == pytest.approx(0.0)


def test_prauc_is_average_precision_by_hand():
    # Rank by confidence (U ascending): 0.1 (correct), 0.35 (incorrect), 0.4 (correct), 0.8 (incorrect)
    # precision at each correct one: rank 1 -> 1/1, rank 3 -> 2/3
    # AP = (1 + 2/3) / 2 = 5/6
    assert prauc(LABELS, U) == pytest.approx(5 / 6)


def test_none_is_imputed_with_the_mean_and_counted():
    # Available: 0.1, 0.35, 0.8 -> mean 1.25 / 3 = 0.41667, which replaces the None.
    # U becomes 0.1, 0.41667, 0.35, 0.8: the same order as U above, so AUROC 0.75 and AP 5/6.
    with_gap = [0.1, None, 0.35, 0.8]
    imputed = impute_missing(with_gap)
    assert imputed.missing == 1
    assert imputed.values[1] == pytest.approx(1.25 / 3)
    assert auroc(LABELS, with_gap) == pytest.approx(0.75)
    assert prauc(LABELS, with_gap) == pytest.approx(5 / 6)
    # NaN means "no score" too.
    assert auroc(LABELS, [0.1, math.nan, 0.35, 0.8]) == pytest.approx(0.75)


def test_nothing_available_or_one_class_is_undefined():
    assert impute_missing([None, None]) is None
    assert auroc(LABELS, [None] * 4) is None
    assert auroc([True, True, True], [0.1, 0.2, 0.3]) is None
    assert prauc([False, False], [0.1, 0.2]) is None
    assert roc_points([True, True], [0.1, 0.2]) is None
    assert auroc([], []) is None


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        auroc([True, False], [0.1])


def test_roc_points_run_from_origin_to_one():
    points = roc_points(LABELS, U)
    assert (points.fpr[0], points.tpr[0]) == (0.0, 0.0)
    assert (points.fpr[-1], points.tpr[-1]) == (1.0, 1.0)
    # At the first threshold that accepts anything only 0.1 (correct) is in: TPR 1/2, FPR 0.
    assert (0.0, 0.5) in set(zip(points.fpr, points.tpr))


def test_pass_at_1():
    assert pass_at_1([True, False, True, True]) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        pass_at_1([])


def test_correlations_use_complete_pairs():
    # Complete pairs: (1, 2), (2, 4), (3, 7). x mean 2, y mean 13/3.
    # dx = -1, 0, 1; dy = -7/3, -1/3, 8/3
    # Sxy = 7/3 + 0 + 8/3 = 5; Sxx = 2; Syy = (49 + 1 + 64) / 9 = 114/9
    # r = 5 / sqrt(2 * 114/9) = 15 / sqrt(228) = 0.99340
    a = [1.0, 2.0, 3.0, None, 5.0]
    b = [2.0, 4.0, 7.0, 100.0, None]
    assert pearson(a, b) == pytest.approx(15 / math.sqrt(228))
    # Both rank 1, 2, 3: Spearman 1.
    assert spearman(a, b) == pytest.approx(1.0)


def test_correlations_undefined_for_few_pairs_or_constant_input():
    assert pearson([1.0, 2.0, None], [1.0, 2.0, 3.0]) is None  # 2 complete pairs
    assert spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None  # constant
    assert pearson([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]) is None


def test_rank_normalise_with_ties_and_none():
    # Available 3, 1, 3, 2 -> ranks 3.5, 1, 3.5, 2 (the two 3s share ranks 3 and 4)
    # scaled (rank - 1) / (4 - 1): 2.5/3, 0, 2.5/3, 1/3
    assert rank_normalise([3.0, 1.0, 3.0, None, 2.0]) == pytest.approx([5 / 6, 0.0, 5 / 6, None, 1 / 3])
    assert rank_normalise([None, 7.0]) == [None, 0.5]
    assert rank_normalise([4.0, 4.0, 4.0]) == [0.5, 0.5, 0.5]  # all tied: the middle
    assert rank_normalise([None]) == [None]
    assert rank_normalise([]) == []


def test_weighted_ensemble_with_a_missing_axis():
    lexical = [0.1, 0.3, 0.2]  # ranks 1, 3, 2 -> 0, 1, 0.5
    algorithmic = [1.0, None, 3.0]  # ranks 1, -, 2 -> 0, None, 1
    functional = [5.0, 4.0, 6.0]  # ranks 2, 1, 3 -> 0.5, 0, 1
    # problem 0: 0.2*0 + 0.4*0 + 0.4*0.5 = 0.2
    # problem 1: algorithmic missing, weights 0.2 and 0.4 renormalised to 1/3 and 2/3:
    #            1/3*1 + 2/3*0 = 1/3
    # problem 2: 0.2*0.5 + 0.4*1 + 0.4*1 = 0.9
    result = weighted_ensemble([lexical, algorithmic, functional], PAPER_WEIGHTS)
    assert result == pytest.approx([0.2, 1 / 3, 0.9])


def test_weighted_ensemble_none_when_no_axis_is_available():
    # Each axis has one available value -> 0.5; problem 1 has no axis at all.
    assert weighted_ensemble([[1.0, None], [2.0, None]], [0.5, 0.5]) == [0.5, None]


def test_weighted_ensemble_rejects_bad_input():
    with pytest.raises(ValueError):
        weighted_ensemble([[1.0], [2.0]], [1.0])
    with pytest.raises(ValueError):
        weighted_ensemble([[1.0], [2.0, 3.0]], [0.5, 0.5])
    with pytest.raises(ValueError):
        weighted_ensemble([[1.0]], [-1.0])


def test_evaluate_method_collects_everything():
    m = evaluate_method("Top-5 Entropy", "ours", LABELS, [0.1, None, 0.35, 0.8], 2.5)
    assert m == MethodMetrics(
        name="Top-5 Entropy", family="ours", auroc=pytest.approx(0.75), prauc=pytest.approx(5 / 6),
        n=4, missing=1, seconds_per_problem=2.5,
    )
    with pytest.raises(AttributeError):
        m.auroc = 1.0  # frozen
