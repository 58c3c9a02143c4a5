"""The reference solutions of a calibration run carry their task, as users' functions do."""

from __future__ import annotations

from qualm.fitting.calibrate import ReferenceProblem, humaneval_problems, mbpp_problems, with_task
from qualm.lang import PYTHON


def test_an_mbpp_solution_gets_the_task_text_as_its_docstring():
    problem = list(mbpp_problems())[0]  # MBPP/511: a bare task text with one example assert
    solution = "def find_Min_Sum(n):\n    # the smallest sum\n    return n\n"
    header = PYTHON.find_function(with_task(solution, problem), problem.entry_point).problem_description
    assert "minimum sum of factors" in header and "assert find_Min_Sum(12) == 7" in header
    assert "return" not in header  # the body stays the candidate, not part of the task


def test_a_humaneval_solution_keeps_or_regains_the_prompt_docstring():
    problem = next(p for p in humaneval_problems() if p.task_id == "HumanEval/0")
    bare = "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    return False\n"
    assert "closer to each other than" in PYTHON.find_function(with_task(bare, problem), problem.entry_point).problem_description
    own = bare.replace("    return", '    """Own words."""\n    return')
    assert with_task(own, problem) == own


def test_without_a_task_or_a_parsable_solution_nothing_changes():
    plain = ReferenceProblem("X/1", "def f(x):\n    pass\n", "f")
    assert with_task("def f(x):\n    return x\n", plain) == "def f(x):\n    return x\n"
    broken = "def f(x:\n"
    assert with_task(broken, ReferenceProblem("X/2", '"""Task."""\n', "f")) == broken
