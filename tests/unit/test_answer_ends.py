"""Where a plan or a test list is complete (qualm.answer_ends), and the stream cutting there."""

from qualm import answer_ends
from qualm.answer_ends import plan_end
from qualm.model.text_stream import TextStream, TokenStats

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


def stats(i: int, prob: float = 0.5) -> TokenStats:
    return TokenStats(token_id=i, entropy=0.1, prob=prob, alternatives=())


def test_the_stream_stops_where_the_rule_says_and_cuts_its_records():
    s = TextStream((), ends=plan_end)
    pieces = [b"1. a\n", b"2. b\n", b"3. c\n", b"\n", b"Sum", b"mary here", b".\n", b"more"]
    stopped_at = None
    for i, p in enumerate(pieces):
        if s.push(p, stats(i)):
            stopped_at = i
            break
    s.finish()
    assert stopped_at == 6 and s.stop_kind == "complete"
    assert s.text == "1. a\n2. b\n3. c\n\n"
    assert "".join(r.text for r in s.records) == s.text and s.records[-1].end == len(s.text)


def test_a_plan_that_ends_with_its_summary_loses_the_summary_at_the_end_of_turn():
    s = TextStream((), ends=plan_end)
    for i, p in enumerate([b"1. a\n2. b\n3. c\n", b"\n", b"That is all."]):
        assert not s.push(p, stats(i))
    s.finish()  # the model's end of turn: the last line is judged as if a newline followed
    assert s.text == "1. a\n2. b\n3. c\n\n" and not s.stopped


def test_a_fence_still_stops_with_its_own_kind():
    s = TextStream(("```",), ends=answer_ends.tests_end(10))
    assert s.push(b'["assert f(1) == 1"]\n```', stats(0))
    assert s.stop_kind == "fence" and s.text == '["assert f(1) == 1"]\n'
