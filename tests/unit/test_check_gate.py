"""`qualm check`'s gate: which way each metric fails, a missing value never passing, the settings and
their bounds, the scores it reads, and the report's exit code."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from qualm.check import CHANCE, CheckReport, FileCheck, FunctionCheck, Gate, gate_for, lexical_scores
from qualm.settings import CheckSettings, Settings, SettingsError
from qualm.signals.lexical import LexicalScores


def test_the_chance_fails_below_its_threshold_and_a_score_above_it():
    chance = Gate(CHANCE, 0.3)
    assert chance.judge(0.29, "")[0] == "fail"
    assert chance.judge(0.3, "")[0] == "pass"  # at the threshold: not below it
    assert chance.judge(0.9, "")[0] == "pass"
    lexical = Gate("max_surprisal", 11.0)
    assert lexical.judge(11.5, "")[0] == "fail"
    assert lexical.judge(11.0, "")[0] == "pass"
    assert lexical.judge(2.0, "")[0] == "pass"


def test_the_reasons_carry_the_numbers_and_a_missing_value_is_unknown_with_its_why():
    assert Gate(CHANCE, 0.3).judge(0.18, "")[1] == "chance of passing 18 % is below the gate's 30 %"
    assert Gate("top_k_surprisal", 4.0, top_k=3).judge(5.25, "")[1] == "Top-3 surprisal 5.25 nats is above the gate's 4.00 nats"
    verdict, reason = Gate(CHANCE, 0.3).judge(None, "no calibration file for served: no chance of passing")
    assert verdict == "unknown" and reason == "no chance of passing: no calibration file for served: no chance of passing"
    assert Gate(CHANCE, 0.5).describe() == "chance of passing below 50 %"


def test_the_gate_comes_from_the_settings_and_flags_override_them_within_bounds():
    settings = Settings.from_mapping({"check": {"min_chance": 0.5, "score": "top_k_entropy", "max_score": 2.5}})
    assert gate_for(settings.check, assess=True) == Gate(CHANCE, 0.5)
    assert gate_for(settings.check, assess=False, top_k=5) == Gate("top_k_entropy", 2.5, 5)
    assert gate_for(CheckSettings(), assess=False) == Gate("max_surprisal", 11.0)
    with pytest.raises(SettingsError, match=r"qualm.check.min_chance must be between 0 and 1, got 1.5"):
        settings.with_overrides(check={"min_chance": 1.5})
    with pytest.raises(SettingsError, match="qualm.check.score must be one of"):
        settings.with_overrides(check={"score": "max_probability"})  # not in nats
    with pytest.raises(SettingsError, match="qualm.check.max_score must be at least 0"):
        settings.with_overrides(check={"max_score": -1})


def test_the_largest_surprisal_is_minus_log_of_the_least_likely_tokens_probability():
    s = LexicalScores("all", 4, 5, 1.2, 2.0, 0.5, 0.3, 1 - 0.002, 4.1, 1.0, 2, 3.0)
    scores = lexical_scores(s)
    assert scores["max_surprisal"] == pytest.approx(-math.log(0.002))
    assert scores["top_k_surprisal"] == 4.1 and scores["improbable_tokens"] == 2.0
    empty = lexical_scores(LexicalScores("all", 0, 5, None, None, None, None, None))
    assert empty["max_surprisal"] is None and empty["top_k_entropy"] is None


def fn(verdict: str, name: str = "f") -> FunctionCheck:
    return FunctionCheck("a.py", name, 1, 3, 5, {}, None, verdict, "")  # type: ignore[arg-type]


def report(*verdicts: str, problem: str = "") -> CheckReport:
    files = (FileCheck("a.py", len(verdicts)),) + ((FileCheck("b.py", 0, problem),) if problem else ())
    return CheckReport(Path("/r"), "m", Gate(CHANCE, 0.3), files, tuple(fn(v, f"f{i}") for i, v in enumerate(verdicts)))


def test_the_exit_code_is_1_on_a_failure_2_when_something_could_not_be_checked_else_0():
    assert report("pass", "skipped").exit_code == 0
    assert report().exit_code == 0
    assert report("pass", "fail").exit_code == 1
    assert report("pass", "unknown").exit_code == 2
    assert report("pass", problem="b.py:1: the file does not parse: invalid syntax").exit_code == 2
    assert report("fail", "unknown", problem="b.py: not UTF-8 text").exit_code == 1  # a failure is the finding
    assert report("pass", "fail", "unknown", "skipped").summary() == {"files": 1, "files_not_checked": 0, "functions": 4, "pass": 1, "fail": 1, "unknown": 1, "skipped": 1}
