"""The evaluation pipeline's cache: a run interrupted part-way resumes at the step it was in, and a
second run recomputes nothing. The model is a scripted stand-in here (what is tested is the caching,
not the model; the real model runs in tests/model/test_eval_end_to_end.py); labels and self-tests
run in the real sandbox."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from timing import seconds

from qualm.evaluation.datasets import humaneval
from qualm.evaluation.methods import COMPUTED_ON, ProblemData, core_methods, symbolic_method
from qualm.evaluation.pipeline import STEPS, PipelineOptions, ProblemCache, problem_dir, settings_key
from qualm.evaluation.runner import CalibrationSplit, EvalPlan, collect
from qualm.evaluation.symbolic import SymbolicConfig
from qualm.model import CancelToken, ModelIdentity
from qualm.settings import Settings
from qualm.trace import TokenRecord, Trace

HE0 = humaneval()[0]  # has_close_elements
HE1 = humaneval()[1]
GOOD = (
    "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
    "    # compare every pair\n    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n"
    "            if abs(a - b) < threshold:\n                return True\n    return False\n"
)
PLAN = "1. Loop over every pair of numbers.\n2. Compare their distance with the threshold.\n3. Return the answer."
TESTS = '["assert has_close_elements([1.0, 2.0], 0.5) == False", "assert has_close_elements([1.0, 1.2], 0.5) == True"]'


def _trace(text: str) -> Trace:
    tokens, pos = [], 0
    for i, piece in enumerate(text.split(" ")):
        piece = piece if i == 0 else " " + piece
        tokens.append(TokenRecord(i, i, piece, pos, pos + len(piece), 0.1 * (i % 7), 0.9, ()))
        pos += len(piece)
    return Trace(text=text, tokens=tuple(tokens), model="scripted", mode="generate")


def model(hexdigit: str) -> ModelIdentity:
    """A model identity for the cache's folder; the model itself is the scripted stand-in below."""
    return ModelIdentity("gguf", hexdigit * 64, "scripted")


class ScriptedBackend:
    """Answers each prompt kind with fixed text and counts the calls."""

    def __init__(self, stop_after: int | None = None, cancel: CancelToken | None = None) -> None:
        self.calls: list[str] = []
        self.stop_after, self.cancel = stop_after, cancel

    def _answer(self, prompt) -> str:
        self.calls.append(prompt.name)
        if self.stop_after is not None and len(self.calls) >= self.stop_after and self.cancel is not None:
            self.cancel.cancel()  # the user pressed Ctrl-C during this step
        return {"plan_generation": PLAN, "test_generation": TESTS}.get(prompt.name, GOOD)

    def generate(self, prompt, options, on_token=None, cancel=None):
        return _trace(self._answer(prompt))

    def generate_batch(self, jobs, on_progress=None, cancel=None):
        return [_trace(self._answer(p)) for p, _ in jobs]


def test_an_interrupted_run_resumes_at_the_step_it_was_in_and_a_finished_one_recomputes_nothing(tmp_path: Path):
    settings = Settings.from_mapping({"algorithmic": {"n_plans": 2}, "functional": {"n_tests": 2}})
    plan = EvalPlan(options=PipelineOptions(n_samples=2))
    cancel = CancelToken()
    first = ScriptedBackend(stop_after=2, cancel=cancel)  # greedy, then the samples batch is interrupted
    with pytest.raises(InterruptedError):
        collect(first, [HE0], settings, plan, tmp_path, model("f"), cancel=cancel)
    key = settings_key(settings, PipelineOptions(**{**plan.options.__dict__, "steps": plan.steps()}))
    cache = ProblemCache(problem_dir(tmp_path, model("f").key, key, HE0))
    done = {s for s in STEPS if cache.get(s) is not None}
    assert {"greedy", "label", "samples"} <= done and "plans" not in done  # what finished was kept

    second = ScriptedBackend()
    data = collect(second, [HE0], settings, plan, tmp_path, model("f"))
    # only the steps that had not finished ran again: plans (2 in one batch) and tests (1)
    assert second.calls == ["plan_generation"] * 2 + ["test_generation"]
    assert {s for s in STEPS if cache.get(s) is not None} == set(STEPS)
    assert data[0].label is True  # the official HumanEval tests pass the scripted solution
    assert data[0].steps["selftests"]["greedy"]["uncertainty"] == 0.0

    third = ScriptedBackend()
    again = collect(third, [HE0], settings, plan, tmp_path, model("f"))
    assert third.calls == [] and again[0].steps == data[0].steps


def test_other_settings_never_reuse_a_cache(tmp_path: Path):
    a = settings_key(Settings(), PipelineOptions())
    assert a == settings_key(Settings(), PipelineOptions())
    assert a != settings_key(Settings.from_mapping({"generation": {"seed": 7}}), PipelineOptions())
    assert a != settings_key(Settings(), PipelineOptions(n_samples=5))


def test_a_torn_cache_file_is_recomputed(tmp_path: Path):
    cache = ProblemCache(tmp_path)
    cache.path("greedy").parent.mkdir(parents=True, exist_ok=True)
    cache.path("greedy").write_text('{"code": "trunc')  # a crash in the middle of an older write
    data = cache.step("greedy", lambda: {"code": "x"})
    assert data["code"] == "x" and "seconds" in data


def test_core_methods_from_the_cache(tmp_path: Path):
    settings = Settings.from_mapping({"algorithmic": {"n_plans": 2}, "functional": {"n_tests": 2}})
    data = collect(ScriptedBackend(), [HE0], settings, EvalPlan(options=PipelineOptions(n_samples=2)), tmp_path, model("e"))
    by_name = {m.name: m for m in core_methods(data, settings)}
    assert by_name["Top-5 Entropy"].uncertainty[0] == pytest.approx(sum(sorted([0.1 * (i % 7) for i in range(len(GOOD.split(" ")))])[-5:]) / 5)
    assert by_name["Pseudo Consistency (ALGO)"].uncertainty[0] == pytest.approx(0.0)  # two identical plans
    assert by_name["Generated Tests (FUNC)"].uncertainty[0] == 0.0
    assert by_name["Ensemble (LEX+ALGO+FUNC)"].uncertainty[0] == pytest.approx(0.5)  # one problem: every rank is 0.5
    assert all(m.seconds >= 0 for m in by_name.values())
    # the same three axes are what P(pass) is fitted on when this split is the calibration split
    split = CalibrationSplit.from_problems("he", data, settings)
    assert split.task_ids == ["HumanEval/0"] and split.labels == [data[0].label]
    assert split.axes == tuple(by_name[a].uncertainty for a in ("Top-5 Entropy", "Pseudo Consistency (ALGO)", "Generated Tests (FUNC)"))


def test_steps_computed_on_another_machine_count_for_values_but_not_for_cost(tmp_path: Path):
    # Two problems; the second one's plans were merged in from another machine (say a GPU): its
    # algorithmic uncertainty is used, its wall time is left out of the cost per problem.
    settings = Settings.from_mapping({"algorithmic": {"n_plans": 2}, "functional": {"n_tests": 2}})
    data = collect(ScriptedBackend(), [HE0, HE1], settings, EvalPlan(options=PipelineOptions(n_samples=2)), tmp_path, model("d"))
    data[0].steps["plans"]["seconds"] = 100.0
    data[1].steps["plans"]["seconds"] = 1.0
    data[1].steps["plans"][COMPUTED_ON] = "NVIDIA H100 (CUDA)"
    algo = {m.name: m for m in core_methods(data, settings)}["Pseudo Consistency (ALGO)"]
    assert all(v is not None for v in algo.uncertainty)
    assert 100.0 <= algo.seconds < 101.0  # the local problem alone (plus its ROUGE time)
    # every problem's plans from elsewhere: no cost at all (None, not 0), and none for an
    # ensemble that needs the axis, while one without it keeps its cost
    data[0].steps["plans"][COMPUTED_ON] = "NVIDIA H100 (CUDA)"
    methods = {m.name: m for m in core_methods(data, settings)}
    assert methods["Pseudo Consistency (ALGO)"].seconds is None
    assert methods["Ensemble (LEX+ALGO+FUNC)"].seconds is None and methods["Ensemble − LEX"].seconds is None
    assert methods["Ensemble − ALGO"].seconds == pytest.approx(methods["Top-5 Entropy"].seconds + methods["Generated Tests (FUNC)"].seconds)


@pytest.mark.parametrize("jobs", [1, 2])
def test_symbolic_clustering_reports_every_problem_and_reads_back_cached_clusterings(tmp_path: Path, jobs: int):
    # Hours of CrossHair on a full data set: each finished problem is reported (the CLI's log line),
    # and a clustering already in the problem's cache is read back, not recomputed (this one could
    # not be: CrossHair would cluster two identical samples into one cluster, not two). With two
    # problems at once the values still come back in the problems' order and the count still rises.
    cached = ProblemCache(tmp_path / "B")
    cached.put("symbolic-2", {"uncertainty": 0.693, "clusters": [[0], [1]], "calls": 1, "note": "", "seconds": 7.0})
    samples = {"codes": ["def f(x):\n    return x\n"] * 2, "seconds": 3.0}
    problems = [
        ProblemData("A", True, {}, "", None),  # a stdin program: nothing to compare
        ProblemData("B", False, {"samples": samples}, "f", cached),
    ]
    seen: list[tuple[int, int, str, str]] = []
    result = symbolic_method(problems, SymbolicConfig(per_condition_timeout=2.0), on_progress=lambda *a: seen.append(a), jobs=jobs)
    if jobs == 1:
        assert seen == [(1, 2, "A", "done"), (2, 2, "B", "done")]
    else:
        assert [s[:2] for s in seen] == [(1, 2), (2, 2)] and {s[2] for s in seen} == {"A", "B"}
    assert result.uncertainty == [None, 0.693]
    assert result.seconds == pytest.approx((0.0 + 3.0 + 7.0) / 2)  # per problem: B's samples + its clustering


def test_tests_parsed_by_an_older_parser_are_read_again_and_their_runs_redone(tmp_path: Path):
    # A cache written before parse_tests read objects ({"assert statement": ...}): the list is read
    # again from the raw answer, the sandbox runs against the old (empty) list are dropped and redone,
    # and the model is not asked again.
    settings = Settings.from_mapping({"algorithmic": {"n_plans": 2}, "functional": {"n_tests": 2}})
    plan = EvalPlan(options=PipelineOptions(n_samples=2))
    data = collect(ScriptedBackend(), [HE0], settings, plan, tmp_path, model("c"))
    cache = data[0].cache
    objects = '[{"assert statement": "assert has_close_elements([1.0, 2.0], 0.5) == False", "expected result": false}]'
    cache.put("tests", {"raw": objects, "tests": [], "dropped": [["{...}", "not a string"]], "seconds": 5.0})  # no "parser": old
    cache.put("selftests", {"greedy": {"uncertainty": None, "note": "no valid test"}, "matrix": [None], "seconds": 0.1})
    backend = ScriptedBackend()
    again = collect(backend, [HE0], settings, plan, tmp_path, model("c"))
    assert backend.calls == []
    assert again[0].steps["tests"]["tests"] == ["assert has_close_elements([1.0, 2.0], 0.5) == False"]
    assert again[0].steps["tests"]["seconds"] == 5.0  # the model's time, kept
    assert again[0].steps["selftests"]["greedy"]["uncertainty"] == 0.0  # run again against the new list
    assert again[0].steps["sampletests"]["matrix"] == [[True], [True]]  # each sample against the one new test
    # read again once: a third run changes nothing
    assert collect(ScriptedBackend(), [HE0], settings, plan, tmp_path, model("c"))[0].steps == again[0].steps


def test_the_rows_named_top_5_use_k_5_whatever_lexical_top_k_says():
    from qualm.evaluation.methods import lexical_methods
    from qualm.signals.lexical import top_k_mean

    entropies = [0.1, 2.0, 0.3, 1.5, 0.2, 0.9, 3.0]
    tokens = tuple(TokenRecord(i, i, "x", i, i + 1, h, 0.5, (), "code") for i, h in enumerate(entropies))
    trace = Trace(text="x" * len(tokens), tokens=tokens, model="m", mode="greedy")
    problems = [ProblemData("T/0", True, {"greedy": {"trace": trace.to_dict(), "seconds": 1.0}})]
    for k in (3, 12):
        rows = {m.name: m.uncertainty[0] for m in lexical_methods(problems, k)}
        assert rows["Top-5 Entropy"] == rows["Top-5 Entropy (code only)"] == top_k_mean(np.array(entropies), 5)
        assert rows[f"Top-K Entropy (K={k})"] == top_k_mean(np.array(entropies), k)  # the configured K has its own row


class BarrierBackend(ScriptedBackend):
    """The greedy solutions return only when three problems wait for one at once: a run that does
    not have three problems in flight breaks the barrier and fails."""

    def __init__(self, parties: int, fail: bool = False) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=seconds(20))
        self.fail = fail

    def generate(self, prompt, options, on_token=None, cancel=None):
        if self.fail:
            raise RuntimeError("the server went away")
        self.barrier.wait()
        return super().generate(prompt, options, on_token, cancel)


def test_problems_run_in_flight_together_and_each_keeps_its_own_cache(tmp_path: Path):
    settings = Settings.from_mapping({"algorithmic": {"n_plans": 2}, "functional": {"n_tests": 2}})
    problems = humaneval()[:3]
    plan = EvalPlan(groups=("lexical",), in_flight=3)
    seen: list[tuple[int, str, str]] = []
    data = collect(BarrierBackend(3), problems, settings, plan, tmp_path, model("c"), on_progress=lambda d, t, tid, step: seen.append((d, tid, step)))
    assert [d.task_id for d in data] == [p.task_id for p in problems]  # in the problems' order
    assert sorted(d for d, _, step in seen if step == "done") == [1, 2, 3]
    # the same run with one problem at a time reads every answer back from the cache
    again = ScriptedBackend()
    reread = collect(again, problems, settings, EvalPlan(groups=("lexical",)), tmp_path, model("c"))
    assert again.calls == []
    assert [(d.label, d.steps["greedy"]["code"]) for d in reread] == [(d.label, d.steps["greedy"]["code"]) for d in data]


def test_an_error_in_one_problem_in_flight_is_raised(tmp_path: Path):
    settings = Settings()
    with pytest.raises(RuntimeError, match="went away"):
        collect(BarrierBackend(2, fail=True), humaneval()[:4], settings, EvalPlan(groups=("lexical",), in_flight=2), tmp_path, model("b"))
