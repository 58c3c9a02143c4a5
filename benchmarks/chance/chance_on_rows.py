"""A calibration file's chance of passing on measured pairs it was not fitted on.

    .venv/bin/python -m benchmarks.chance.chance_on_rows results/chance-of-passing/assess-quality-tune-130-pairs-2026-11-27.jsonl --split tune --calibration OLD.json
    .venv/bin/python -m benchmarks.chance.chance_on_rows results/chance-of-passing/assess-quality-holdout-all-stride-5.jsonl --stride 10 \
        --lexical results/lexical-signal/assess-quality-holdout-lexical-all.jsonl --lexical-replaces \
        --extra results/solution-signals/assess-quality-holdout-solutions.jsonl --extra results/swap-signals/swap-signals-holdout.jsonl

Reads ``assess_quality.py --axes all`` results (several files read as one; a lexical-only run and
signals measured later merged in as a fit manifest merges them) and prints, over the pairs measured
in full (every ``--stride``-th pair of the split), the pass model's AUROC right-vs-wrong with a 95 % bootstrap interval over
the pairs, its Brier score and ECE, and the signals it rests on. The calibration file defaults to
the shipped one of the default model; give an older one (``git show <commit>:server/qualm/...``) to
measure a fit on pairs measured after it was made. No model run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common.paths import ROOT
from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.fitting.fit_inputs import split_results, with_extra
from qualm.fitting.pairs import PAIRS_FILE, examples_of, read_pairs
from qualm.fitting.validation import auroc_fails, holdout_quality, pair_doubts, pairs_auroc_interval
from qualm.model.files import DEFAULT_MODEL

SIGNALS = ("functional", "functional_weighted", "swap_gain", "plan_agreement", "examples_failed", "lexical.all.blended_surprisal")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path, nargs="+", help="assess_quality.py --axes all results files")
    ap.add_argument("--split", choices=("tune", "holdout"), default="holdout")
    ap.add_argument("--calibration", type=Path, default=None, help=f"a calibration file (default: the shipped {DEFAULT_MODEL.key}.json)")
    ap.add_argument("--stride", type=int, default=1, help="every k-th pair of the split only (assess_quality.py --stride)")
    ap.add_argument("--lexical", type=Path, default=None, help="a lexical-only run of the same pairs: lexical signals the results lack are taken from it")
    ap.add_argument("--lexical-replaces", action="store_true", help="its lexical signals replace the results' (scored another way)")
    ap.add_argument("--extra", type=Path, action="append", help="signals measured later for the same functions (solution_signals.py, swap_signals.py, docstring_examples.py), merged in")
    args = ap.parse_args()
    path = args.calibration or SHIPPED_DIR / f"{DEFAULT_MODEL.key}.json"
    model = Calibration.load(path).pass_model
    if model is None:
        raise SystemExit(f"{path}: no chance of passing in this calibration file")
    results = with_extra(split_results(args.results, args.lexical, args.lexical_replaces), args.extra)
    examples = examples_of(read_pairs(ROOT / PAIRS_FILE, args.split, args.stride), results)  # the pairs measured in full
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
