"""The sampled plans as programs (``algorithmic.plan_programs``): one greedy program per plan."""

from __future__ import annotations

from qualm.engine.plan_programs import plan_program_jobs
from qualm.lang import PYTHON
from qualm.settings import Settings

PROBLEM = 'def add(a, b):\n    """Return the sum of a and b."""\n'


def test_each_plan_with_text_becomes_one_greedy_program_under_the_functions_header():
    settings = Settings()
    jobs = plan_program_jobs(PROBLEM, ["1. Add a and b.\n2. Return it.", "  \n", "1. Return b + a."], settings, PYTHON)
    assert len(jobs) == 2  # a plan without text has nothing to follow
    for (prompt, options), plan in zip(jobs, ["1. Add a and b.\n2. Return it.", "1. Return b + a."]):
        assert prompt.user.endswith("Follow this plan:\n" + plan) and "Return the sum of a and b." in prompt.user
        # written as the solutions are: the body under the function's header, within their budget
        assert prompt.assistant_prefix.endswith(PROBLEM)
        assert options.temperature == 0.0 and options.max_tokens == settings.functional.solution_max_tokens
    assert jobs[0][0].name == "plan_program"
    assert not Settings().algorithmic.plan_programs  # off by default (its cost on a CPU)
