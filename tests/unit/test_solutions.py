"""The model's own solutions (``qualm.engine.solutions``): with ``functional.solution_body_only`` the
code block opens with the function's header and the model writes bodies only, which then run as
header + body. The scripted backend stands in for the model (this is about the engine's handling:
what the prompt holds and what runs in the real sandbox)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

import pytest
from timing import seconds

from qualm.engine import solutions as solutions_module
from qualm.engine.samples import SampleCache
from qualm.engine.solutions import check_against_solutions, sandbox_workers, solution_jobs
from qualm.lang import PYTHON
from qualm.model import CancelToken
from qualm.model.scripted_backend import ScriptedBackend
from qualm.prompts import CODE_GENERATION_PREFILL
from qualm.settings import Settings
from qualm.signals.agreement import run_probes
from qualm.signals.differential import call_arguments, mutated_calls
from qualm_sandbox import SandboxConfig

SOURCE = 'import math\n\n\ndef add(a, b):\n    """Add two numbers."""\n    return a + b\n'
TESTS = ["assert add(1, 2) == 3", "assert add(0, 0) == 0"]


def _problem():
    return PYTHON.find_function(SOURCE, "add").problem_description


def test_body_only_opens_the_code_block_with_the_imports_and_header():
    problem = _problem()
    on = solution_jobs(problem, Settings().with_overrides(functional={"n_solutions": 2}), PYTHON)
    off = solution_jobs(problem, Settings().with_overrides(functional={"n_solutions": 2, "solution_body_only": False}), PYTHON)
    assert len(on) == len(off) == 2
    prefill = CODE_GENERATION_PREFILL.format(fence="python")
    assert off[0][0].assistant_prefix == prefill  # the paper's prompt as it is
    assert on[0][0].assistant_prefix == prefill + problem.rstrip("\n") + "\n"
    assert on[0][0].assistant_prefix.endswith('def add(a, b):\n    """Add two numbers."""\n') and "import math" in on[0][0].assistant_prefix
    assert on[0][0].user == off[0][0].user  # the question is the same


def _check(tmp_path, body: str, body_only: bool):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "solutions", "completions": [body], "plans": ["1. Add."], "tests": "[]"}))
    settings = Settings().with_overrides(functional={"n_solutions": 2, "solution_body_only": body_only})
    config = SandboxConfig(timeout=seconds(4.0))
    candidate = run_probes("def add(a, b):\n    return a - b\n", TESTS, "add", config)
    return check_against_solutions(ScriptedBackend(script), _problem(), "add", candidate, settings, PYTHON, config)


def test_a_body_runs_under_its_header(tmp_path):
    result = _check(tmp_path, "    return a + b\n", body_only=True)
    assert [s.passed for s in result.solutions] == [2, 2]  # header + body ran and passed both tests
    assert all(s.text.startswith(_problem().rstrip("\n") + "\n") and s.text.endswith("    return a + b\n") for s in result.solutions)
    # the candidate (a - b) answers otherwise on add(1, 2): the solutions say 3
    assert ("assert add(1, 2) == 3", "-1", "3") in result.disagreements


def test_without_body_only_the_answer_runs_as_written(tmp_path):
    # the same body alone is not a program: every solution fails, nothing is made up around it
    result = _check(tmp_path, "    return a + b\n", body_only=False)
    assert [s.passed for s in result.solutions] == [0, 0]
    whole = _check(tmp_path, "def add(a, b):\n    return a + b\n", body_only=False)
    assert [s.passed for s in whole.solutions] == [2, 2] and whole.solutions[0].text == "def add(a, b):\n    return a + b\n"


def _looping_at_ten(tmp_path, body: str, tests: list[str], n_solutions: int, program: str):
    """A scripted model whose solutions are ``body``, the code's probe run of ``tests`` with a 1 s
    limit, and the varied calls, among them add(10, 2) (5 doubled), where a program may loop."""
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "varied", "completions": [body], "plans": ["1. Add."], "tests": "[]"}))
    settings = Settings().with_overrides(functional={"n_solutions": n_solutions})
    config = SandboxConfig(timeout=1.0)  # not scaled: the limits derived from it are what is checked
    calls = mutated_calls(call_arguments(tests, "add"), "add", 32, settings.generation.seed)
    assert "add(10, 2)" in calls
    return ScriptedBackend(script), settings, config, run_probes(program, tests, "add", config), calls


@dataclass(frozen=True)
class SandboxRun:
    program: str
    statements: tuple[str, ...]
    limit: float  # each call's (or test's) own time limit, enforced in the sandbox
    budget: float  # the whole run's, after which what did not run is left out


@pytest.fixture
def sandbox_runs(monkeypatch) -> list[SandboxRun]:
    """What check_against_solutions asks of the sandbox, run by run. The runs' budgets are kept but
    their clock is fake and never runs out: a loaded machine then answers every call a fast one
    would, and what is checked is the limits asked for, not how long the runs took. A call that
    loops is still stopped by its own limit, which the sandbox enforces."""
    runs: list[SandboxRun] = []
    asked = threading.local()  # or_after is asked just before run_probes, on the same thread

    def or_after(self, seconds):
        asked.budget = seconds
        return lambda: self.cancelled

    def recorded(program, statements, function_name, config=None, should_stop=None):
        runs.append(SandboxRun(program, tuple(statements), config.timeout, asked.budget))
        return run_probes(program, statements, function_name, config, should_stop=should_stop)

    monkeypatch.setattr(CancelToken, "or_after", or_after)
    monkeypatch.setattr(solutions_module, "run_probes", recorded)
    return runs


def test_a_varied_input_that_makes_the_solutions_loop_costs_a_short_limit_and_is_left_out(tmp_path, sandbox_runs):
    # every solution loops on add(10, ...), which the varied inputs include (5 doubled); that call
    # gets a short limit of its own (a normal call takes milliseconds) and is left out, the other
    # varied calls are still answered and compared
    body = "    while a == 10:\n        pass\n    return a + b\n"
    tests = ["assert add(5, 2) == 7", "assert add(7, 1) == 8", "assert add(0, 0) == 0"]
    program = "def add(a, b):\n    return a + b\n"
    backend, settings, config, candidate, calls = _looping_at_ten(tmp_path, body, tests, 6, program)
    result = check_against_solutions(backend, _problem(), "add", candidate, settings, PYTHON, config, program=program)
    assert result.differential == 0.0
    assert f"on 0 of {len(calls) - 1} varied inputs" in result.differential_note  # add(10, 2) left out
    # six solutions and the code on the varied calls, each its share of about twice the per-test
    # limit on two workers (2 x 2 x 1.0 / 7 = 0.57 s), each call max(0.25, 0.57 / 4) = 0.25 s: a
    # call that loops costs a quarter of the per-test limit of 1 s
    varied = [r for r in sandbox_runs if "add(10, 2)" in r.statements]
    assert len(varied) == 7 and [r.program for r in varied].count(program) == 1  # the code's run and one a solution
    assert all(r.limit == 0.25 and r.budget == pytest.approx(4 / 7) for r in varied)
    # the solutions' runs of the code's tests keep the per-test limit, and twice it in all
    probes = [r for r in sandbox_runs if r.statements == tuple(tests)]
    assert len(probes) == 6 and all(r.limit == 1.0 and r.budget == 2.0 for r in probes)


def test_solution_checks_run_one_sandboxed_program_per_core_but_never_fewer_than_two():
    assert sandbox_workers(13, 16) == 13  # a GPU machine: every run of a check at once
    assert sandbox_workers(13, 2) == 2  # two cores: the pool as it was
    assert sandbox_workers(13, 1) == 2  # one core still overlaps a run that waits on its limit
    assert sandbox_workers(1, 16) == 2


def test_the_solutions_are_not_asked_a_varied_call_the_code_did_not_answer(tmp_path, sandbox_runs):
    # the code loops on add(10, ...); that call has nothing to compare the solutions' answers with,
    # so no solution is run on it (on a CPU, a call that loops costs its limit in every program)
    program = "def add(a, b):\n    while a == 10:\n        pass\n    return a + b\n"
    backend, settings, config, candidate, calls = _looping_at_ten(tmp_path, "    return a + b\n", ["assert add(5, 2) == 7", "assert add(7, 1) == 8"], 2, program)
    samples = SampleCache()
    result = check_against_solutions(backend, _problem(), "add", candidate, settings, PYTHON, config, samples, program=program)
    asked = [key[4] for key in samples.value_keys() if key[0] == "solution-varied"]
    assert len(asked) == 1  # both solutions are the same text: one run, kept
    assert "add(10, 2)" not in asked[0] and len(asked[0]) == len(calls) - 1
    assert f"on 0 of {len(calls) - 1} varied inputs" in result.differential_note  # the others still compared


def test_only_the_solutions_that_pass_the_docstring_s_examples_vote_where_the_examples_do_not_decide(tmp_path):
    # The code is wrong beyond its example: max(a, b) written as a where a >= 0. It passes the
    # docstring's example and the model's one test. Of four solutions, two are right and two
    # answer a - b, which fails the example: all four together seldom agree, and where they do the
    # code answers as they do; the two that pass the example agree, and the code differs from them
    # where 0 <= a < b.
    right, wrong = "    return a if a > b else b\n", "    return a - b\n"
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "consistent", "completions": [right, wrong, right, wrong], "plans": ["1. Max."], "tests": "[]"}))
    settings = Settings().with_overrides(functional={"n_solutions": 4})
    config = SandboxConfig(timeout=seconds(4.0))
    program = "def add(a, b):\n    return a if a >= 0 else b\n"
    tests = ["assert add(5, 2) == 5"]
    examples = ["assert (add(3, 1)) == (3)"]
    candidate = run_probes(program, tests, "add", config)
    result = check_against_solutions(ScriptedBackend(script), _problem(), "add", candidate, settings, PYTHON, config, program=program, examples=examples)
    # all four agree only where a - b happens to be the larger (add(5, 0)), and there the code does too
    assert result.consistent == 2 and result.differential == 0.0
    assert "2 of the model's 4 solutions pass the docstring's examples" in result.consistent_note
    assert result.consistent_differential is not None and result.consistent_differential > 0
    assert result.consistent_weighted == 0.0  # the one test: both consistent solutions pass it, so does the code
    # calls varied from the example's inputs are asked too (add(3, 1) -> add(3, 2), add(3, 0), ...)
    plain = check_against_solutions(ScriptedBackend(script), _problem(), "add", candidate, settings, PYTHON, config, program=program)
    # no example: every solution counts, and the signals are those of all the solutions (consistent_rows relies on it)
    assert plain.consistent == 4 and plain.consistent_differential == plain.differential and plain.consistent_weighted == plain.weighted
    none_pass = check_against_solutions(
        ScriptedBackend(script), _problem(), "add", candidate, settings, PYTHON, config, program=program, examples=["assert (add(3, 1)) == (99)"],
    )
    assert none_pass.consistent == 0 and none_pass.consistent_differential is None and "none of the model's 4 solutions" in none_pass.consistent_note
    # off (functional.consistent_solutions): neither is computed, and the examples are not run
    off = check_against_solutions(
        ScriptedBackend(script), _problem(), "add", candidate, settings.with_overrides(functional={"consistent_solutions": False}),
        PYTHON, config, program=program, examples=examples,
    )
    assert off.consistent is None and off.consistent_differential is None and off.consistent_note == "off"
    assert off.differential == result.differential  # the differential of every solution is the same
