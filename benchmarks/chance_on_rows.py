"""A calibration file's chance of passing on measured pairs it was not fitted on.

    .venv/bin/python benchmarks/chance_on_rows.py results/assess-quality/assess-quality-tune-today.jsonl --split tune --calibration OLD.json

Reads ``assess_quality.py --axes all`` results (several files read as one) and prints, over the
pairs measured in full, the pass model's AUROC right-vs-wrong with a 95 % bootstrap interval over
the pairs, its Brier score and ECE, and the signals it rests on. The calibration file defaults to
the shipped one of the default model; give an older one (``git show <commit>:server/qualm/...``) to
measure a fit on pairs measured after it was made. No model run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from qualm.calibrate_pairs import PAIRS_FILE, auroc_fails, examples_of, holdout_quality, pair_doubts, pairs_auroc_interval, read_pairs
from qualm.ensemble import SHIPPED_DIR, Calibration
from qualm.fit_inputs import split_results
from qualm.model.files import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parents[1]
SIGNALS = ("functional", "functional_weighted", "swap_gain", "examples_failed", "lexical.all.blended_surprisal")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path, nargs="+", help="assess_quality.py --axes all results files")
    ap.add_argument("--split", choices=("tune", "holdout"), default="holdout")
    ap.add_argument("--calibration", type=Path, default=None, help=f"a calibration file (default: the shipped {DEFAULT_MODEL.key}.json)")
    args = ap.parse_args()
    path = args.calibration or SHIPPED_DIR / f"{DEFAULT_MODEL.key}.json"
    model = Calibration.load(path).pass_model
    if model is None:
        raise SystemExit(f"{path}: no chance of passing in this calibration file")
    results = split_results(args.results, None, False)
    examples = examples_of(read_pairs(ROOT / PAIRS_FILE, args.split), results)  # the pairs measured in full
    q = holdout_quality(model, examples)
    doubts = [None if p is None else 1 - p for p in q.chances]  # a pair with a function without a chance is left out, as fit_chance.py does
    print(f"{path.name} on {len(examples) // 2} {args.split} pairs ({len(examples)} functions)")
    print(f"  chance of passing: AUROC {q.auroc:.3f}, 95 % bootstrap interval over the pairs {pairs_auroc_interval(pair_doubts(examples, doubts))}")
    if q.reliability is not None:
        print(f"  Brier {q.reliability.brier:.3f} · ECE {q.reliability.ece:.3f} (10 bins)")
    for signal in SIGNALS:
        a, n = auroc_fails(examples, [e.signals.get(signal) for e in examples])
        print(f"  {signal:32} {'-' if a is None else f'{a:.3f}'} ({n} functions)")


if __name__ == "__main__":
    main()
