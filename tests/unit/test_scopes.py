from qualm.lang import PYTHON
from qualm.lang.python.scopes import scope_spans

annotate_scopes = PYTHON.annotate_scopes
from qualm.trace import TokenRecord, Trace

SOURCE = '''"""Module docstring."""
import math  # a trailing comment


def area(r: float) -> float:
    """Area of a circle.

    Multi-line docstring.
    """
    # a full-line comment
    s = "not a docstring"
    return math.pi * r ** 2  # pi r squared


class Shape:
    """Class docstring."""

    def name(self):
        return "shape"
'''


def spans_text(kind):
    return [SOURCE[s:e] for s, e, k in scope_spans(SOURCE) if k == kind]


def test_comments_and_docstrings_are_found():
    assert spans_text("comment") == ["# a trailing comment", "# a full-line comment", "# pi r squared"]
    docs = spans_text("docstring")
    assert docs[0] == '"""Module docstring."""'
    assert docs[1].startswith('"""Area of a circle.') and docs[1].endswith('"""')
    assert docs[2] == '"""Class docstring."""'
    assert len(docs) == 3  # the string assigned to s is code


def test_tokens_get_the_scope_of_their_first_visible_character():
    pieces = ["def", " f", "():", "\n", "   ", ' """', "Doc", '."""', "\n", "   ", " return", " ", "1", "  #", " one", "\n"]
    expected = ["code"] * 5 + ["docstring"] * 3 + ["code"] * 5 + ["comment"] * 2 + ["code"]
    text = "".join(pieces)
    tokens, pos = [], 0
    for i, piece in enumerate(pieces):
        tokens.append(TokenRecord(i, i, piece, pos, pos + len(piece), 0.0, 1.0, ()))
        pos += len(piece)
    scoped = annotate_scopes(Trace(text=text, tokens=tuple(tokens), model="m", mode="greedy"))
    assert [t.scope for t in scoped.tokens] == expected


def test_truncated_code_still_classifies_what_came_before():
    text = 'def f():\n    # first\n    s = """unterminated\n'
    kinds = [k for _, _, k in scope_spans(text)]
    assert kinds == ["comment"]
