"""``qualm calibrate --pairs``: right/wrong pairs assessed, the chance of passing fitted on the tune
side and measured on the holdout side, the calibration file written; the guard against the test
split. The scripted backend stands in for the model (its plans and tests are fixed text, so the
run takes seconds); the self-tests run in the real sandbox and the fit is scikit-learn's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from timing import seconds

from qualm.calibration_file import Calibration
from qualm.settings import Settings

ORIGINAL = 'def add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n'
MUTANTS = ["a - b", "a * b", "a + b + 1", "b - a", "a + a", "a", "b + 1", "a * 2 + b"]
SCRIPT = {
    "name": "scripted pairs model",
    "completions": ["    return a + b\n"],
    "plans": ["1. Take a and b.\n2. Add them.\n3. Return the sum.", "1. Read both numbers.\n2. Return a plus b."],
    "tests": json.dumps(["assert add(1, 2) == 3", "assert add(2, 2) == 4", "assert add(0, 0) == 0", "assert add(-1, 1) == 0"]),
    "entropy": {"default": 0.1, "tokens": {"-": 2.5, "*": 2.5, "1": 1.5}},
}


def pairs_file(tmp_path: Path, first_task: str = "HumanEval/1") -> Path:
    rows = []
    for i, body in enumerate(MUTANTS):
        task = first_task if i == 0 else f"HumanEval/{i + 1}"
        rows.append({
            "pair_id": f"{task}#operator", "dataset": "humaneval", "task_id": task, "split": "tune" if i < 5 else "holdout",
            "kind": "operator", "entry_point": "add", "task": "Return the sum of a and b.",
            "original": ORIGINAL, "mutant": ORIGINAL.replace("a + b\n", body + "\n"),
        })
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run(tmp_path: Path, pairs: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    cmd = [sys.executable, "-m", "qualm", "calibrate", "--pairs", str(pairs), "--out", str(tmp_path / "cal.json"), "--backend", "scripted", "--model", str(script)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=seconds(300), env={**os.environ, "QUALM_CONFIG": str(tmp_path / "none.json")})


@pytest.mark.needs_sandbox  # skips where no sandbox runs, fails so under CI (tests/sandbox_state.py)
def test_calibrate_from_pairs_writes_the_reference_and_a_pass_model(tmp_path):
    proc = run(tmp_path, pairs_file(tmp_path))
    assert proc.returncode == 0, proc.stderr
    cal = Calibration.load(tmp_path / "cal.json")
    assert cal.problems == 10 and "5 right/wrong pairs of the tune split" in cal.dataset
    assert len(cal.scores["functional"]) == 10 and cal.lexical_signal == Settings().lexical.assess_signal
    pm = cal.pass_model
    # the signals of the functional axis tell these pairs apart (which of them the rule keeps
    # depends on the candidate sets; each is 0 for the right function here and high for a wrong one)
    behavioural = {"functional", "functional_weighted", "agreement", "differential"}
    assert pm is not None and set(pm.features) <= behavioural and pm.n_fitted == 10
    assert "3 right/wrong pairs of the holdout split" in pm.evaluated_on and set(pm.quality) == {"brier", "ece", "auroc"}
    # every test passes the right function and most fail a wrong one: the chance says so
    assert pm.probability(dict.fromkeys(pm.features, 0.0)) > 0.5 > pm.probability(dict.fromkeys(pm.features, 1.0))
    assert "chance of passing on 3 right/wrong pairs of the holdout split (6 functions; 3 HumanEval and 0 MBPP 511-974 problems): AUROC" in proc.stderr
    # the measurements were kept, one line a function: a second run measures nothing again
    kept = {split: (tmp_path / f"cal.pairs-{split}.jsonl").read_text() for split in ("tune", "holdout")}
    assert [len(v.splitlines()) for v in kept.values()] == [10, 6]
    first = (tmp_path / "cal.json").read_text()
    again = run(tmp_path, pairs_file(tmp_path))
    assert again.returncode == 0
    assert {split: (tmp_path / f"cal.pairs-{split}.jsonl").read_text() for split in ("tune", "holdout")} == kept
    assert json.loads((tmp_path / "cal.json").read_text())["pass_model"] == json.loads(first)["pass_model"]


def test_pairs_from_the_test_split_are_refused(tmp_path):
    proc = run(tmp_path, pairs_file(tmp_path, first_task="MBPP/12"))
    assert proc.returncode == 2
    assert "MBPP/12" in proc.stderr and "test split" in proc.stderr
