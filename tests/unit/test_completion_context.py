from qualm.engine.placement import PrefixTrimmer, Reindenter
from qualm.lang.python.completion import completion_context


def reindent(text: str, indent: str) -> str:
    return Reindenter(indent).feed(text)

DOC = '''import math
from typing import List


def area(r: float) -> float:
    """Area of a circle."""
    return math.pi * r ** 2


class Shape:
    def perimeter(self, sides: List[float]) -> float:
        """Sum of the sides.

        >>> Shape().perimeter([1, 2])
        3
        """
        total = 0
        for s in sides:
            total += s
        return tot
'''


def at(marker: str, after: bool = True) -> int:
    i = DOC.index(marker)
    return i + len(marker) if after else i


def test_inside_a_method_the_problem_is_its_header_and_the_reply_continues_its_code():
    ctx = completion_context(DOC, at("return tot"))
    assert ctx.function == "perimeter" and ctx.indent == "    "
    assert ctx.written.startswith("def perimeter(self, sides: List[float]) -> float:\n")
    assert ctx.written.endswith("    return tot")
    user, prefix = ctx.prompt.user, ctx.prompt.assistant_prefix
    assert "import math\nfrom typing import List\n" in user
    assert '"""Sum of the sides.' in user and "total = 0" not in user  # header only
    assert prefix.endswith("import math\nfrom typing import List\n\n" + ctx.written)
    assert prefix.startswith("Here are the complete codes for this problem:\n```python\n")


def test_in_a_signature_being_typed():
    text = "def clamp(x, lo,"
    ctx = completion_context(text, len(text))
    assert ctx.function == "clamp" and ctx.written == text


def test_on_a_blank_line_in_a_body():
    text = 'def f(x):\n    """Double."""\n    y = 2 * x\n    '
    ctx = completion_context(text, len(text))
    assert ctx.function == "f"
    assert '"""Double."""' in ctx.prompt.user


def test_at_top_level_the_code_before_the_cursor_is_the_context():
    ctx = completion_context(DOC, at("class Shape:", after=False))
    assert ctx.function is None and ctx.indent == ""
    assert ctx.written.endswith("return math.pi * r ** 2\n\n\n")


def test_code_that_does_not_parse_still_gets_a_context():
    text = "import os\n\ndef broken(:\n    x = (1,\n    "
    ctx = completion_context(text, len(text))
    assert ctx.function == "broken"


def test_reindent_puts_the_method_indentation_back_after_the_first_line():
    assert reindent("al\n    return total\n", "    ") == "al\n        return total\n"
    assert reindent("x\n\ny", "") == "x\n\ny"


def test_reindenter_fed_token_by_token_gives_the_same_text_as_at_once():
    pieces = ["total", " =", " 0\n", "\n", "    for", " x in xs:\n        total", " +=", " x\n", "    return total"]
    stream = Reindenter("    ")
    streamed = "".join(stream.feed(p) for p in pieces)
    assert streamed == reindent("".join(pieces), "    ")
    assert streamed == "total = 0\n\n        for x in xs:\n            total += x\n        return total"


def test_whitespace_before_the_cursor_is_left_out_of_the_prompt_and_trimmed_from_the_completion():
    text = 'def f(xs):\n    """Sum."""\n    '
    ctx = completion_context(text, len(text))
    assert ctx.heal == "    "
    assert ctx.prompt.assistant_prefix.endswith('"""Sum."""\n')
    # the model writes the indentation again, split over tokens as a tokenizer would
    trim = PrefixTrimmer(ctx.heal)
    assert [trim.feed(t) for t in ["   ", " return", " sum", "(xs)"]] == ["", "return", " sum", "(xs)"]
    # a model that goes another way keeps its own text after what matched
    other = PrefixTrimmer("    ")
    assert [other.feed(t) for t in ["  ", "x", "  y"]] == ["", "x", "  y"]
    # no trailing whitespace, nothing healed
    assert completion_context("x = 1", 5).heal == ""
