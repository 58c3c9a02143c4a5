"""qualm.signals.examples.check_examples: a docstring's examples run against a right and a wrong
function in the real sandbox (real subprocesses)."""

from __future__ import annotations

from timing import seconds

from qualm.lang import PYTHON
from qualm.signals.examples import check_examples
from qualm_sandbox import SandboxConfig

# Where the sandbox is missing or broken, conftest.py fails or skips every test here.

CONFIG = SandboxConfig(timeout=seconds(2.0), memory_mb=512)
TEXT = '''def choose_num(x, y):
    """Return the largest even number in [x, y], or -1 if there is none.

    >>> choose_num(12, 15)
    14
    choose_num(13, 12) = -1
    """
    if x > y:
        return -1
    if y % 2 == 0:
        return y
    return y - 1 if y - 1 >= x else -1
'''


def _check(text: str):
    fn = PYTHON.find_function(text, "choose_num")
    return check_examples(fn.program, PYTHON.docstring(fn.source, "choose_num"), "choose_num", CONFIG)


def test_the_right_function_passes_its_examples():
    result = _check(TEXT)
    assert [o.status for o in result.outcomes] == ["passed", "passed"]
    assert result.failed == 0.0 and result.note == "passes the docstring's 2 examples"


def test_a_one_edit_mutant_fails_one():
    result = _check(TEXT.replace("return y - 1 if", "return y - 2 if"))
    assert [o.status for o in result.outcomes] == ["failed", "passed"]
    assert result.failed == 0.5 and result.note == "fails 1 of the docstring's 2 examples"
    assert result.failing[0].example.call == "choose_num(12, 15)"


def test_no_example_no_signal():
    result = _check(TEXT.replace("    >>> choose_num(12, 15)\n    14\n    choose_num(13, 12) = -1\n", ""))
    assert result.outcomes == [] and result.failed is None


def test_one_example_in_words():
    result = _check(TEXT.replace("    choose_num(13, 12) = -1\n", "").replace("return y - 1 if", "return y - 2 if"))
    assert result.failed == 1.0 and result.note == "fails the docstring's example"


def test_an_assert_line_as_mbpp_states_its_example():
    # MBPP's task, as the evaluation and the pairs put it in the docstring
    text = TEXT.replace(
        "    >>> choose_num(12, 15)\n    14\n    choose_num(13, 12) = -1\n",
        "    Your code should pass this test:\n    assert choose_num(12, 15) == 14\n",
    )
    right = _check(text)
    assert [(o.example.form, o.status) for o in right.outcomes] == [("assert", "passed")]
    wrong = _check(text.replace("return y - 1 if", "return y - 2 if"))
    assert wrong.failed == 1.0 and wrong.note == "fails the docstring's example"
