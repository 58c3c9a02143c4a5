"""The sampled plans as programs (``algorithmic.plan_programs``): one greedy program per plan."""

from __future__ import annotations

import json

from qualm.engine import Document, SampleCache, assess
from qualm.engine.plan_programs import plan_program_jobs
from qualm.engine.solutions import decode_together, solution_jobs
from qualm.lang import PYTHON
from qualm.model.scripted_backend import ScriptedBackend
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


class CountingBackend(ScriptedBackend):
    """The scripted model (it stands in for the real one), counting its batches."""

    def __init__(self, script) -> None:
        super().__init__(script)
        self.batches: list[list[str]] = []

    def generate_batch(self, jobs, on_progress=None, cancel=None):
        self.batches.append([prompt.name for prompt, _ in jobs])
        return super().generate_batch(jobs, on_progress, cancel)


def _scripted(tmp_path) -> CountingBackend:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "scripted", "completions": ["    return a + b\n"], "plans": ["1. Add a and b.\n2. Return it."], "tests": json.dumps(["assert add(1, 2) == 3"])}))
    return CountingBackend(script)


def test_lists_decoded_together_share_one_batch_and_a_job_in_both_is_decoded_once(tmp_path):
    backend = _scripted(tmp_path)
    settings = Settings().with_overrides(functional={"n_solutions": 2})
    solutions = solution_jobs(PROBLEM, settings, PYTHON)
    programs = plan_program_jobs(PROBLEM, ["1. Add a and b."], settings, PYTHON)
    samples = SampleCache()
    (s_traces, s_reused), (p_traces, p_reused) = decode_together([solutions, [solutions[0], *programs]], backend, samples)
    assert backend.batches == [["code_generation", "code_generation", "plan_program"]]  # one batch, solutions[0] once
    assert p_traces[0] is s_traces[0] and len(p_traces) == 2 and s_reused == [False, False] and p_reused == [True, False]
    # again: everything comes from the cache, nothing is decoded
    again = decode_together([solutions, programs], backend, samples)
    assert len(backend.batches) == 1 and again[0][1] == [True, True] and again[1][1] == [True]


def test_an_assessment_decodes_the_solutions_and_the_plans_program_in_one_batch(tmp_path):
    backend = _scripted(tmp_path)
    source = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n'
    settings = Settings().with_overrides(algorithmic={"n_plans": 2, "plan_programs": 1}, functional={"n_solutions": 2, "swap_positions": 0})
    a = assess(backend, Document(name="add.py", text=source), "add", settings, None)
    # the plans and the tests, then the solutions with the program: two batches, not three
    assert backend.batches == [["plan_generation", "plan_generation", "test_generation"], ["code_generation", "code_generation", "plan_program"]]
    assert a.solutions is not None and len(a.solutions.solutions) == 2 and a.solutions.reused == 0
    assert a.plan_programs is not None and len(a.plan_programs.solutions) == 1 and a.plan_programs.reused == 0
    assert a.plan_programs.agreement == 0.0  # the program answers as the code does
