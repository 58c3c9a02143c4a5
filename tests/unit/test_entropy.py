import math

import numpy as np
import pytest

from qualm.entropy import EntropyMeter


def entropy_of_logits(logits: np.ndarray) -> float:
    return EntropyMeter(int(logits.shape[0]), top_k=1).measure(np.asarray(logits, dtype=np.float32)).entropy


def direct_entropy(logits: np.ndarray) -> float:
    x = logits.astype(np.float64)
    p = np.exp(x - x.max())
    p /= p.sum()
    nz = p > 0
    return float(-(p[nz] * np.log(p[nz])).sum())


@pytest.mark.parametrize("vocab", [2, 17, 151_936])
def test_uniform_logits_give_log_v(vocab):
    assert entropy_of_logits(np.full(vocab, 3.25, dtype=np.float32)) == pytest.approx(math.log(vocab), abs=1e-6)


def test_one_hot_gives_zero():
    logits = np.zeros(1000, dtype=np.float32)
    logits[17] = 1000.0
    assert entropy_of_logits(logits) == pytest.approx(0.0, abs=1e-9)
    masked = np.full(1000, -np.inf, dtype=np.float32)
    masked[3] = 0.0
    assert entropy_of_logits(masked) == 0.0


def test_masked_tokens_contribute_nothing():
    logits = np.array([0.0, 0.0, -np.inf, -np.inf], dtype=np.float32)
    assert entropy_of_logits(logits) == pytest.approx(math.log(2), abs=1e-7)


@pytest.mark.parametrize("seed", range(5))
def test_random_logits_match_direct_numpy(seed):
    rng = np.random.default_rng(seed)
    logits = (rng.standard_normal(151_936) * rng.uniform(0.5, 8)).astype(np.float32)
    meter = EntropyMeter(logits.size, top_k=5)
    d = meter.measure(logits)
    assert d.entropy == pytest.approx(direct_entropy(logits), abs=1e-6)
    # top-5 are the five largest logits, in order, with their softmax probabilities
    expected = np.argsort(-logits.astype(np.float64), kind="stable")[:5]
    assert list(d.top_ids) == list(expected)
    p = np.exp(logits.astype(np.float64) - logits.max())
    p /= p.sum()
    np.testing.assert_allclose(d.top_probs, p[expected], rtol=1e-5)
    assert d.prob_of(logits, int(expected[3])) == pytest.approx(p[expected[3]], rel=1e-5)


def test_top_k_when_distribution_is_peaked():
    # Fewer than k tokens within the candidate margin: falls back to the whole vocabulary.
    logits = np.full(50, -100.0, dtype=np.float32)
    logits[7] = 50.0
    logits[9] = -99.0
    d = EntropyMeter(50, top_k=5).measure(logits)
    assert list(d.top_ids[:2]) == [7, 9]
    assert len(d.top_ids) == 5


def test_meter_reuse_does_not_leak_state():
    meter = EntropyMeter(100, top_k=3)
    a = np.linspace(-3, 3, 100).astype(np.float32)
    first = meter.measure(a).entropy
    meter.measure(np.zeros(100, dtype=np.float32))
    assert meter.measure(a).entropy == first


def test_wrong_shape_is_rejected():
    with pytest.raises(ValueError):
        EntropyMeter(10).measure(np.zeros(11, dtype=np.float32))


def test_top_p_sampling_draws_only_from_the_nucleus_with_the_right_frequencies():
    from qualm.entropy import sample_top_p

    logits = np.full(1000, -30.0, dtype=np.float32)
    logits[:4] = np.log(np.array([0.5, 0.3, 0.15, 0.05])).astype(np.float32)
    d = EntropyMeter(1000, 5).measure(logits)
    rng = np.random.default_rng(0)
    # T = 1, top_p = 0.9: the nucleus is {0, 1, 2} (0.5 + 0.3 < 0.9 <= 0.95); token 3 is never drawn
    draws = np.array([sample_top_p(logits, d, 1.0, 0.9, rng) for _ in range(20000)])
    assert set(np.unique(draws)) == {0, 1, 2}
    freq = np.bincount(draws, minlength=3)[:3] / draws.size
    np.testing.assert_allclose(freq, np.array([0.5, 0.3, 0.15]) / 0.95, atol=0.015)
    # a tiny top_p keeps only the best token; a seed gives the same draws again
    assert {sample_top_p(logits, d, 0.8, 0.01, rng) for _ in range(50)} == {0}
    a = [sample_top_p(logits, d, 0.8, 0.95, np.random.default_rng(7)) for _ in range(5)]
    b = [sample_top_p(logits, d, 0.8, 0.95, np.random.default_rng(7)) for _ in range(5)]
    assert a == b


def test_temperature_sharpens_the_sampled_distribution():
    from qualm.entropy import sample_top_p

    logits = np.zeros(100, dtype=np.float32)
    logits[0] = 1.0
    d = EntropyMeter(100, 5).measure(logits)
    rng = np.random.default_rng(1)
    cold = np.mean([sample_top_p(logits, d, 0.2, 1.0, rng) == 0 for _ in range(3000)])
    hot = np.mean([sample_top_p(logits, d, 2.0, 1.0, rng) == 0 for _ in range(3000)])
    p_cold = np.exp(5) / (np.exp(5) + 99)
    p_hot = np.exp(0.5) / (np.exp(0.5) + 99)
    assert abs(cold - p_cold) < 0.03 and abs(hot - p_hot) < 0.01


def _full_sort_nucleus(z: np.ndarray, top_p: float) -> tuple[np.ndarray, np.ndarray]:
    # the straightforward definition: sort every candidate, keep the prefix that crosses top_p
    order = np.argsort(-z, kind="stable")
    w = np.exp(z[order])
    cum = np.cumsum(w) / w.sum()
    keep = int(np.searchsorted(cum, top_p, side="left")) + 1
    return order[:keep], w[:keep]


@pytest.mark.parametrize("shape", ["peaked", "flat", "ties", "tiny", "real-like"])
def test_partial_nucleus_equals_the_full_sort(shape):
    from qualm.entropy import _nucleus

    rng = np.random.default_rng(11)
    for trial in range(40):
        n = {"tiny": 7}.get(shape, 30_000)
        if shape == "peaked":
            z = rng.normal(0, 1, n) * 3 - 20
            z[rng.integers(n)] = 0.0
        elif shape == "flat":
            z = rng.normal(0, 0.05, n) - 5  # the nucleus holds most of the candidates
        elif shape == "ties":
            z = np.round(rng.normal(0, 2, n)) - 10  # many exactly equal values at every cut
        elif shape == "tiny":
            z = rng.normal(0, 1, n)
        else:  # a code model's next token: a few plausible tokens, a long tail
            z = np.concatenate([rng.normal(-2, 1.5, 20), rng.normal(-16, 2, n - 20)])
        z -= z.max()
        for top_p in (0.1, 0.5, 0.95, 0.999):
            got_order, got_w = _nucleus(z.astype(np.float64), top_p)
            want_order, want_w = _full_sort_nucleus(z.astype(np.float64), top_p)
            assert got_order.tolist() == want_order.tolist(), (shape, trial, top_p)
            np.testing.assert_allclose(got_w, want_w, rtol=0, atol=0)
