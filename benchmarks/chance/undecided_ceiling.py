"""How high could a refit of the signals an assessment already has take the chance of passing on
pairs that no docstring example decides? (issue 55; the rule: results/chance-undecided-ceiling/rules.md)

    .venv/bin/python -m benchmarks.chance.undecided_ceiling --inputs results/chance-of-passing/fit-inputs.json \\
      --test results/chance-undecided-2 --test results/chance-undecided-3

No model run. Fits a logistic regression ("fails") on fixed signal sets of the manifest's undecided
tune pairs and reports (a) its AUROC cross-validated by problem and in sample, and (b) fitted on all
of them, its AUROC and Brier on test sets already measured (each ``--test`` folder's
``test-pairs.jsonl`` and ``assess-quality-test.jsonl``), pooled and by round, with the shipped
chance beside it. Nothing here ships: it asks whether any refit could reach the target at all.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from benchmarks.chance.chance_conditions import Pair, bootstrapped, figures, pairs_of_rows
from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.chance import with_derived
from qualm.evaluation.metrics import auroc
from qualm.fitting.chance_fit import Example
from qualm.fitting.fit_inputs import FitInputs
from qualm.fitting.pairs import examples_of, read_results, read_test_pairs

FOLDS = 10
STRENGTHS = (0.1, 1.0)  # scikit-learn's C: the inverse of the L2 penalty
NEVER_READ = ("examples_failed",)  # 0 or missing on these pairs; on MBPP it reads the label's first test
_SUSPECT = ("suspect_unexpected",)
_SWAPS = (*_SUSPECT, "swap_gain")
_CONSISTENT = (*_SWAPS, "undecided_weighted")
_WITNESSES = (*_CONSISTENT, "undecided_differential", "functional_weighted", "differential")
SIGNAL_SETS: dict[str, tuple[str, ...] | None] = {
    "1 the suspect line's score": _SUSPECT,
    "2 + the swaps' gain": _SWAPS,
    "3 + the consistent solutions' weighted tests": _CONSISTENT,
    "4 + the consistent differential, weighted tests, differential": _WITNESSES,
    "5 every signal (an over-fitting ceiling)": None,  # None: every signal of the tune rows
}


@dataclass(frozen=True)
class Design:
    """How a function's signals become a row of numbers: each signal, a missing one set to its tune
    median, and an indicator column for each signal that is missing somewhere in the tune rows."""

    signals: tuple[str, ...]
    medians: tuple[float, ...]
    flagged: tuple[bool, ...]

    @classmethod
    def of(cls, signals: Sequence[str], tune: Sequence[Example]) -> Design:
        columns = [[_value(e, s) for e in tune] for s in signals]
        medians = tuple(float(np.nanmedian(c)) if not np.isnan(c).all() else 0.0 for c in map(np.array, columns))
        flagged = tuple(bool(np.isnan(np.array(c)).any()) for c in columns)
        return cls(tuple(signals), medians, flagged)

    def matrix(self, examples: Sequence[Example]) -> np.ndarray:
        columns = []
        for signal, median, flag in zip(self.signals, self.medians, self.flagged):
            raw = np.array([_value(e, signal) for e in examples])
            missing = np.isnan(raw)
            columns.append(np.where(missing, median, raw))
            if flag:
                columns.append(missing.astype(float))
        return np.column_stack(columns)


def _value(e: Example, signal: str) -> float:
    v = e.signals.get(signal)
    return np.nan if v is None else float(v)


def _fails(examples: Sequence[Example]) -> np.ndarray:
    return np.array([0 if e.passed else 1 for e in examples])


def _model(strength: float) -> Pipeline:
    return make_pipeline(StandardScaler(), LogisticRegression(C=strength, max_iter=5000))


def every_signal(tune: Sequence[Example]) -> tuple[str, ...]:
    """The signals some tune function has, but those never read."""
    names = {s for e in tune for s, v in e.signals.items() if v is not None}
    return tuple(sorted(names - set(NEVER_READ)))


def cross_validated(tune: Sequence[Example], signals: Sequence[str], strength: float) -> tuple[float, float]:
    """(AUROC of FOLDS-fold cross-validation grouped by problem, AUROC in sample). Each fold's design
    (medians, indicators) is made from its training functions alone."""
    y = _fails(tune)
    groups = np.array([e.task_id for e in tune])
    held = np.zeros(len(tune))
    for train, test in GroupKFold(FOLDS).split(np.zeros(len(tune)), y, groups):
        design = Design.of(signals, [tune[i] for i in train])
        fitted = _model(strength).fit(design.matrix([tune[i] for i in train]), y[train])
        held[test] = fitted.predict_proba(design.matrix([tune[i] for i in test]))[:, 1]
    design = Design.of(signals, tune)
    inside = _model(strength).fit(design.matrix(tune), y).predict_proba(design.matrix(tune))[:, 1]
    return _area(y, held), _area(y, inside)


def _area(fails: np.ndarray, p_fails: np.ndarray) -> float:
    # auroc reads labels as "correct" and scores as uncertainty: the same as P(fails) for "fails"
    area = auroc([not v for v in fails], [float(s) for s in p_fails])
    return float("nan") if area is None else area


def fitted_chance(tune: Sequence[Example], signals: Sequence[str], strength: float, scored: Sequence[Example] = ()) -> Callable[[Example], float]:
    """The chance of passing (1 − P(fails)) of a fit on every tune function. The functions of `scored`
    are scored at once (the bootstrap asks for each thousands of times); any other one when asked."""
    design = Design.of(signals, tune)
    model = _model(strength).fit(design.matrix(tune), _fails(tune))
    known = dict(zip(map(id, scored), 1.0 - model.predict_proba(design.matrix(scored))[:, 1])) if scored else {}
    return lambda e: float(known[id(e)]) if id(e) in known else float(1.0 - model.predict_proba(design.matrix([e]))[0, 1])


def with_consistent(e: Example) -> Example:
    """A row measured before the consistent signals existed, with them where the docstring gives no
    example (every solution counts there: ``consistent_rows.derived_row``); elsewhere left missing."""
    if "consistent_weighted" in e.signals or e.signals.get("examples_failed") is not None:
        return e
    raw = {**e.signals, "consistent_weighted": e.signals.get("functional_weighted"), "consistent_differential": e.signals.get("differential")}
    return Example(e.task_id, with_derived(raw), e.passed, e.generated, e.undecided)


def test_pairs(folder: Path) -> list[Pair]:
    examples = examples_of(read_test_pairs(folder / "test-pairs.jsonl"), read_results(folder / "assess-quality-test.jsonl"))
    return pairs_of_rows([with_consistent(e) for e in examples])


CONDITIONS: dict[str, Callable[[list[Pair]], list[Pair]]] = {
    "all": lambda ps: ps,
    "no example": lambda ps: [(r, w) for r, w in ps if r.signals.get("examples_failed") is None],
    "examples pass": lambda ps: [(r, w) for r, w in ps if w.signals.get("examples_failed") == 0],
}


def on_pairs(pairs: list[Pair], chance: Callable[[Example], float]) -> str:
    got = bootstrapped(pairs, lambda ps: figures(ps, chance))
    if isinstance(got, str):
        return got
    point, interval = got
    (a_lo, a_hi), (b_lo, b_hi) = interval("auroc"), interval("brier")
    return f"{len(pairs):3d} pairs AUROC {point['auroc']:.3f} ({a_lo:.3f}-{a_hi:.3f}) Brier {point['brier']:.3f} ({b_lo:.3f}-{b_hi:.3f})"


def report(tune: list[Example], tests: dict[str, list[Pair]], shipped: Callable[[Example], float | None]) -> list[str]:
    everything = every_signal(tune)
    lines = [f"(a) the {len(tune)} undecided tune functions (validation: they chose the shipped chain); {FOLDS}-fold CV grouped by problem"]
    for name, signals in SIGNAL_SETS.items():
        for strength in STRENGTHS:
            cv, inside = cross_validated(tune, signals or everything, strength)
            lines.append(f"  {name:64} C={strength:<4} CV AUROC {cv:.3f} · in sample {inside:.3f}")
    lines.append("\n(b) fitted on all tune functions, on test pairs read before (after the fact; nothing chosen here ships)")
    for test_name, pairs in tests.items():
        for condition, select in CONDITIONS.items():
            chosen = select(pairs)
            lines.append(f"\n  {test_name} · {condition}")
            lines.append(f"    {'the shipped chance':71} {on_pairs(chosen, shipped)}")
            for name, signals in SIGNAL_SETS.items():
                for strength in STRENGTHS:
                    chance = fitted_chance(tune, signals or everything, strength, [e for p in chosen for e in p])
                    lines.append(f"    {name:64} C={strength:<4} {on_pairs(chosen, chance)}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=Path, required=True, help="the fit manifest whose undecided tune pairs are fitted")
    ap.add_argument("--test", type=Path, action="append", default=[], help="a test round's folder (test-pairs.jsonl, assess-quality-test.jsonl)")
    args = ap.parse_args()
    inputs = FitInputs.read(args.inputs)
    tune = inputs.undecided()
    tests = {folder.name: test_pairs(folder) for folder in args.test}
    if len(tests) > 1:
        tests = {"pooled": [p for ps in tests.values() for p in ps], **tests}
    shipped = Calibration.load(SHIPPED_DIR / f"{inputs.model_key}.json").pass_model
    print("\n".join(report(tune, tests, lambda e: shipped.probability(e.signals))))


if __name__ == "__main__":
    main()
