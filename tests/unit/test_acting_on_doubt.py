"""Pure parts of acting on the doubt (issue 25): where a rewrite from a token ends, which
alternatives are offered, which neighbouring marks form one span, which doubt a scored token shows,
and the hover of a span."""

from __future__ import annotations

import math

from qualm.engine import Document
from qualm.engine.placement import PlacedToken, place
from qualm.engine.regeneration import choices, rewrite_end, run_end
from qualm.lsp.features.diagnostics import visible
from qualm.lsp.marks import adjacent_runs
from qualm.lsp.presentation import span_hover
from qualm.trace import Alternative, TokenRecord


def test_a_run_of_marks_ends_at_the_first_unmarked_text():
    text = "    total = a + b\n    return total\n\ndef other():\n    pass\n"
    spans = [(4, 9), (10, 11), (12, 13), (14, 15), (16, 17), (22, 28), (29, 34), (49, 53)]
    assert run_end(spans, 0, text) == 34  # whitespace and line breaks between marks keep the run going
    assert run_end(spans, 5, text) == 34
    assert run_end(spans, 7, text) == 53  # "def other():" is unmarked: the last mark stands alone
    gap = "x = 1  # mine\ny = 2"
    assert run_end([(0, 1), (1, 3), (3, 5), (14, 15)], 0, gap) == 5  # the user's comment ends it


def test_a_rewrite_inside_a_function_reaches_the_function_s_end():
    # the run stops early (the user edited "total", its mark is gone): the model will still write
    # the function to its end, so the rewrite replaces up to there, not to the run's end
    text = "def f(a, b):\n    total = a + b\n    totalZ = total * 2\n    return totalZ\n\n\ndef g():\n    return 1\n"
    token = PlacedToken(17, 23, " total", 1.0, 0.5, "medium", (), "completion")
    run = text.index("totalZ") - 1
    assert rewrite_end(Document(text), token, run) == text.index("\n\n\ndef g")
    outside = PlacedToken(0, 3, "def", 1.0, 0.5, "medium", (), "completion")
    assert rewrite_end(Document("x = 1\n"), outside, 3) == 3  # not in a function: the run alone
    assert rewrite_end(Document("def f(:\n"), token, 5) == 5  # does not parse: the run alone


def test_only_other_likely_alternatives_are_offered():
    alts = (Alternative(1, " max", 0.5), Alternative(2, " min", 0.3), Alternative(3, "max", 0.1), Alternative(4, " sum", 0.04))
    token = PlacedToken(0, 4, " max", 1.2, 0.5, "high", alts, "completion")
    assert [a.text for a in choices(token, 0.05)] == [" min"]  # not the token itself, with or without its space
    assert [a.text for a in choices(token, 0.01)] == [" min", " sum"]


def test_no_comment_or_blank_is_offered_in_place_of_code():
    # the model's alternatives at ' running' (issue 46: docs/vscode-code-actions.png offered '#')
    alts = (Alternative(1, " running", 0.4), Alternative(2, " #", 0.3), Alternative(3, "\n", 0.1), Alternative(4, " total", 0.1), Alternative(5, "  ", 0.06))
    code = PlacedToken(0, 8, " running", 1.5, 0.4, "high", alts, "completion")
    assert [a.text for a in choices(code, 0.05)] == [" total"]
    js = (Alternative(1, " x", 0.4), Alternative(2, " //", 0.3), Alternative(3, " /*", 0.2), Alternative(4, " y", 0.1))
    assert [a.text for a in choices(PlacedToken(0, 2, " x", 1.5, 0.4, "high", js, "completion"), 0.05, comment_starts=("//", "/*"))] == [" y"]
    # in a comment, or at white space, what is offered is not code: nothing is filtered
    comment = PlacedToken(0, 2, " #", 1.5, 0.4, "high", (Alternative(1, " #", 0.4), Alternative(2, "\n", 0.3)), "completion")
    assert [a.text for a in choices(comment, 0.05)] == ["\n"]


def test_neighbours_on_a_line_share_a_span():
    text = "a = foo(bar) + baz\nq"
    spans = [(4, 7), (7, 8), (8, 11), (15, 18), (19, 20)]
    assert adjacent_runs(spans, text) == [0, 0, 0, 1, 2]  # " + " is text between; a line break ends a span
    assert adjacent_runs([], text) == []


def _rec(entropy: float, prob: float) -> TokenRecord:
    return TokenRecord(0, 1, "x", 0, 1, entropy, prob, (Alternative(2, "y", 1 - prob), Alternative(1, "x", prob)))


def test_scored_doubt_picks_the_level_a_scored_token_shows():
    thresholds = (0.5, 1.5, 3.0)
    calm_but_surprising = _rec(0.2, math.exp(-4.0))  # the model was sure, of something else
    unsure_but_expected = _rec(2.0, 0.6)
    assert place(calm_but_surprising, 0, 1, "x", thresholds, "score", "surprisal").level == "high"
    assert place(calm_but_surprising, 0, 1, "x", thresholds, "score", "entropy").level == "confident"
    assert place(calm_but_surprising, 0, 1, "x", thresholds, "score", "either").doubt == "unexpected"
    assert place(unsure_but_expected, 0, 1, "x", thresholds, "score", "surprisal").level == "low"  # -ln 0.6 = 0.51
    assert place(unsure_but_expected, 0, 1, "x", thresholds, "score", "either").level == "medium"
    # a completion is the model's own choice: always its entropy
    assert place(calm_but_surprising, 0, 1, "x", thresholds, "completion", "surprisal").level == "confident"


def test_the_hover_of_a_span_lists_each_token_then_the_hovered_one():
    a = PlacedToken(0, 4, "sort", 1.8, 0.4, "medium", (Alternative(1, "sort", 0.4), Alternative(2, "sorted", 0.35)), "completion")
    b = PlacedToken(4, 6, "ed", 3.1, 0.2, "high", (Alternative(3, "(", 0.5), Alternative(4, "ed", 0.2)), "completion")
    text = span_hover([a, b], b, 5)
    assert "2 uncertain tokens in a row" in text
    assert "| `sort` | unsure (medium) | entropy 1.80 | 0.40 | `sorted` 35% |" in text
    assert "| **`ed`** | unsure (high) | entropy 3.10 | 0.20 | `(` 50% |" in text
    assert text.index("in a row") < text.index("the model's top 2")  # then the hovered token in full


def test_a_mark_paints_its_token_s_text_not_its_white_space():
    text = "    return f(x)\n    y = 1\n"
    paren = text.index(")")
    assert visible(text, paren, paren + 2) == (paren, paren + 1)  # ")\n": not into the next line
    ret = text.index("return")
    assert visible(text, ret - 1, ret + 6) == (ret, ret + 6)  # " return"
    assert visible(text, 15, 20) == (15, 20)  # all white space: left as it is (never sent: such tokens carry no mark)
