"""qualm assess with the real default model: plans, self-tests in the real sandbox, the ensemble."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from qualm.calibration_file import new_calibration
from qualm.engine import SampleCache, assess_function
from qualm.lang import PYTHON

find_function = PYTHON.find_function
from timing import seconds

from qualm.trace import Trace

pytestmark = pytest.mark.model

HEADER = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b.

    >>> add(2, 3)
    5
    """
'''
CORRECT = HEADER + "    return a + b\n"
WRONG = HEADER + "    return a - b\n"


@pytest.fixture(scope="module")
def small(settings):
    # Fewer samples than the paper's 10 + 10 keep the suite fast; the pipeline is the same.
    return settings.with_overrides(algorithmic={"n_plans": 4, "max_tokens": 200}, functional={"n_tests": 6, "max_tokens": 400, "n_solutions": 3})


@pytest.fixture(scope="module")
def correct_and_wrong(backend, small):
    right = assess_function(backend, find_function(CORRECT, "add"), small, None)
    wrong = assess_function(backend, find_function(WRONG, "add"), small, None)
    return right, wrong


def test_the_wrong_body_gets_the_higher_functional_uncertainty(correct_and_wrong):
    right, wrong = correct_and_wrong
    assert right.functional.available and wrong.functional.available
    # Same seed, same problem description: the model wrote the same tests for both.
    assert [t.code for t in right.tests] == [t.code for t in wrong.tests]
    assert wrong.functional.raw > right.functional.raw
    assert any(t.status == "failed" for t in wrong.tests)


def test_the_model_solutions_side_with_the_right_body(correct_and_wrong):
    right, wrong = correct_and_wrong
    assert right.solutions is not None and len(right.solutions.solutions) == 3
    assert all(s.ran == len(right.tests) for s in right.solutions.solutions)
    # add(a, b) is easy: the model's solutions answer as a + b does, and not as a - b does
    assert right.extra["signals"]["agreement"] < wrong.extra["signals"]["agreement"]
    assert right.extra["signals"]["functional_weighted"] < wrong.extra["signals"]["functional_weighted"]
    assert wrong.solutions.disagreements and not right.solutions.disagreements
    assert "weighted by the model's 3 solutions" in wrong.functional.note
    # on the tests' inputs varied by type, a - b answers otherwise than the solutions, a + b does not
    assert right.solutions.differential == 0.0 and wrong.solutions.differential > 0.5
    assert wrong.solutions.differences and not right.solutions.differences
    assert wrong.extra["signals"]["differential"] == wrong.solutions.differential


def test_the_models_likelier_token_repairs_the_wrong_body(correct_and_wrong):
    right, wrong = correct_and_wrong
    # `-` in `a - b` is one the model would not have written; `+` in its place passes the tests
    assert wrong.swaps is not None and wrong.swaps.best is not None
    best = wrong.swaps.best
    assert (best.swap.token.strip(), best.swap.alternative.strip()) == ("-", "+")
    # the swapped code is the right body, so it gets the right body's verdicts
    assert best.swap.source == right.candidate and best.statuses == tuple(t.status for t in right.tests)
    assert best.gain > 0
    assert wrong.extra["signals"]["swap_gain"] == wrong.swaps.uncertainty == best.gain
    assert best.line_in(wrong.candidate, wrong.line) == 7
    # every token of `a + b` is the model's likeliest: nothing to swap, so no value (not 0)
    assert right.swaps is not None and right.swaps.outcomes == [] and right.swaps.uncertainty is None
    assert "nothing to try" in right.swaps.note and right.extra["signals"]["swap_gain"] is None


def test_the_plans_as_programs_side_with_the_right_body(backend, small):
    from qualm.engine import SampleCache

    samples = SampleCache()
    on = small.with_overrides(algorithmic={"plan_programs": 4}, functional={"n_solutions": 0, "fuzz_inputs": 0})
    right = assess_function(backend, find_function(CORRECT, "add"), on, None, samples=samples)
    wrong = assess_function(backend, find_function(WRONG, "add"), on, None, samples=samples)
    assert right.plan_programs is not None and len(right.plan_programs.solutions) == len(right.plans) == 4
    # the programs depend on the problem and the plans alone: the second assessment reused them
    assert wrong.plan_programs.reused == 4
    # add(a, b) is easy: the plans' programs answer as a + b does, not as a - b does
    assert right.extra["signals"]["plan_agreement"] < wrong.extra["signals"]["plan_agreement"]
    assert wrong.extra["signals"]["plan_agreement"] == wrong.plan_programs.agreement
    # (where a plan says "subtract", its program does: a majority against the code is not assured,
    # so the listed disagreements are not asserted here; test_presentation.py covers their words)
    assert not right.plan_programs.disagreements and "the code answers as the plans' programs on" in wrong.algorithmic.note


def test_the_solutions_written_from_the_plans_are_the_plans_programs(backend, small):
    # functional.solutions_from_plans: the greedy solution and one program a plan; the plans as
    # programs are then read back from the solutions' decoding. Without the code's own plan.
    on = small.with_overrides(functional={"solutions_from_plans": True, "n_solutions": 5, "fuzz_inputs": 0}, algorithmic={"candidate_plan": False})
    right = assess_function(backend, find_function(CORRECT, "add"), on, None)
    wrong = assess_function(backend, find_function(WRONG, "add"), on, None)
    for a in (right, wrong):
        assert len(a.solutions.solutions) == 5 and a.solutions.from_plans == len(a.plan_programs.solutions) == len(a.plans) == 4
        assert a.plan_programs.reused == 4  # no decoding of their own
        assert [s.text for s in a.solutions.solutions[1:]] == [s.text for s in a.plan_programs.solutions]
        assert a.candidate_plan is None and a.candidate_distance is None and a.extra["signals"]["candidate_distance"] is None
    # add(a, b) is easy: the plans' programs answer as a + b does, not as a - b does
    assert right.extra["signals"]["plan_agreement"] < wrong.extra["signals"]["plan_agreement"]
    assert right.extra["signals"]["functional_weighted"] < wrong.extra["signals"]["functional_weighted"]


def test_no_solutions_when_they_are_off(backend, small):
    a = assess_function(backend, find_function(WRONG, "add"), small.with_overrides(functional={"n_solutions": 0}, algorithmic={"plan_programs": 0}), None)
    assert a.plan_programs is None and a.extra["signals"]["plan_agreement"] is None
    assert a.solutions is None and a.functional.available
    assert a.extra["signals"]["agreement"] is None and a.extra["signals"]["functional_weighted"] is None


def test_assessment_has_every_axis_and_detail(correct_and_wrong):
    right, _ = correct_and_wrong
    assert right.lexical.available and right.lexical.raw >= 0
    assert right.algorithmic.available and 0.0 <= right.algorithmic.raw <= 1.0
    assert len(right.plans) == 4 and all(p.steps for p in right.plans)
    assert len(right.plan_similarity) == 6
    assert 1 <= len(right.tests) <= 6
    assert right.ensemble is None and "no calibration" in right.calibration_note
    assert right.sandbox
    assert right.lexical.seconds > 0 and right.algorithmic.seconds > 0 and right.functional.seconds > 0
    # one plan written as code by default, and its signal; the code's own plan is off by default
    assert len(right.plan_programs.solutions) == 1 and right.extra["signals"]["plan_agreement"] == right.plan_programs.agreement
    assert right.candidate_plan is None and right.extra["signals"]["candidate_distance"] is None


def test_same_seed_same_assessment(backend, small, correct_and_wrong):
    right, _ = correct_and_wrong
    again = assess_function(backend, find_function(CORRECT, "add"), small, None)
    assert again.lexical.raw == right.lexical.raw
    assert again.algorithmic.raw == right.algorithmic.raw
    assert again.functional.raw == right.functional.raw
    assert [p.text for p in again.plans] == [p.text for p in right.plans]
    assert [t.code for t in again.tests] == [t.code for t in right.tests]


def test_a_calibration_gives_percentiles_and_the_ensemble(backend, small, correct_and_wrong):
    right, wrong = correct_and_wrong
    rows = [{"lexical": r.lexical.raw, "algorithmic": r.algorithmic.raw, "functional": r.functional.raw} for r in (right, wrong)]
    cal = new_calibration(backend.info.name, "x", "two assessments", rows, {"lexical_signal": small.lexical.assess_signal})
    a = assess_function(backend, find_function(WRONG, "add"), small, cal)
    assert a.functional.percentile is not None and a.ensemble is not None
    assert a.weights_used == pytest.approx({"lexical": 0.2, "algorithmic": 0.4, "functional": 0.4})


class GarbledModel:
    """The real model for scoring, but plans and tests replaced by malformed output. This mocks only
    what the real model cannot be made to do on demand: answer with garbage."""

    def __init__(self, real):
        self._real = real
        self.info = real.info

    def score(self, *a, **k):
        return self._real.score(*a, **k)

    def generate(self, *a, **k):  # one prompt at a time: the likely fix's line (qualm.engine.fix)
        return self._real.generate(*a, **k)

    def count_tokens(self, text):
        return self._real.count_tokens(text)

    def generate_batch(self, jobs, on_progress=None, cancel=None):
        texts = ["" for _ in jobs[:-1]] + ["Sorry, I cannot write tests for this. {not: json]"]
        return [Trace(text=t, tokens=(), model="garbled", mode="sampled") for t in texts]


def test_malformed_model_output_makes_axes_unavailable_not_a_crash(backend, small):
    a = assess_function(GarbledModel(backend), find_function(CORRECT, "add"), small, None)
    assert a.lexical.available
    assert not a.algorithmic.available and a.algorithmic.raw is None and "unavailable" in a.algorithmic.note
    assert not a.functional.available and a.functional.raw is None and "unavailable" in a.functional.note
    rows = [{"lexical": 0.5, "algorithmic": 0.5, "functional": 0.5}]
    b = assess_function(GarbledModel(backend), find_function(CORRECT, "add"), small, new_calibration("m", "x", "d", rows, {"lexical_signal": small.lexical.assess_signal}))
    assert b.weights_used == {"lexical": 1.0}  # re-weighted over what is available


class RecordingModel:
    """The real model, recording which prompts each sampling batch carried (not a mock: every call
    goes to the real model)."""

    def __init__(self, real):
        self._real = real
        self.info = real.info
        self.batches: list[list[str]] = []

    def score(self, *a, **k):
        return self._real.score(*a, **k)

    def generate(self, *a, **k):  # one prompt at a time: the likely fix's line (qualm.engine.fix)
        return self._real.generate(*a, **k)

    def count_tokens(self, text):
        return self._real.count_tokens(text)

    def generate_batch(self, jobs, on_progress=None, cancel=None):
        self.batches.append([prompt.name for prompt, _ in jobs])
        return self._real.generate_batch(jobs, on_progress=on_progress, cancel=cancel)


def test_an_axis_with_weight_zero_is_not_computed(backend, small):
    # With the default model the algorithmic axis ranks at chance (README, Evaluation): a user who
    # sets its weight to 0 should not wait for its plans.
    model = RecordingModel(backend)
    fn = find_function(CORRECT, "add")
    a = assess_function(model, fn, small.with_overrides(ensemble={"weights": [0.2, 0.0, 0.4]}), None)
    # the test list, then the model's 3 solutions in a batch of their own (what shares a batch
    # changes a sampled answer: the tests stay those of an assessment without solutions)
    assert model.batches == [["test_generation"], ["code_generation"] * 3]
    assert a.algorithmic.raw is None and not a.algorithmic.available and a.algorithmic.note.startswith("off") and a.plans == []
    assert a.candidate_plan is None and a.candidate_distance is None
    assert a.functional.available and a.tests
    model.batches.clear()
    b = assess_function(model, fn, small.with_overrides(ensemble={"weights": [0.2, 0.4, 0.0]}), None)
    assert model.batches == [["plan_generation"] * 4]  # N plans (the code's own plan is off by default)
    assert b.functional.raw is None and b.functional.note.startswith("off") and b.tests == [] and b.tests_raw == ""
    assert b.algorithmic.available and len(b.plans) == 4 and b.candidate_plan is None
    model.batches.clear()
    c = assess_function(model, fn, small.with_overrides(ensemble={"weights": [0.2, 0.4, 0.0]}, algorithmic={"candidate_plan": True}), None)
    assert model.batches == [["plan_generation"] * 4 + ["candidate_plan"]]  # N plans, then the code's own
    assert c.candidate_plan is not None and c.candidate_distance is not None


def test_cli_assess_json(tmp_path):
    # the file imports a module of its own folder and a package installed only in the activated
    # virtual environment: its tests load both (README, "Assessing a function")
    (tmp_path / "helpers.py").write_text("TWO = 2\n")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    [site] = venv.glob("lib/python*/site-packages")
    (site / "projlib.py").write_text("ONE = 1\n")
    for folder in (tmp_path, *[p for p in tmp_path.rglob("*") if p.is_dir()]):
        folder.chmod(0o755)  # as root the tests run as nobody
    f = tmp_path / "m.py"
    f.write_text("import math\nfrom helpers import TWO\nimport projlib\n\n\n" + CORRECT)
    proc = subprocess.run(
        [sys.executable, "-m", "qualm", "assess", f"{f}::add", "--json", "--plans", "2", "--tests", "3"],
        capture_output=True, text=True, timeout=seconds(600), env={**os.environ, "VIRTUAL_ENV": str(venv)},
    )
    assert proc.returncode == 0, proc.stderr
    [a] = json.loads(proc.stdout)
    assert a["function"] == "add"
    assert set(a) >= {"lexical", "algorithmic", "functional", "ensemble", "plans", "tests", "calibration_note", "seconds"}
    assert a["problem"].startswith("import math\nfrom helpers import TWO\nimport projlib\n")
    assert a["tests"] and not any("failed to load" in t["message"] for t in a["tests"])
    assert a["functional"]["available"]
    assert f.read_text().endswith("return a + b\n")


def test_cancelling_stops_the_assessment(backend, small):
    from qualm.engine import AssessmentCancelled
    from qualm.model import CancelToken

    cancel = CancelToken()
    stages = []

    def progress(stage, message):
        stages.append(stage)
        if stage == "algorithmic":
            cancel.cancel()

    with pytest.raises(AssessmentCancelled):
        assess_function(backend, find_function(CORRECT, "add"), small, None, progress=progress, cancel=cancel)
    assert stages[0] == "lexical" and "functional" not in stages


def test_with_the_shipped_calibration_the_wrong_function_gets_the_lower_chance(backend, small):
    from qualm.engine import SampleCache, calibration_for

    cal = calibration_for(backend.info.identity, small.ensemble)
    assert cal is not None and cal.pass_model is not None, "the default model's calibration file ships a pass model"
    samples = SampleCache()
    right = assess_function(backend, find_function(CORRECT, "add"), small, cal, samples=samples)
    wrong = assess_function(backend, find_function(WRONG, "add"), small, cal, samples=samples)
    # The second function has the same problem: its 4 plans and the test list came from the first.
    assert right.extra["reused_samples"] == 0 and wrong.extra["reused_samples"] == 5
    # and so are the model's 3 solutions, with their runs of the same tests
    assert right.solutions.reused == 0 and wrong.solutions.reused == 3
    assert 0.0 <= wrong.chance_of_passing < right.chance_of_passing <= 1.0
    assert "logistic fit of pass/fail" in right.chance_note
    # the suite's smaller samples are not what the reference was made with, and the note says so
    assert "made with other settings: n_plans 3, now 4; plan_max_tokens 256, now 200; n_tests 10, now 6; n_solutions 6, now 3" in right.calibration_note


def test_the_docstring_example_runs_beside_the_model_tests(correct_and_wrong):
    # `>>> add(2, 3)` / `5` in the docstring: the author's example, run in the sandbox with the real
    # model's assessment; the right body passes it and the wrong one fails it
    right, wrong = correct_and_wrong
    assert [(o.example.call, o.example.expected, o.status) for o in right.examples.outcomes] == [("add(2, 3)", "5", "passed")]
    assert [o.status for o in wrong.examples.outcomes] == ["failed"]
    assert right.extra["signals"]["examples_failed"] == 0.0 and wrong.extra["signals"]["examples_failed"] == 1.0
    assert "fails the docstring's example" in wrong.functional.note and "passes the docstring's example" in right.functional.note


CALC = '''class Calc:
    """A calculator that remembers its last answer."""

    def __init__(self):
        self.last = 0

    def add(self, a: int, b: int) -> int:
        """Return the sum of a and b, and remember it as the last answer."""
        self.last = a + b
        return self.last
'''


def test_a_methods_self_tests_build_its_object_and_run_in_its_class(backend, small):
    # Before, a method's functional axis was unavailable ("a method needs its class").
    from qualm.engine import calibration_for

    cal = calibration_for(backend.info.identity, small.ensemble)
    samples = SampleCache()
    right = assess_function(backend, find_function(CALC, "Calc.add"), small, cal, samples=samples)
    wrong = assess_function(backend, find_function(CALC.replace("self.last = a + b", "self.last = a - b"), "Calc.add"), small, cal, samples=samples)
    assert right.functional.available and wrong.functional.available
    assert right.tests and all("Calc(" in t.code and ".add(" in t.code for t in right.tests)
    assert not any("NameError" in t.message for t in right.tests)  # the class and its __init__ were there
    assert wrong.functional.raw > right.functional.raw
    # the model's solutions are its versions of the method, run in the file's class
    assert right.solutions is not None and right.solutions.solutions
    assert right.extra["signals"]["functional_weighted"] < wrong.extra["signals"]["functional_weighted"]
    # the chance was fitted on module-level functions, and says so for a method
    assert right.chance_of_passing is not None and "fitted on functions, not methods" in right.chance_note
