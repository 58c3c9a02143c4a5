"""qualm.signals.examples: which docstring lines are read as examples, and the tests they become
(hand-written docstrings, expected lists written out by hand)."""

from __future__ import annotations

import pytest

from qualm.signals.examples import docstring_examples, examples_failed

DOCTESTS = """Add two numbers.

>>> add(1, 2)
3
>>> add(-1, 1)   # a comment
0
>>> print(add(1, 1))
2
>>> add("a", None)
Traceback (most recent call last):
TypeError: ...
>>> x = 2
>>> add(x, 1)
3
>>> sorted([add(1, 1)])
[2]
"""


def test_doctest_examples_that_call_the_function_with_literal_values():
    found = docstring_examples(DOCTESTS, "add")
    # print() shows output, not a value; a traceback is no literal; `x` names no value; sorted(...) is
    # not a call of add
    assert [(e.call, e.expected, e.form) for e in found] == [("add(1, 2)", "3", "doctest"), ("add(-1, 1)", "0", "doctest")]
    assert [e.line for e in found] == [3, 5]  # 1-based lines of the docstring
    assert found[0].test == "assert (add(1, 2)) == (3)"


LINES = """Return the largest even number in [x, y], or -1.

For example:
    choose_num(12, 15) = 14
    choose_num(13, 12) ==> -1
    - choose_num(2, 2) ➞ 2.
    Example: choose_num(1, 3) -> 2  # 2 is the only even one
    choose_num(a, b) = 14
    choose_num(3, 3) returns nothing useful
    choose_num(4, 4) should return 4
    choose_num(12, 15) == 14
"""


def test_example_lines_in_the_usual_forms():
    found = docstring_examples(LINES, "choose_num")
    # `choose_num(a, b)` names no value, "nothing useful" is prose, and the last line repeats the first
    assert [(e.call, e.expected) for e in found] == [
        ("choose_num(12, 15)", "14"),
        ("choose_num(13, 12)", "-1"),
        ("choose_num(2, 2)", "2"),
        ("choose_num(1, 3)", "2"),
        ("choose_num(4, 4)", "4"),
    ]
    assert {e.form for e in found} == {"line"}


ASSERTS = """Write a python function to find minimum sum of factors of a given number.
Your code should pass this test:
assert find_Min_Sum(12) == 7
    assert 3 == find_Min_Sum(5), "a message"
assert find_Min_Sum(n) == 7
assert set(find_Min_Sum(1)) == {1}
assert find_Min_Sum(2)
assert find_Min_Sum(2) != 3
assert find_Min_Sum(4) == 4 == 4
assert find_Min_Sum(12) == 7
assert other(1) == 1
assert find_Min_Sum(8) == (6
"""


def test_assert_lines_as_mbpp_states_its_example():
    found = docstring_examples(ASSERTS, "find_Min_Sum")
    # `n` names no value; set(...) is not a call of the function; a bare call, `!=` and a chained
    # comparison state no value; the repeat of line 3 counts once; another function's assert and an
    # unclosed line are skipped
    assert [(e.call, e.expected, e.form, e.line) for e in found] == [("find_Min_Sum(12)", "7", "assert", 3), ("find_Min_Sum(5)", "3", "assert", 4)]
    assert found[1].test == "assert (find_Min_Sum(5)) == (3)"


def test_a_keyword_argument_and_an_equals_sign_in_a_string():
    found = docstring_examples("f(x=1) == 2\nf('a=b') -> 'b'\nf(**{'x': 1}) == 2", "f")
    assert [(e.call, e.expected) for e in found] == [("f(x=1)", "2"), ("f('a=b')", "'b'")]


def test_a_value_with_text_right_under_it():
    # doctest reads output up to a blank line; the value is its first line when the whole is no literal
    found = docstring_examples(">>> f(1)\n2\nf(2) = 4\n", "f")
    assert [(e.call, e.expected, e.form) for e in found] == [("f(1)", "2", "doctest"), ("f(2)", "4", "line")]


def test_a_float_is_compared_within_a_tolerance():
    (e,) = docstring_examples(">>> mean([1.0, 2.0])\n1.5\n", "mean")
    assert e.test == "assert abs((mean([1.0, 2.0])) - (1.5)) <= 1e-06 * max(1.0, abs(1.5))"
    namespace = {"mean": lambda xs: sum(xs) / len(xs) + 1e-9}
    exec(e.test, namespace)  # the test as written, against a stand-in that is off by 1e-9


def test_nothing_to_read():
    assert docstring_examples(None, "f") == []
    assert docstring_examples("Return the sum of a and b.", "f") == []
    assert docstring_examples(">>> g(1)\n2\n", "f") == []  # another function
    # doctest refuses an output indented less than its prompt, and the line form skips a prompt
    assert docstring_examples("  >>> f(1)\n2\n", "f") == []


def test_examples_failed():
    assert examples_failed([]) is None
    assert examples_failed(["passed", "passed"]) == 0.0
    assert examples_failed(["passed", "failed", "error", "timeout"]) == pytest.approx(0.75)
