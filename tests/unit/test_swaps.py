"""Token swaps (qualm.signals.swaps) on a hand-built trace, with values computed by hand."""

from __future__ import annotations

import pytest

from qualm.lang import PYTHON
from qualm.signals.swaps import TokenSwap, pass_share, swap_gain, token_swaps
from qualm.trace import Alternative, TokenRecord, Trace

SOURCE = "def f(x):\n    # add one\n    return x + 1\n"
BODY = SOURCE.index("    # add")


def _trace(pieces: list[tuple[str, float, list[tuple[str, float]]]]) -> Trace:
    tokens, at = [], 0
    for i, (text, prob, alts) in enumerate(pieces):
        tokens.append(TokenRecord(i, i, text, at, at + len(text), 0.5, prob, tuple(Alternative(100 + j, t, p) for j, (t, p) in enumerate(alts))))
        at += len(text)
    trace = Trace(text="".join(p[0] for p in pieces), tokens=tuple(tokens), model="m", mode="scored")
    assert trace.text == SOURCE
    return PYTHON.annotate_scopes(trace)


TRACE = _trace([
    ("def", 0.001, [("class", 0.9)]),  # in the header: never swapped
    (" f(x):\n", 0.9, []),
    ("    ", 0.9, []),
    ("#", 0.01, [("return", 0.9)]),  # a comment: never swapped
    (" add one", 0.001, [(" subtract", 0.9)]),
    ("\n", 0.9, []),
    ("   ", 0.003, [("  ", 0.9)]),  # whitespace only: never swapped
    (" return", 0.9, []),
    (" x", 0.8, []),
    (" +", 0.02, [(" -", 0.04), (" *", 0.5), (" +", 0.02), (" -", 0.3)]),
    (" 1", 0.1, [(" 1", 0.1), (" 0", 0.6), (" )", 0.2)]),
    ("\n", 0.95, []),
])


def test_the_least_likely_code_tokens_of_the_body_get_the_likelier_tokens_that_parse():
    swaps = token_swaps(TRACE, SOURCE, BODY, positions=2, alternatives=1, floor=0.05, parses=PYTHON.parses)
    # ' +' (0.02) then ' 1' (0.1); ' -' at 0.04 is under the floor, ' *' is the first taken
    assert [(s.rank, s.token, s.alternative) for s in swaps] == [(0, " +", " *"), (1, " 1", " 0")]
    assert swaps[0].source == "def f(x):\n    # add one\n    return x * 1\n"
    assert swaps[1].source == "def f(x):\n    # add one\n    return x + 0\n"
    assert (swaps[0].prob, swaps[0].alt_prob) == (0.02, 0.5)


def test_more_alternatives_skip_the_token_itself_and_what_does_not_parse():
    swaps = token_swaps(TRACE, SOURCE, BODY, positions=2, alternatives=3, floor=0.05, parses=PYTHON.parses)
    # at ' 1': ' 1' is the token itself, ' )' does not parse ("x + )")
    assert [(s.token, s.alternative) for s in swaps] == [(" +", " *"), (" +", " -"), (" 1", " 0")]


def test_nothing_likelier_than_the_token_is_tried():
    # at ' 1' (p 0.1) an alternative of 0.1 or less is not likelier: with a floor of 0.7 nothing is left
    assert token_swaps(TRACE, SOURCE, BODY, positions=5, alternatives=3, floor=0.7, parses=PYTHON.parses) == []
    assert token_swaps(TRACE, SOURCE, BODY, positions=0, alternatives=3, floor=0.0, parses=PYTHON.parses) == []


def _swap(name: str) -> TokenSwap:
    return TokenSwap(0, 0, 1, "a", 0.1, name, 0.5, "")


def test_the_gain_is_the_best_swaps_weighted_share_less_the_codes():
    weights = [1.0, 0.5, 0.0]  # the third test no solution passes counts for nothing
    code = ["passed", "failed", "passed"]  # 1 / 1.5
    up = ["passed", "passed", "failed"]  # 1.5 / 1.5
    down = ["failed", "passed", "passed"]  # 0.5 / 1.5
    result = swap_gain(code, [(_swap("down"), down), (_swap("up"), up)], weights)
    assert result.base == pytest.approx(2 / 3)
    assert [o.gain for o in result.outcomes] == pytest.approx([-1 / 3, 1 / 3])
    assert result.uncertainty == pytest.approx(1 / 3)
    assert result.best is not None and result.best.swap.alternative == "up"
    assert result.weighted and "33% more" in result.note and "weighted by the model's solutions" in result.note


def test_every_swap_breaking_tests_gives_a_negative_gain():
    result = swap_gain(["passed", "passed"], [(_swap("a"), ["failed", "passed"]), (_swap("b"), ["failed", "failed"])], None)
    assert result.uncertainty == pytest.approx(-0.5)  # the best swap passes 1 of 2 where the code passes 2
    assert not result.weighted and "each of 2" in result.note and "all tests counted alike" in result.note


def test_without_weights_or_swaps_or_tests():
    assert pass_share(["passed", "failed", "timeout"], [0.0, 0.0, 0.0]) == pytest.approx(1 / 3)  # no weight: counted alike
    assert pass_share([], None) is None
    none_tried = swap_gain(["failed"], [], [1.0])
    assert none_tried.uncertainty is None and none_tried.best is None and "nothing to try" in none_tried.note
    no_tests = swap_gain([], [(_swap("a"), [])], None)
    assert no_tests.uncertainty is None


def test_words_and_line():
    result = swap_gain(["failed"], [(TokenSwap(0, 36, 38, " +", 0.02, " *", 0.5, ""), ["passed"])], None)
    best = result.best
    assert best is not None
    assert best.describe() == "'*' for '+' (p 0.50, the code's 0.02): passes 100% of the tests (+100%)"
    assert SOURCE[36:38] == " +" and best.line_in(SOURCE, 10) == 12
