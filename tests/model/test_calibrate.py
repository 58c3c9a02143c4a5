"""qualm calibrate with the real default model: one MBPP calibration-split problem, its row on disk,
a resumed run that does no model work, and the notes of unavailable axes."""

from __future__ import annotations

import json

import pytest

from qualm.fitting.calibrate import calibrate, describe, mbpp_problems
from qualm.trace import Trace

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def small(settings):
    # Fewer and shorter samples than the paper's keep the test fast; the pipeline is the same.
    return settings.with_overrides(generation={"max_tokens": 256}, algorithmic={"n_plans": 3, "max_tokens": 160}, functional={"n_tests": 4, "max_tokens": 320, "n_solutions": 2, "solution_max_tokens": 200})


@pytest.fixture(scope="module")
def first():
    problems = list(mbpp_problems())[:1]
    assert [p.task_id for p in problems] == ["MBPP/511"]  # the calibration split, never the test split
    return problems


class NoModel:
    """Stands in for the model where a test asserts that no model work happens."""

    def __init__(self, info):
        self.info = info

    def __getattr__(self, name):
        raise AssertionError(f"the resumed run called the model ({name})")


class GarbledSampling:
    """The real model for the greedy solution and scoring; plans and tests replaced by malformed
    output, which the real model cannot be made to write on demand."""

    def __init__(self, real):
        self._real = real
        self.info = real.info

    def generate(self, *a, **k):
        return self._real.generate(*a, **k)

    def score(self, *a, **k):
        return self._real.score(*a, **k)

    def generate_batch(self, jobs, on_progress=None, cancel=None):
        texts = ["" for _ in jobs[:-1]] + ["{not: json]"]
        return [Trace(text=t, tokens=(), model="garbled", mode="sampled") for t in texts]


def test_calibrate_writes_a_row_per_problem_and_resumes_without_the_model(backend, small, first, tmp_path):
    rows_path = tmp_path / "cal.rows.jsonl"
    label = describe(first, "MBPP")
    cal = calibrate(backend, first, small, label, rows_path)
    assert cal.model_sha256 == backend.info.identity.digest  # how the file is found again for this model
    rows = [json.loads(line) for line in rows_path.read_text().splitlines()]
    assert [r["task_id"] for r in rows] == ["MBPP/511"]
    row = rows[0]
    assert row["lexical"] is not None and row["lexical"] >= 0
    assert row["algorithmic"] is None or 0.0 <= row["algorithmic"] <= 1.0
    assert row["functional"] is None or 0.0 <= row["functional"] <= 1.0
    assert cal.dataset == "MBPP task_ids 511-511 (1 problem)" and cal.problems == 1
    # A second run reads the row back: no model call, no second line.
    again = calibrate(NoModel(backend.info), first, small, label, rows_path)
    assert again.scores == cal.scores
    assert len(rows_path.read_text().splitlines()) == 1


def test_unavailable_axes_are_named_in_the_row(backend, small, first, tmp_path):
    rows_path = tmp_path / "garbled.rows.jsonl"
    calibrate(GarbledSampling(backend), first, small, "garbled", rows_path)
    row = json.loads(rows_path.read_text())
    assert row["lexical"] is not None
    assert row["algorithmic"] is None and row["functional"] is None
    assert "algorithmic: unavailable" in row["note"] and "functional: unavailable" in row["note"]
