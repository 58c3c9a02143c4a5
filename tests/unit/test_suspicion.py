"""The function's lines ranked by the model's doubt (qualm.signals.suspicion), on a hand-built
teacher-forced trace with values computed by hand."""

from __future__ import annotations

import math

import pytest

from qualm.lang import PYTHON
from qualm.signals.suspicion import hit_at, suspect_lines, token_line
from qualm.trace import Alternative, TokenRecord, Trace

SOURCE = 'def f(xs):\n    """Sum them."""\n    t = 0\n    for x in xs:\n        t -= x  # sic\n    return t\n'
BODY = SOURCE.index('    """')


def _trace(pieces: list[tuple[str, float, float, list[tuple[str, float]]]]) -> Trace:
    tokens, at = [], 0
    for i, (text, prob, entropy, alts) in enumerate(pieces):
        alternatives = tuple(Alternative(100 + j, t, p) for j, (t, p) in enumerate(alts)) or (Alternative(i, text, prob),)
        tokens.append(TokenRecord(i, i, text, at, at + len(text), entropy, prob, alternatives))
        at += len(text)
    trace = Trace(text="".join(p[0] for p in pieces), tokens=tuple(tokens), model="m", mode="scored")
    assert trace.text == SOURCE
    return PYTHON.annotate_scopes(trace)


TRACE = _trace([
    ("def", 0.001, 0.1, []),  # the header: never a suspect
    (" f(xs):\n", 0.9, 0.1, []),
    ('    """', 0.9, 0.1, []),
    ("Sum them", 0.0001, 3.0, []),  # the docstring: never a suspect
    ('."""\n', 0.9, 0.1, []),
    ("    t", 0.5, 1.0, []),  # line 3: surprisal 0.69, unexpected -0.31
    (" = 0\n", 0.9, 0.1, []),
    ("    for", 0.2, 2.5, [("    while", 0.3), ("    for", 0.2)]),  # line 4: surprisal 1.61 (largest), margin log(1.5)
    (" x in xs:\n", 0.95, 0.1, []),
    ("        t", 0.9, 0.2, []),
    (" -=", 0.3, 0.2, [(" +=", 0.65), (" -=", 0.3)]),  # line 5: surprisal 1.20, unexpected 1.00 (largest), margin log(0.65/0.3)
    (" x", 0.9, 0.1, []),
    ("  # sic", 0.001, 0.1, []),  # a comment: never a suspect
    ("\n", 0.9, 0.1, []),
    ("    return", 0.9, 0.1, []),
    (" t\n", 0.9, 0.1, []),
])


def test_each_body_line_by_its_most_surprising_code_token():
    ranked = suspect_lines(TRACE, SOURCE, BODY, "surprisal")
    assert [s.line for s in ranked] == [4, 5, 3, 6]  # not the header, not the docstring's line 2
    assert ranked[0].token == "    for" and ranked[0].score == pytest.approx(-math.log(0.2))
    assert (ranked[0].preferred, ranked[0].preferred_prob) == ("    while", 0.3)


def test_beyond_what_the_model_expected_the_minus_is_the_suspect():
    ranked = suspect_lines(TRACE, SOURCE, BODY, "unexpected")
    assert ranked[0].line == 5 and ranked[0].score == pytest.approx(-math.log(0.3) - 0.2)
    assert ranked[0].preferred == " +="


def test_the_margin_below_the_model_s_own_choice():
    ranked = suspect_lines(TRACE, SOURCE, BODY, "margin")
    assert ranked[0].line == 5 and ranked[0].score == pytest.approx(math.log(0.65 / 0.3))
    # a line whose tokens are all the model's own choice has margin 0; ties keep the earlier line first
    assert [s.line for s in ranked[2:]] == [3, 6] and ranked[-1].score == pytest.approx(0.0)
    assert ranked[-1].preferred == ""


def test_a_token_s_line_is_that_of_its_first_visible_character():
    rec = TRACE.tokens[7]  # "    for" begins right after line 3's newline
    assert token_line(rec, SOURCE) == 4


def test_top_k_hits():
    ranked = suspect_lines(TRACE, SOURCE, BODY, "surprisal")
    assert hit_at(ranked, {5}, 2) and not hit_at(ranked, {5}, 1) and not hit_at(ranked, {2}, 4)


def test_the_assessment_s_suspects_are_at_the_document_s_lines():
    from qualm.engine.assessment import SUSPECTS_SHOWN, suspects_of

    fn = PYTHON.find_function("import math\n\n\n" + SOURCE, "f")
    assert fn.line == 4 and fn.source == SOURCE
    suspects = suspects_of(fn, TRACE)
    # ranked by the shipped measure, "unexpected": line 5 of the function (1.00), then lines 3 and 6
    # (0.005 each, from " = 0" and "    return": a tie keeps the earlier line first)
    assert [s.line for s in suspects] == [8, 6, 9][:SUSPECTS_SHOWN]
    assert suspects_of(fn, None) == ()


def test_a_likely_fix_s_line_goes_first_and_the_others_keep_their_order():
    from qualm.engine.assessment import suspects_of

    fn = PYTHON.find_function("import math\n\n\n" + SOURCE, "f")
    assert [s.line for s in suspects_of(fn, TRACE, fix_line=6)] == [9, 8, 6]  # the fix on the function's line 6
    assert [s.line for s in suspects_of(fn, TRACE, fix_line=4)] == [7, 8, 6]  # a line ranked last comes first
    assert [s.line for s in suspects_of(fn, TRACE, fix_line=None)] == [8, 6, 9]
