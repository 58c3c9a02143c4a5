"""Each model's fit manifest (``qualm.fitting.fit_inputs``) names the rows its shipped chance of
passing was fitted on (the tune pairs, the model's greedy code and the pairs no docstring example
decides): refitting the shipped chain on them gives the shipped numbers, the tune split holds no
MBPP 11-510 problem and no holdout problem, and a bad manifest stops with a clear message.

Real rows and real fits (scikit-learn), no model: about a second per model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.fitting.chain import fit_chain
from qualm.fitting.chance_fit import check_fit_split
from qualm.fitting.fit_inputs import FitInputs
from qualm.fitting.pairs import PAIRS_FILE

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = [ROOT / "results" / "chance-of-passing" / "fit-inputs.json", ROOT / "results" / "qwen2.5-coder-1.5b" / "calibration" / "fit-inputs.json"]


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.parent.name)
def test_refitting_the_manifest_gives_the_shipped_chance(manifest):
    inputs = FitInputs.read(manifest)
    shipped = Calibration.load(SHIPPED_DIR / f"{inputs.model_key}.json").pass_model
    assert shipped is not None
    tune = inputs.tune_pairs(ROOT / PAIRS_FILE)
    generated = inputs.generated()
    assert len(tune) >= 100 and generated
    refit = fit_chain([*tune, *generated, *inputs.undecided()], [link.features for link in shipped.chain()])
    assert [link.features for link in refit.chain()] == [link.features for link in shipped.chain()]
    for mine, theirs in zip(refit.chain(), shipped.chain()):
        assert mine.n_fitted == theirs.n_fitted, mine.features
        for a, b in zip([*mine.coef, mine.intercept, *mine.mean, *mine.scale], [*theirs.coef, theirs.intercept, *theirs.mean, *theirs.scale]):
            # The shipped numbers are L-BFGS-B's stop, at most 1.1e-8 from the optimum that the
            # fit (qualm.fitting.doubt_logistic) now reaches to about 1e-14 on every OpenBLAS kernel
            # (measured 2026-11-29): this tolerance holds on any BLAS; test_fit_kernels runs it on several.
            assert a == pytest.approx(b, rel=1e-5, abs=1e-7), mine.features


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.parent.name)
def test_the_tune_split_is_apart_from_the_test_split_and_the_holdout(manifest):
    inputs = FitInputs.read(manifest)
    tune = {e.task_id for e in [*inputs.tune_pairs(ROOT / PAIRS_FILE), *inputs.generated(), *inputs.undecided()]}
    holdout = {e.task_id for e in inputs.holdout_pairs(ROOT / PAIRS_FILE)}
    check_fit_split(sorted(tune))  # raises on MBPP 11-510
    assert holdout and not tune & holdout


def test_a_missing_file_or_an_unknown_key_is_named(tmp_path):
    (tmp_path / "a.jsonl").write_text("")
    path = tmp_path / "fit-inputs.json"
    path.write_text(json.dumps({"tune": ["a.jsonl", "gone.jsonl"]}))
    with pytest.raises(FileNotFoundError, match="gone.jsonl"):
        FitInputs.read(path)
    path.write_text(json.dumps({"tune": ["a.jsonl"], "holdouts": ["a.jsonl"]}))
    with pytest.raises(ValueError, match="holdouts"):
        FitInputs.read(path)
    path.write_text(json.dumps({"holdout": ["a.jsonl"]}))
    with pytest.raises(ValueError, match="no tune file"):
        FitInputs.read(path)


def test_the_greedy_code_may_come_in_one_file_or_several(tmp_path):
    def row(task_id: str, passed: bool) -> str:
        return json.dumps({"task_id": task_id, "passed": passed, "values": {"functional": 0.0 if passed else 1.0}}) + "\n"

    (tmp_path / "a.jsonl").write_text("")
    (tmp_path / "g1.jsonl").write_text(row("MBPP/512", True))
    (tmp_path / "g2.jsonl").write_text(row("MBPP/514", False) + row("HumanEval/3", True))
    (tmp_path / "ex.jsonl").write_text(json.dumps({"task_id": "MBPP/514", "values": {"examples_failed": 1.0}}) + "\n")
    path = tmp_path / "fit-inputs.json"
    path.write_text(json.dumps({"tune": ["a.jsonl"], "tune_generated": "g1.jsonl"}))
    assert [e.task_id for e in FitInputs.read(path).generated()] == ["MBPP/512"]
    path.write_text(json.dumps({"tune": ["a.jsonl"], "tune_generated": ["g1.jsonl", "g2.jsonl"], "tune_generated_extra": ["ex.jsonl"]}))
    got = FitInputs.read(path).generated()
    assert [(e.task_id, e.passed, e.signals.get("examples_failed")) for e in got] == [("MBPP/512", True, None), ("MBPP/514", False, 1.0), ("HumanEval/3", True, None)]
    path.write_text(json.dumps({"tune": ["a.jsonl"], "tune_generated": ["g1.jsonl", "gone.jsonl"]}))
    with pytest.raises(FileNotFoundError, match="gone.jsonl"):
        FitInputs.read(path)


def test_undecided_pairs_come_with_their_pairs_file(tmp_path):
    def pair(pair_id: str, task_id: str) -> str:
        return json.dumps({"pair_id": pair_id, "task_id": task_id, "split": "tune"}) + "\n"

    def result(pair_id: str, side: str) -> str:
        return json.dumps({"pair_id": pair_id, "side": side, "values": {"functional": 0.0}}) + "\n"

    (tmp_path / "a.jsonl").write_text("")
    (tmp_path / "u-pairs.jsonl").write_text(pair("MBPP/600#operator#undecided", "MBPP/600") + pair("MBPP/601#constant#undecided", "MBPP/601"))
    # the second pair's mutant was not measured: the pair is left out
    (tmp_path / "u.jsonl").write_text(result("MBPP/600#operator#undecided", "original") + result("MBPP/600#operator#undecided", "mutant") + result("MBPP/601#constant#undecided", "original"))
    path = tmp_path / "fit-inputs.json"
    path.write_text(json.dumps({"tune": ["a.jsonl"], "tune_undecided_pairs": "u-pairs.jsonl", "tune_undecided": ["u.jsonl"]}))
    got = FitInputs.read(path).undecided()
    assert [(e.task_id, e.passed, e.kind) for e in got] == [("MBPP/600", True, "undecided"), ("MBPP/600", False, "undecided")]
    path.write_text(json.dumps({"tune": ["a.jsonl"], "tune_undecided": ["u.jsonl"]}))
    with pytest.raises(ValueError, match="go together"):
        FitInputs.read(path)
    path.write_text(json.dumps({"tune": ["a.jsonl"]}))
    assert FitInputs.read(path).undecided() == []
