"""P(pass), calibrated: fitted on a calibration split's three axes, read either from the pipeline or
from that split's results.json (so a later run needs neither the model nor the cache for it)."""

from __future__ import annotations

import pytest
from timing import seconds

from qualm.evaluation.methods import calibrated_probability
from qualm.evaluation.report import load_runs, write_report
from qualm.evaluation.results import ALGO, FUNC, LEX, EvalRun, MethodResult
from qualm.evaluation.runner import CalibrationSplit, calibrated_method

# a calibration split where every axis is higher on the failing problems
CAL_IDS = [f"MBPP/{i}" for i in range(511, 519)]
CAL_LABELS = [True, True, True, True, False, False, False, False]
CAL_AXES = ([0.1, 0.2, 0.15, 0.3, 0.6, 0.7, 0.5, 0.9],
            [0.2, 0.1, 0.3, 0.2, 0.5, None, 0.6, 0.7],
            [0.0, 0.1, 0.0, 0.2, 0.8, 0.9, 1.0, 0.6])


def calibration_run(with_func: bool = True) -> EvalRun:
    names = (LEX, ALGO, FUNC) if with_func else (LEX, ALGO)
    methods = [MethodResult(n, "ours", list(v), 1.0) for n, v in zip(names, CAL_AXES)]
    return EvalRun("MBPP (calibration)", "m", CAL_IDS, CAL_LABELS, methods, "qualm eval -d mbpp --split calibration")


def test_p_pass_falls_as_the_axes_rise():
    low, high = [[0.1], [0.1], [0.0]], [[0.8], [0.7], [0.9]]
    (u_low,), (u_high,) = (calibrated_probability(list(CAL_AXES), CAL_LABELS, t) for t in (low, high))
    assert 0.0 <= u_low < 0.5 < u_high <= 1.0  # uncertainty = 1 − P(pass)
    # a missing axis value is imputed with the training mean: still a probability
    assert calibrated_probability(list(CAL_AXES), CAL_LABELS, [[0.1], [None], [0.0]])[0] is not None
    # one class only: nothing to fit
    assert calibrated_probability(list(CAL_AXES), [True] * 8, low) == [None]


def test_a_calibration_split_read_from_results_json_fits_the_same_p_pass(tmp_path):
    write_report([calibration_run()], tmp_path)
    from_file = CalibrationSplit.from_run("cal", load_runs(tmp_path / "results.json")[0])
    in_memory = CalibrationSplit("cal", CAL_IDS, CAL_LABELS, CAL_AXES)
    assert from_file.task_ids == CAL_IDS and from_file.labels == CAL_LABELS
    test = {n: MethodResult(n, "ours", [0.1, 0.9, None], 2.0) for n in (LEX, ALGO, FUNC)}
    a, b = calibrated_method(from_file, test), calibrated_method(in_memory, test)
    assert a.uncertainty == b.uncertainty and a.uncertainty[0] < a.uncertainty[1]
    assert a.name == "P(pass), calibrated" and a.seconds == 6.0  # the three axes' cost


def test_a_calibration_run_without_the_three_axes_is_refused():
    with pytest.raises(ValueError, match="Generated Tests"):
        CalibrationSplit.from_run("cal", calibration_run(with_func=False))


def _qualm_eval(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "qualm", "eval", *args], capture_output=True, text=True, timeout=seconds(300))


def test_qualm_eval_refuses_a_calibration_report_that_is_missing_or_overlaps_the_evaluated_problems(tmp_path):
    # both are refused before the model is loaded: a wrong fit is worse than none
    done = _qualm_eval("-d", "humaneval", "--limit", "1", "--calibration", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "no such file" in done.stderr
    run = EvalRun("HumanEval", "m", ["HumanEval/0", "HumanEval/1"], [True, False],
                  [MethodResult(n, "ours", [0.1, 0.9], 1.0) for n in (LEX, ALGO, FUNC)], "qualm eval")
    write_report([run], tmp_path / "cal")
    done = _qualm_eval("-d", "humaneval", "--limit", "1", "--calibration", str(tmp_path / "cal" / "results.json"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "overlap" in done.stderr
    assert not (tmp_path / "o").exists()
