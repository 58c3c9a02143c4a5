"""`qualm eval` end to end with the real default model on three HumanEval problems: every method
group, the cache, the report files, labels from the official tests. Budgets are small (3 samples,
3 plans, 3 tests, short outputs, 1 s CrossHair comparisons) so it stays in minutes on two cores."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from timing import seconds

from qualm.evaluation.datasets import humaneval
from qualm.evaluation.labels import official_label

pytestmark = pytest.mark.model

SMALL = {"generation": {"max_tokens": 256}, "algorithmic": {"n_plans": 3, "max_tokens": 160}, "functional": {"n_tests": 3, "max_tokens": 300}}


def _eval(tmp_path: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    config = tmp_path / "settings.json"
    config.write_text(json.dumps(SMALL))
    env = {**os.environ, "QUALM_CONFIG": str(config)}
    cmd = [sys.executable, "-m", "qualm", "eval", "--dataset", "humaneval", "--limit", "3", "--n-samples", "3", "--symbolic-timeout", "1", "--out", str(out), "--cache", str(tmp_path / "cache"), *extra]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds(1500))


def test_eval_three_humaneval_problems_with_every_method(tmp_path: Path):
    out = tmp_path / "out"
    run = _eval(tmp_path, out)
    assert run.returncode == 0, run.stderr[-3000:]
    # stderr is a pipe, not a terminal: a line per finished problem instead of a live bar
    assert "[1/3] HumanEval/0: " in run.stderr and " left" in run.stderr, run.stderr[-3000:]
    # so do Symbolic Clustering's CrossHair runs, the slowest part of a full evaluation; problems
    # run one per core, so they may finish in any order, but the count rises and each is named
    after = run.stderr.split("symbolic clustering (CrossHair)\n", 1)
    assert len(after) == 2, run.stderr[-3000:]
    done = re.findall(r"^\[(\d)/3\] (HumanEval/\d): ", after[1], re.MULTILINE)
    assert [n for n, _ in done] == ["1", "2", "3"], run.stderr[-3000:]
    assert sorted(t for _, t in done) == ["HumanEval/0", "HumanEval/1", "HumanEval/2"], run.stderr[-3000:]
    for name in ("results.json", "table.md", "claims.md", "roc_HumanEval.png", "auroc_vs_k_HumanEval.png", "auroc_vs_cost_HumanEval.png"):
        assert (out / name).exists(), f"{name} missing; wrote {sorted(p.name for p in out.iterdir())}"
    results = json.loads((out / "results.json").read_text())
    run0 = results["runs"][0]
    assert [s["task_id"] for s in run0["samples"]] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    text = json.dumps(run0["samples"])
    for method in ("Top-5 Entropy", "Mean Entropy", "Pseudo Consistency (ALGO)", "Generated Tests (FUNC)", "Consistency (VR)", "Consistency (BLEU)", "Symbolic Clustering", "Ensemble (LEX+ALGO+FUNC)", "Multi-candidate Tests"):
        assert method in text, method
    table = (out / "table.md").read_text()
    assert "HumanEval" in table and "Top-5 Entropy" in table and "pass@1" in table.lower()
    # labels come from the official tests: recompute one from the cached greedy solution
    greedy = next((tmp_path / "cache").rglob("HumanEval_0/greedy.json"))
    label = json.loads(greedy.with_name("label.json").read_text())
    assert official_label(humaneval()[0], json.loads(greedy.read_text())["code"]).passed == label["passed"]
    # a second run reads every model output from the cache: the same labels and uncertainties
    again = _eval(tmp_path, tmp_path / "again")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "[3/3] HumanEval/2: cached" in again.stderr, again.stderr[-3000:]
    second = json.loads((tmp_path / "again" / "results.json").read_text())["runs"][0]
    assert second["samples"] == run0["samples"]
