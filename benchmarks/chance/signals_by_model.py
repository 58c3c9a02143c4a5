"""The same right/wrong pairs assessed by two models: each signal's AUROC with each, the paired
difference, and each model's shipped chance of passing (issue 55; results/undecided-1.5b/rules.md).

    .venv/bin/python -m benchmarks.chance.signals_by_model --pairs results/chance-undecided-2/tune-pairs.jsonl \\
      --rows 0.5b=results/chance-undecided-3/assess-quality-tune.jsonl \\
      --rows 1.5b=results/undecided-1.5b/assess-quality-tune-1.5b.jsonl \\
      --calibration 0.5b=qwen2.5-coder-0.5b-instruct-q4_k_m --calibration 1.5b=qwen2.5-coder-1.5b-instruct-q4_k_m

No model run. Only the pairs both models measured whole are read. Intervals: 95 %, RESAMPLES
bootstrap resamples of the problems (seed 0), the same draws for both models, so the difference
is paired.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.chance.chance_conditions import RESAMPLES, SIGNALS, interval95, problem_resamples
from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.evaluation.metrics import auroc
from qualm.fitting.chance_fit import Example
from qualm.fitting.pairs import SIDES, examples_of, read_results

REPORTED = (*SIGNALS, "undecided_weighted", "undecided_differential")
Score = Callable[[Example], float | None]  # higher: more likely to fail


@dataclass(frozen=True)
class Measured:
    """One model's functions of the shared pairs, in the same order as every other model's."""

    name: str
    functions: list[Example]
    seconds: list[float]


def shared_pairs(pairs: Sequence[dict], rows: dict[str, dict]) -> list[dict]:
    """The pairs every model measured whole (both sides)."""
    return [p for p in pairs if all((p["pair_id"], s) in r for r in rows.values() for s in SIDES)]


def measured(name: str, pairs: Sequence[dict], rows: dict) -> Measured:
    seconds = [float(rows[(p["pair_id"], s)].get("seconds") or 0.0) for p in pairs for s in SIDES]
    return Measured(name, examples_of(pairs, rows), seconds)


def area(functions: Sequence[Example], score: Score, chosen: Sequence[int]) -> float:
    kept = [(score(functions[i]), functions[i].passed) for i in chosen]
    kept = [(s, y) for s, y in kept if s is not None]
    got = auroc([y for _, y in kept], [s for s, _ in kept]) if kept else None
    return float("nan") if got is None else got


def compared(models: Sequence[Measured], scores: dict[str, dict[str, Score]]) -> list[str]:
    """For each score: its AUROC with each model and, with two, the paired difference (second minus first)."""
    every = list(range(len(models[0].functions)))
    resamples = problem_resamples([e.task_id for e in models[0].functions])
    lines = []
    for what in scores:
        cells = []
        per_draw = []
        for m in models:
            score = scores[what][m.name]
            per_draw.append([area(m.functions, score, d) for d in resamples])
            n = sum(score(e) is not None for e in m.functions)
            lo, hi = interval95(per_draw[-1])
            cells.append(f"{m.name} {area(m.functions, score, every):.3f} ({lo:.3f}-{hi:.3f}; {n:3d})")
        if len(models) == 2:
            a, b = models
            point = area(b.functions, scores[what][b.name], every) - area(a.functions, scores[what][a.name], every)
            lo, hi = interval95([y - x for x, y in zip(*per_draw)])
            cells.append(f"{b.name} minus {a.name} {point:+.3f} ({lo:+.3f} to {hi:+.3f})")
        lines.append(f"  {what:32} " + " · ".join(cells))
    return lines


def signal(name: str) -> Score:
    return lambda e: e.signals.get(name)


def report(models: Sequence[Measured], chances: dict[str, Score]) -> list[str]:
    n_pairs = len(models[0].functions) // 2
    problems = len({e.task_id for e in models[0].functions})
    lines = [f"{n_pairs} pairs of {problems} problems measured by every model; AUROC for 'fails' (95 % interval, {RESAMPLES} resamples of the problems; functions with the signal)"]
    lines.append("\nthe shipped chance of passing (1 - chance):")
    lines += compared(models, {"chance": {m: (lambda e, c=c: None if (p := c(e)) is None else 1 - p) for m, c in chances.items()}})
    lines.append("\neach signal alone:")
    lines += compared(models, {s: {m.name: signal(s) for m in models} for s in REPORTED})
    lines.append("\nseconds a function (median, mean):")
    for m in models:
        lines.append(f"  {m.name:8} {np.median(m.seconds):.1f} s, {np.mean(m.seconds):.1f} s")
    return lines


def named(values: Sequence[str]) -> dict[str, str]:
    out = {}
    for v in values:
        name, _, what = v.partition("=")
        if not what:
            raise SystemExit(f"{v}: give NAME=VALUE")
        out[name] = what
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, required=True, help="the pairs file (any split)")
    ap.add_argument("--rows", action="append", required=True, help="NAME=ROWS: a model's assess_quality rows of those pairs")
    ap.add_argument("--calibration", action="append", default=[], help="NAME=KEY: the model's shipped calibration (its file name without .json)")
    args = ap.parse_args()
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    rows = {name: read_results(Path(path)) for name, path in named(args.rows).items()}
    shared = shared_pairs(pairs, rows)
    if not shared:
        raise SystemExit("no pair was measured whole by every model")
    models = [measured(name, shared, r) for name, r in rows.items()]
    calibrations = {name: Calibration.load(SHIPPED_DIR / f"{key}.json").pass_model for name, key in named(args.calibration).items()}
    chances = {m.name: (lambda e, c=calibrations.get(m.name): None if c is None else c.probability(e.signals)) for m in models}
    print("\n".join(report(models, chances)))


if __name__ == "__main__":
    main()
