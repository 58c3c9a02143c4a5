"""The line-per-problem progress of a background `qualm eval`: durations and the time left."""

from __future__ import annotations

from qualm.cli.terminal import ProblemLog


def _log(times: list[float]):
    lines: list[str] = []
    clock = iter(times)
    return ProblemLog(lines.append, lambda: next(clock)), lines


def test_time_left_is_the_median_computed_duration_times_the_problems_left():
    log, lines = _log([0.0, 40.0, 100.0, 1000.0])
    log.finished(1, 5, "HumanEval/0")
    log.finished(2, 5, "HumanEval/1")
    # 40 s then 60 s: median 50 s, three problems left
    assert lines == ["[1/5] HumanEval/0: 40 s · about 2 min 40 s left", "[2/5] HumanEval/1: 1 min 00 s · about 2 min 30 s left"]
    # one problem held up for 15 min (a suspended run) moves the median to 60 s, not the mean to 6 min
    log.finished(3, 5, "HumanEval/2")
    assert lines[-1] == "[3/5] HumanEval/2: 15 min 00 s · about 2 min 00 s left"


def test_cached_problems_do_not_make_the_estimate_hopeful():
    log, lines = _log([0.0, 0.01, 0.02, 3600.02, 7200.02])
    log.finished(1, 10, "MBPP/11")
    log.finished(2, 10, "MBPP/12")
    assert lines == ["[1/10] MBPP/11: cached", "[2/10] MBPP/12: cached"]
    log.finished(3, 10, "MBPP/13")
    assert lines[-1] == "[3/10] MBPP/13: 1 h 00 min · about 7 h 00 min left"
    log.finished(10, 10, "MBPP/20")
    assert lines[-1] == "[10/10] MBPP/20: 1 h 00 min"
