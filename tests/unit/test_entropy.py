import math

import numpy as np
import pytest

from qualm.entropy import EntropyMeter, entropy_of_logits


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
