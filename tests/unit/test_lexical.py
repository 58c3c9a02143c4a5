import math

import numpy as np
import pytest

from qualm.lang import PYTHON
from qualm.signals.lexical import lexical_report, scores_of, top_k_mean
from qualm.trace import TokenRecord, Trace


def rec(i, text, start, entropy, prob):
    return TokenRecord(index=i, token_id=i, text=text, start=start, end=start + len(text), entropy=entropy, prob=prob, alternatives=())


def test_top_k_mean_takes_the_k_largest():
    values = np.array([0.1, 5.0, 0.2, 3.0, 4.0, 0.3, 2.0])
    assert top_k_mean(values, 1) == 5.0
    assert top_k_mean(values, 3) == pytest.approx(4.0)
    assert top_k_mean(values, 5) == pytest.approx((5 + 4 + 3 + 2 + 0.3) / 5)
    # fewer values than K: the mean of all of them
    assert top_k_mean(np.array([1.0, 3.0]), 5) == 2.0
    with pytest.raises(ValueError):
        top_k_mean(values, 0)


def test_scores_are_oriented_larger_is_more_uncertain():
    toks = [rec(0, "a", 0, 0.5, 0.9), rec(1, "b", 1, 2.0, 0.4), rec(2, "c", 2, 0.1, 0.99)]
    s = scores_of(toks, k=2)
    assert s.top_k_entropy == pytest.approx(1.25)
    assert s.max_entropy == 2.0
    assert s.mean_entropy == pytest.approx(2.6 / 3)
    assert s.mean_probability == pytest.approx(((1 - 0.9) + (1 - 0.4) + (1 - 0.99)) / 3)
    assert s.max_probability == pytest.approx(0.6)
    # the least likely token's surprisal plus 3 x the mean surprisal, by hand
    mean = (-math.log(0.9) - math.log(0.4) - math.log(0.99)) / 3
    assert s.blended_surprisal == pytest.approx(-math.log(0.4) + 3 * mean)


def test_empty_scope_gives_none():
    s = scores_of([], k=5)
    assert s.n_tokens == 0 and s.top_k_entropy is None and s.max_probability is None


def test_report_splits_code_and_comments():
    text = "x = 1  # set x\n"
    pieces = ["x", " =", " ", "1", "  #", " set", " x", "\n"]
    ent = [0.1, 0.2, 0.3, 0.4, 1.5, 2.5, 3.5, 0.05]
    toks, pos = [], 0
    for i, (p, e) in enumerate(zip(pieces, ent)):
        toks.append(rec(i, p, pos, e, 0.5))
        pos += len(p)
    assert "".join(pieces) == text
    report = lexical_report(PYTHON.annotate_scopes(Trace(text=text, tokens=tuple(toks), model="m", mode="greedy")), k=2)
    assert report.comment.n_tokens == 3
    assert report.comment.max_entropy == 3.5
    assert report.code.n_tokens == 5
    assert report.code.max_entropy == pytest.approx(0.4)
    assert report.score == report.all.top_k_entropy == pytest.approx(3.0)
    assert math.isclose(report.all.mean_entropy, sum(ent) / len(ent))


def test_surprisal_of_the_tokens_in_the_text_beside_the_entropy_before_them():
    # a confident model (low entropy everywhere) forced through one token it would not have written
    probs = [0.9, 0.95, 0.02, 0.8, 0.5]
    toks = [rec(i, "x", i, 0.3, p) for i, p in enumerate(probs)]
    s = scores_of(toks, k=2)
    surprisal = [-math.log(p) for p in probs]
    assert s.top_k_surprisal == pytest.approx((-math.log(0.02) + -math.log(0.5)) / 2)
    assert s.mean_surprisal == pytest.approx(sum(surprisal) / len(surprisal))
    assert s.improbable_tokens == 1  # only p = 0.02 is below 0.1
    assert s.top_k_entropy == pytest.approx(0.3)  # the entropy alone does not see it
    zero = scores_of([rec(0, "x", 0, 0.1, 0.0)], k=5)
    assert math.isfinite(zero.top_k_surprisal)  # a probability of 0 gives a large, finite surprisal
    empty = scores_of([], k=5)
    assert empty.top_k_surprisal is None and empty.improbable_tokens == 0


def test_excess_surprisal_cancels_a_function_s_general_difficulty():
    # a hard function (entropy 2 everywhere, tokens at the model's usual surprise) and an easy one
    # with one token the model was sure it would not write: only the second stands out
    hard = scores_of([rec(i, "x", i, 2.0, math.exp(-2.0)) for i in range(4)], k=2)
    easy = scores_of([rec(0, "x", 0, 0.1, 0.95), rec(1, "x", 1, 0.2, 0.01), rec(2, "x", 2, 0.1, 0.9)], k=2)
    assert hard.top_k_surprisal > easy.top_k_surprisal - 1.0  # surprisal alone ranks them close
    assert hard.top_k_unexpected == pytest.approx(0.0)
    expected = ((-math.log(0.01) - 0.2) + (-math.log(0.9) - 0.1)) / 2  # the two largest excesses
    assert easy.top_k_unexpected == pytest.approx(expected)
    assert scores_of([], k=5).top_k_unexpected is None


def test_the_declared_signals_are_the_scores_every_list_derives_from():
    """qualm.signals.lexical.SIGNALS declares each lexical signal once: the scores' fields, the
    chance's signals, the words and the settings' choices all follow it (package.json's enums:
    test_extension_manifest.py)."""
    from dataclasses import fields

    from qualm.chance import LEXICAL_SIGNALS, signals_of, with_derived
    from qualm.check.gate import SCORE_WORDS, lexical_scores
    from qualm.settings import CHOICES
    from qualm.signals.lexical import ASSESS_SIGNALS, DERIVED, GATE_SCORES, SIGNAL_NAMES, SIGNALS, LexicalScores
    from qualm.wording import LEXICAL_SIGNAL_WORDS

    assert tuple(f.name for f in fields(LexicalScores) if f.name not in ("scope", "n_tokens", "k")) == SIGNAL_NAMES
    assert len(set(SIGNAL_NAMES)) == len(SIGNAL_NAMES) and all(s.words and s.kind in ("entropy", "surprisal", "probability", "count") for s in (*SIGNALS, *DERIVED))
    assert LEXICAL_SIGNALS == SIGNAL_NAMES and set(LEXICAL_SIGNAL_WORDS) == set(SIGNAL_NAMES)
    assert CHOICES["lexical.assess_signal"] == ASSESS_SIGNALS and CHOICES["check.score"] == GATE_SCORES
    assert set(GATE_SCORES) <= set(SCORE_WORDS)
    tokens = [rec(0, "x", 0, 0.5, 0.9), rec(1, "+", 1, 1.5, 0.05)]
    scores = scores_of(tokens, 5)
    report = lexical_report(Trace(text="x+", tokens=tuple(tokens), model="m", mode="greedy"))
    gate = lexical_scores(scores)
    signals = with_derived(signals_of(report, None, None, None))
    for name in GATE_SCORES:
        assert gate[name] is not None, name  # every score a gate may read is computed
    for name in (*SIGNAL_NAMES, *(s.name for s in DERIVED)):
        assert f"lexical.all.{name}" in signals, name  # and every signal reaches the chance of passing
