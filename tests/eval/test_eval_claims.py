"""The claims' paired bootstrap intervals and verdicts on constructed runs whose answer is known:
identical scores tie (the interval is [0, 0], inconclusive), a perfect signal beats a random one
(held) and loses the other way round (not held), and P(pass) counts as an ensemble."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from timing import seconds

from qualm.evaluation import metrics
from qualm.evaluation.bootstrap import RESAMPLES, SEED, PairedAurocBootstrap
from qualm.evaluation.claims import (
    HELD,
    INCONCLUSIVE,
    NOT_HELD,
    NOT_TESTED,
    Claim,
    combine,
    interval_verdict,
    is_ensemble,
)
from qualm.evaluation.results import (
    COMMENTS_ONLY,
    ENSEMBLE,
    FUNC,
    LEX,
    MAX_ENTROPY,
    MAX_PROBABILITY,
    MEAN_ENTROPY,
    MEAN_PROBABILITY,
    P_PASS,
    EvalRun,
    MethodResult,
)
from qualm.evaluation.summary import summarise

N = 200
LABELS = [i % 2 == 0 for i in range(N)]
PERFECT = [0.0 if label else 1.0 for label in LABELS]  # every correct problem less uncertain
WRONG_WAY = [1.0 - u for u in PERFECT]
RANDOM = [float(x) for x in np.random.default_rng(7).random(N)]


def run_of(*methods: tuple[str, str, list[float | None]]) -> EvalRun:
    return EvalRun("Constructed", "m", [f"t/{i}" for i in range(N)], LABELS,
                   [MethodResult(name, family, scores, 1.0) for name, family, scores in methods], "cmd")


def claims_of(run: EvalRun) -> dict[str, Claim]:
    return {c.key: c for c in summarise(run).claims}


def test_the_constructed_scores_have_the_intended_auroc():
    assert metrics.auroc(LABELS, PERFECT) == 1.0
    assert metrics.auroc(LABELS, WRONG_WAY) == 0.0
    assert 0.4 < metrics.auroc(LABELS, RANDOM) < 0.6


def test_identical_scores_tie_with_an_interval_of_zero():
    a = claims_of(run_of((LEX, "ours", RANDOM), (MEAN_ENTROPY, "single-pass", list(RANDOM))))["a"]
    assert a.verdict == INCONCLUSIVE
    (part,) = a.comparisons
    assert (part.estimate, part.low, part.high) == (0.0, 0.0, 0.0)
    assert "+0.0 points, 95 % CI [+0.0, +0.0] (inconclusive)" in a.detail


def test_a_perfect_signal_beats_a_random_one_and_not_the_other_way():
    held = claims_of(run_of((LEX, "ours", PERFECT), (MEAN_ENTROPY, "single-pass", RANDOM)))["a"]
    assert held.verdict == HELD
    (part,) = held.comparisons
    assert 0 < part.low <= part.estimate <= part.high
    assert part.estimate == pytest.approx(1 - metrics.auroc(LABELS, RANDOM))

    lost = claims_of(run_of((LEX, "ours", RANDOM), (MEAN_ENTROPY, "single-pass", PERFECT)))["a"]
    assert lost.verdict == NOT_HELD
    assert lost.comparisons[0].high < 0


def test_below_chance_is_judged_against_chance():
    e = claims_of(run_of((COMMENTS_ONLY, "beyond the paper", WRONG_WAY)))["e"]
    assert e.verdict == HELD and e.comparisons[0].estimate == 0.5
    e = claims_of(run_of((COMMENTS_ONLY, "beyond the paper", RANDOM)))["e"]
    assert e.verdict == INCONCLUSIVE and e.comparisons[0].low < 0 < e.comparisons[0].high


def test_a_conjunction_gives_every_part_and_combines_them():
    baselines = {MEAN_ENTROPY: RANDOM, MAX_ENTROPY: RANDOM, MEAN_PROBABILITY: RANDOM, MAX_PROBABILITY: RANDOM}

    def b_lex(**changes: list[float] | None) -> Claim:
        scores = {**baselines, **changes}
        return claims_of(run_of((LEX, "ours", PERFECT), *((n, "single-pass", s) for n, s in scores.items() if s is not None)))["b-lex"]

    held = b_lex()
    assert held.verdict == HELD and [p.verdict for p in held.comparisons] == [HELD] * 4
    assert b_lex(**{MAX_ENTROPY: list(PERFECT)}).verdict == INCONCLUSIVE  # one tie
    assert b_lex(**{MAX_ENTROPY: None}).verdict == NOT_TESTED  # one rival missing, the rest held
    tied_and_missing = b_lex(**{MAX_ENTROPY: list(PERFECT), MEAN_ENTROPY: None})
    assert [p.verdict for p in tied_and_missing.comparisons] == [NOT_TESTED, INCONCLUSIVE, HELD, HELD]
    assert tied_and_missing.verdict == INCONCLUSIVE


def test_combine_rule():
    assert combine([HELD, HELD]) == HELD
    assert combine([HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED]) == NOT_HELD
    assert combine([HELD, INCONCLUSIVE, NOT_TESTED]) == INCONCLUSIVE
    assert combine([HELD, NOT_TESTED]) == NOT_TESTED
    assert combine([]) == NOT_TESTED
    assert interval_verdict(0.01, 0.2) == HELD
    assert interval_verdict(-0.2, -0.01) == NOT_HELD
    assert interval_verdict(0.0, 0.2) == INCONCLUSIVE  # zero is in the interval


def test_p_pass_counts_as_an_ensemble_not_as_a_single_signal():
    run = run_of((ENSEMBLE, "ensemble", PERFECT), (P_PASS, "beyond the paper", list(PERFECT)),
                 (FUNC, "ours", RANDOM), (LEX, "ours", RANDOM))
    summary = summarise(run)
    assert is_ensemble(summary.metrics[P_PASS]) and not is_ensemble(summary.metrics[FUNC])
    c = {c.key: c for c in summary.claims}["c"]
    # P(pass) ties the ensemble; were it a single signal, the claim would be inconclusive
    assert c.verdict == HELD
    assert {p.difference for p in c.comparisons} == {f"{ENSEMBLE} − {FUNC}", f"{ENSEMBLE} − {LEX}"}


def test_the_bootstrap_is_seeded_paired_and_matches_sklearn():
    boot = PairedAurocBootstrap(LABELS)
    assert (boot.resamples, boot.seed) == (RESAMPLES, SEED) and RESAMPLES >= 2000
    again = PairedAurocBootstrap(LABELS)
    assert np.array_equal(boot.aurocs(RANDOM), again.aurocs(RANDOM))
    assert boot.aurocs(RANDOM).shape == (RESAMPLES,)
    # the rank-sum AUROC is sklearn's on the resample that is every problem once
    identity = PairedAurocBootstrap.__new__(PairedAurocBootstrap)
    identity._idx = np.arange(N)[None, :]
    identity._y = np.asarray(LABELS)[None, :]
    identity._n_pos = identity._y.sum(axis=1)
    identity._n_neg = N - identity._n_pos
    tied = [round(x, 1) for x in RANDOM]  # many ties: each counts half, as in sklearn
    assert identity.aurocs(tied)[0] == pytest.approx(metrics.auroc(LABELS, tied))
    assert boot.aurocs([None] * N) is None


def test_one_class_resamples_are_drawn_again():
    labels = [True] + [False] * 4  # a resample misses the one correct problem a third of the time
    boot = PairedAurocBootstrap(labels, resamples=500, seed=1)
    values = boot.aurocs([0.0, 1.0, 2.0, 3.0, 4.0])
    assert values.shape == (500,) and np.all(values == 1.0)
    with pytest.raises(ValueError):
        PairedAurocBootstrap([True, True])


def test_claims_do_not_import_the_summary():
    code = "import sys, qualm.evaluation.claims; assert 'qualm.evaluation.summary' not in sys.modules"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=seconds(120))
    assert done.returncode == 0, done.stderr
