"""benchmarks.assessment.localization's offline parts, without the model: the bug's lines from the
original and the mutant, the random order's expected hits, the example sentence MBPP's task drops."""

from __future__ import annotations

import math

from benchmarks.assessment.localization import random_hits, scored_rows, truth_lines, without_example

ORIGINAL = "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"


def test_a_changed_line():
    assert truth_lines(ORIGINAL, ORIGINAL.replace("t += x", "t -= x")) == {4}


def test_a_deleted_statement_is_the_two_lines_around_its_gap():
    assert truth_lines(ORIGINAL, ORIGINAL.replace("        t += x\n", "")) == {3, 4}


def test_a_duplicated_statement_is_both_copies():
    assert truth_lines(ORIGINAL, ORIGINAL.replace("        t += x\n", "        t += x\n        t += x\n")) == {4, 5}


def test_the_random_order_s_expected_hits():
    assert random_hits(4, 1) == (0.25, 0.75)
    assert random_hits(6, 2)[1] == 1 - math.comb(4, 3) / math.comb(6, 3)
    assert random_hits(2, 1) == (0.5, 1.0)


def test_mbpp_s_task_without_its_test():
    task = "Write a function to add.\nYour code should pass this test:\nassert add(1, 2) == 3"
    assert without_example(task) == "Write a function to add."
    assert without_example("Add two numbers.") == "Add two numbers."


def test_only_functions_of_four_lines_or_more_with_the_bug_on_a_ranked_line_count():
    row = {"task_id": "p", "kind": "operator", "truth": [4], "ranked": {"surprisal": [[4, 2.0], [2, 1.0], [3, 0.5], [5, 0.1]]}}
    assert scored_rows([row], "surprisal") == [{"task_id": "p", "kind": "operator", "top1": 1.0, "top3": 1.0, "random1": 0.25, "random3": 0.75}]
    assert scored_rows([{**row, "truth": [7]}], "surprisal") == []
    assert scored_rows([{**row, "ranked": {"surprisal": [[4, 2.0], [2, 1.0], [3, 0.5]]}}], "surprisal") == []
