"""Where a plan or a test list is complete (qualm.answer_ends); the stream cutting there is in
test_text_stream.py."""

from qualm import answer_ends
from qualm.answer_ends import plan_end

PLAN = "1. Read the list.\n2. Compare each pair.\n   - keep the closest\n3. Return the answer.\n"


def test_a_heading_after_the_steps_ends_the_plan():
    text = PLAN + "\n### Explanation\nThe code loops.\n"
    assert plan_end(text) == len(PLAN) + 1  # the blank line stays, the heading goes


def test_a_flush_left_paragraph_after_a_blank_line_ends_the_plan():
    text = PLAN + "\nThis plan is simple and efficient.\n"
    assert plan_end(text) == len(PLAN) + 1


def test_bullets_indented_lines_and_later_steps_do_not_end_it():
    text = PLAN + "\n- a bullet after a blank line\n\n   indented prose\n\n4. Step four.\n"
    assert plan_end(text) is None


def test_prose_before_the_third_step_is_not_the_end():
    text = "Plan:\n\n1. First.\n\nSome words between.\n\n2. Second.\n"
    assert plan_end(text) is None


def test_an_unfinished_line_is_not_judged():
    assert plan_end(PLAN + "\nThis plan") is None  # the line may still become anything
    assert plan_end(PLAN + "\nThis plan\n") == len(PLAN) + 1


def test_step_words_and_bold_numbers_count_as_steps():
    text = "Step 1: a\nStep 2: b\n**3.** c\n\nOverall it works.\n"
    assert plan_end(text) == text.index("Overall")


def test_the_test_list_ends_after_the_m_th_assert():
    items = ['[\n', '    "assert f(1) == 1",\n', '    "assert f(2) == 4",\n', '    "assert f(3) == 9",\n', '    "assert f(4) == 16"\n', "]\n"]
    text = "".join(items)
    assert answer_ends.tests_end(3)(text) == len("".join(items[:4]))
    assert answer_ends.tests_end(4)(text) == len("".join(items[:5]))  # the last item has no comma
    assert answer_ends.tests_end(5)(text) is None
    assert answer_ends.tests_end(1)('[\n    "assert f(1) == 1",') is None  # that line is not finished yet



def test_a_methods_test_list_ends_after_the_m_th_test_that_builds_its_object():
    text = '[\n    "obj = Stack(); assert obj.pop() == 1",\n    "assert Stack().size() == 0",\n    "obj = Stack(); obj.push(2); assert obj.pop() == 2",\n    "obj'
    assert answer_ends.tests_end(2)(text) is None  # one plain assert: a function's rule counts one
    end = answer_ends.tests_end(2, setup=True)(text)
    assert end is not None and text[:end].endswith('"assert Stack().size() == 0",\n')
