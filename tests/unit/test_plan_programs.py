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
    assert Settings().algorithmic.plan_programs == 1  # one program by default (its cost on a CPU)


def test_solutions_from_the_plans_are_the_greedy_solution_then_the_plans_programs():
    from qualm.engine.plan_programs import solutions_of
    from qualm.engine.solutions import solution_jobs

    plans = ["1. Add a and b.", "", "1. Return b + a.", "1. Sum them."]
    off = Settings().with_overrides(functional={"n_solutions": 3, "solutions_from_plans": False})
    assert solutions_of(PROBLEM, plans, off, PYTHON) == solution_jobs(PROBLEM, off, PYTHON)
    on = off.with_overrides(functional={"solutions_from_plans": True})
    assert not Settings().functional.solutions_from_plans and not Settings().algorithmic.candidate_plan  # the defaults
    jobs = solutions_of(PROBLEM, plans, on, PYTHON)
    # the first is the greedy solution of the problem, the rest the first plans' programs, n_solutions in all
    assert jobs[0] == solution_jobs(PROBLEM, on, PYTHON)[0]
    assert jobs[1:] == plan_program_jobs(PROBLEM, plans, on, PYTHON)[:2]
    assert [p.user.split("Follow this plan:\n")[-1] for p, _ in jobs[1:]] == ["1. Add a and b.", "1. Return b + a."]
    # no plan with text (the algorithmic axis off or failed): the solutions of the problem alone
    assert solutions_of(PROBLEM, ["", " "], on, PYTHON) == solution_jobs(PROBLEM, on, PYTHON)
    # no solutions at all stays no solutions
    assert solutions_of(PROBLEM, plans, on.with_overrides(functional={"n_solutions": 0}), PYTHON) == []


def test_the_programs_an_assessment_checks_are_the_settings_count_or_those_among_the_solutions():
    from qualm.engine.plan_programs import checked_programs, programs_among, solutions_of

    plans = ["1. Add a and b.", "1. Return b + a.", "1. Sum them."]
    settings = Settings().with_overrides(functional={"n_solutions": 3})
    assert programs_among(solutions_of(PROBLEM, plans, settings, PYTHON)) == 0
    assert checked_programs(PROBLEM, plans, settings, PYTHON) == plan_program_jobs(PROBLEM, plans, settings, PYTHON)[:1]  # the default 1
    on = settings.with_overrides(functional={"solutions_from_plans": True})
    among = programs_among(solutions_of(PROBLEM, plans, on, PYTHON))
    assert among == 2  # the greedy solution and two programs
    # those among the solutions, not fewer, and the same jobs (so they come back from the cache)
    assert checked_programs(PROBLEM, plans, on, PYTHON, among) == solutions_of(PROBLEM, plans, on, PYTHON)[1:]
    assert len(checked_programs(PROBLEM, plans, on.with_overrides(algorithmic={"plan_programs": 3}), PYTHON, among)) == 3
    assert checked_programs(PROBLEM, plans, settings.with_overrides(algorithmic={"plan_programs": 0}), PYTHON) == []
