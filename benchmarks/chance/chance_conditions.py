"""The chance of passing on right/wrong pairs, by condition, each figure with a bootstrap interval.

    .venv/bin/python -m benchmarks.chance.chance_conditions --inputs MANIFEST [--calibration FILE] [--compare FILE]
    .venv/bin/python -m benchmarks.chance.chance_conditions --test-pairs PAIRS --test-rows ROWS [--calibration FILE] [--compare FILE]

Reads measured pairs (no model run): the holdout split a fit manifest names (``--inputs``: a
validation set, it has chosen fits), or a test set's pairs and rows (``build_mutants.py
--test-split``, ``assess_quality.py --split test``). For the chance of passing of a calibration
file (default: the shipped file of the manifest's or the default model), and of ``--compare``,
prints per condition the AUROC of 1 - chance for "fails", the Brier score, the ECE (10 bins), the
mean chance and how many wrong functions get 0.8 or more, each with a 95 % interval from 2,000
bootstrap resamples of the problems (seed 0; a problem drawn brings all its pairs), and with ``--compare`` the difference of the two in AUROC
and Brier, paired (the same resamples for both). The conditions:

- all pairs;
- the docstring's examples not read (``examples_failed`` removed from both functions: on MBPP the
  docstring's ``assert`` is the first official test, so reading it reads the label's own test);
- pairs whose docstring gives no example;
- pairs whose wrong function passes its docstring's examples (the examples leave them undecided).
Then each single signal's AUROC on all pairs, for context.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks.common.paths import ROOT
from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.chance import PassModel
from qualm.evaluation.metrics import auroc
from qualm.fitting.chance_fit import Example, reliability
from qualm.fitting.fit_inputs import FitInputs
from qualm.fitting.pairs import PAIRS_FILE, examples_of, read_results, read_test_pairs
from qualm.model.files import DEFAULT_MODEL

RESAMPLES = 2000
Pair = tuple[Example, Example]  # (right, wrong)
SIGNALS = (
    "examples_failed", "functional", "functional_weighted", "swap_gain", "lexical.all.blended_surprisal", "lexical.all.top_k_entropy", "algorithmic",
    "differential", "fix_gain", "suspect_unexpected", "departure_fix_gain", "departure_suspect",
    "consistent_weighted", "consistent_differential",
)


def pairs_of(examples: Sequence[Example]) -> list[Pair]:
    """One pair per problem: its right and its wrong function."""
    right = {e.task_id: e for e in examples if e.passed}
    wrong = {e.task_id: e for e in examples if not e.passed}
    return [(right[t], wrong[t]) for t in right if t in wrong]


def pairs_of_rows(examples: Sequence[Example]) -> list[Pair]:
    """One pair per measured row (``examples_of`` gives each row's right then wrong function): a
    problem with two pairs (``undecided_pairs --per-problem 2``) gives both, its right function in each."""
    return [(examples[i], examples[i + 1]) for i in range(0, len(examples) - 1, 2)]


def without_examples(e: Example) -> Example:
    return Example(e.task_id, {**e.signals, "examples_failed": None}, e.passed, e.generated)


CONDITIONS: dict[str, Callable[[list[Pair]], list[Pair]]] = {
    "all pairs": lambda ps: ps,
    "the docstring's examples not read": lambda ps: [(without_examples(r), without_examples(w)) for r, w in ps],
    "pairs whose docstring gives no example": lambda ps: [(r, w) for r, w in ps if r.signals.get("examples_failed") is None],
    "pairs whose wrong function passes its examples": lambda ps: [(r, w) for r, w in ps if w.signals.get("examples_failed") == 0],
}


def figures(pairs: list[Pair], chance: Callable[[Example], float | None]) -> dict[str, float]:
    functions = [e for p in pairs for e in p]
    p = [chance(e) for e in functions]
    kept = [(x, e.passed) for x, e in zip(p, functions) if x is not None]
    if not kept or len({y for _, y in kept}) < 2:
        return {}
    rel = reliability([x for x, _ in kept], [y for _, y in kept])
    area = auroc([y for _, y in kept], [1 - x for x, _ in kept])
    wrong_high = sum(1 for x, y in kept if not y and x >= 0.8)
    return {"auroc": np.nan if area is None else area, "brier": rel.brier, "ece": rel.ece, "mean": sum(x for x, _ in kept) / len(kept), "wrong_high": wrong_high}


def problem_resamples(problems: Sequence[str]) -> list[list[int]]:
    """RESAMPLES resamples of the problems (seed 0) of items whose problems are `problems`: each a
    list of item indices, a drawn problem bringing all its items in their order."""
    by_problem: dict[str, list[int]] = {}
    for i, problem in enumerate(problems):
        by_problem.setdefault(problem, []).append(i)
    groups = list(by_problem.values())
    rng = np.random.default_rng(0)
    return [[i for g in rng.integers(0, len(groups), len(groups)) for i in groups[g]] for _ in range(RESAMPLES)]


def interval95(values: Sequence[float]) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the values that are numbers (NaN where none is)."""
    kept = np.array([v for v in values if not np.isnan(v)])
    if not len(kept):
        return float("nan"), float("nan")
    lo, hi = np.percentile(kept, [2.5, 97.5])
    return float(lo), float(hi)


def bootstrapped(pairs: list[Pair], statistic: Callable[[list[Pair]], dict[str, float]]) -> tuple[dict[str, float], Callable[[str], tuple[float, float]]] | str:
    """The statistic's figures on the pairs, and each figure's 95 % interval over RESAMPLES
    resamples of the problems (seed 0), each drawn problem with all its pairs (with one pair a
    problem, a resample of the pairs); where there are none, why."""
    if len(pairs) < 2:
        return f"{len(pairs)} pairs: too few for a figure"
    point = statistic(pairs)
    if not point:
        return f"{len(pairs)} pairs: no chance to rank"
    draws = [statistic([pairs[i] for i in drawn]) for drawn in problem_resamples([p[0].task_id for p in pairs])]
    return point, lambda key: interval95([d[key] for d in draws if d])


def with_intervals(pairs: list[Pair], chance: Callable[[Example], float | None]) -> str:
    got = bootstrapped(pairs, lambda ps: figures(ps, chance))
    if isinstance(got, str):
        return got
    point, interval = got

    def ci(key: str) -> str:
        lo, hi = interval(key)
        return f"{point[key]:.3f} ({lo:.3f}-{hi:.3f})"

    return (f"{len(pairs):4d} pairs · AUROC {ci('auroc')} · Brier {ci('brier')} · ECE {ci('ece')} · mean chance {point['mean']:.3f} (0.500 pass)"
            f" · wrong functions at >= 0.8: {point['wrong_high']} of {len(pairs)}")


def paired_difference(pairs: list[Pair], first: Callable[[Example], float | None], second: Callable[[Example], float | None]) -> str:
    """first − second in AUROC and in Brier, each with a 95 % interval from the same resamples of the
    pairs for both (paired: the pairs' own difficulty cancels)."""

    def delta(ps: list[Pair]) -> dict[str, float]:
        a, b = figures(ps, first), figures(ps, second)
        return {k: a[k] - b[k] for k in ("auroc", "brier")} if a and b else {}

    got = bootstrapped(pairs, delta)
    if isinstance(got, str):
        return got
    point, interval = got

    def ci(key: str) -> str:
        lo, hi = interval(key)
        return f"{point[key]:+.3f} ({lo:+.3f} to {hi:+.3f})"

    return f"{len(pairs):4d} pairs · AUROC {ci('auroc')} · Brier {ci('brier')}"


def report(pairs: list[Pair], models: dict[str, PassModel]) -> list[str]:
    lines = []
    for name, model in models.items():
        lines.append(f"\n{name}:")
        for condition, select in CONDITIONS.items():
            lines.append(f"  {condition:48} {with_intervals(select(pairs), lambda e, m=model: m.probability(e.signals))}")
    if len(models) == 2:
        (first, a), (second, b) = models.items()
        lines.append(f"\n{first} minus {second.removeprefix('for comparison, ')}, paired (the same resamples for both):")
        for condition, select in CONDITIONS.items():
            lines.append(f"  {condition:48} {paired_difference(select(pairs), lambda e, m=a: m.probability(e.signals), lambda e, m=b: m.probability(e.signals))}")
    lines.append("\nsingle signals on all pairs (AUROC for 'fails'; functions without the signal left out):")
    functions = [e for p in pairs for e in p]
    for s in SIGNALS:
        values = [(e.signals.get(s), e.passed) for e in functions if e.signals.get(s) is not None]
        area = auroc([y for _, y in values], [v for v, _ in values]) if values else None
        lines.append(f"  {s:36} {'-' if area is None else f'{area:.3f}'} ({len(values)} functions)")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=Path, help="a fit manifest: its holdout split (a validation set)")
    ap.add_argument("--test-pairs", type=Path, help="a test set's pairs (build_mutants.py --test-split)")
    ap.add_argument("--test-rows", type=Path, help="their measured rows (assess_quality.py --split test)")
    ap.add_argument("--calibration", type=Path, default=None, help="the calibration file whose chance is reported (default: the shipped one)")
    ap.add_argument("--compare", type=Path, default=None, help="another calibration file, reported beside it (chooses nothing)")
    args = ap.parse_args()
    if args.inputs:
        inputs = FitInputs.read(args.inputs)
        pairs = pairs_of(inputs.holdout_pairs(ROOT / PAIRS_FILE))
        key, what = inputs.model_key, f"the holdout pairs of {args.inputs} (a validation set: it has chosen fits)"
    elif args.test_pairs and args.test_rows:
        examples = examples_of(read_test_pairs(args.test_pairs), read_results(args.test_rows))
        pairs = pairs_of_rows(examples)
        key, what = DEFAULT_MODEL.key, f"the test pairs of {args.test_pairs}"
    else:
        ap.error("give --inputs, or --test-pairs with --test-rows")
    models = {f"chance of {args.calibration or 'the shipped calibration'}": Calibration.load(args.calibration or SHIPPED_DIR / f"{key}.json").pass_model}
    if args.compare:
        models[f"for comparison, {args.compare}"] = Calibration.load(args.compare).pass_model
    problems = len({r.task_id for r, _ in pairs})
    print(f"{what}: {len(pairs)} pairs of {problems} problems; intervals: 95 %, {RESAMPLES} bootstrap resamples of the problems, seed 0")
    print("\n".join(report(pairs, models)))


if __name__ == "__main__":
    main()
