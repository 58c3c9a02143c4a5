"""The shipped chance of passing on holdout pairs assessed afresh, beside the stored rows it was checked on.

    .venv/bin/python benchmarks/chance_on_fresh_rows.py results/assess-quality/assess-quality-holdout-defaults-stride-10.jsonl --stride 10

The fit was checked on rows measured with earlier defaults (the code's own plan in the plans' batch,
so other draws of the same plans and tests). This reads a fresh ``assess_quality.py --axes all`` run
of every ``--stride``-th holdout pair with today's defaults and prints, for the same pairs, the
shipped pass model's AUROC, Brier and ECE on both, with the signals it rests on. No model run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from qualm.calibrate_pairs import PAIRS_FILE, auroc_fails, examples_of, holdout_quality, read_pairs, read_results
from qualm.ensemble import Calibration
from qualm.fit_inputs import with_extra, with_lexical

HERE = Path(__file__).resolve().parent
R = HERE.parent / "results" / "assess-quality"
SHIPPED = HERE.parent / "server" / "qualm" / "calibration" / "qwen2.5-coder-0.5b-instruct-q4_k_m.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fresh", type=Path, help="assess_quality.py --axes all --split holdout results")
    ap.add_argument("--stride", type=int, default=10)
    args = ap.parse_args()
    model = Calibration.load(SHIPPED).pass_model
    rows = read_pairs(HERE.parent / PAIRS_FILE, "holdout", args.stride)
    stored = with_extra(
        with_lexical(read_results(R / "assess-quality-holdout-all-stride-5.jsonl"), R / "assess-quality-holdout-lexical-all.jsonl", True),
        [R / "assess-quality-holdout-solutions.jsonl", R / "swap-signals-holdout.jsonl"],
    )
    for name, results in (("stored rows (earlier defaults)", stored), ("fresh rows (today's defaults)", read_results(args.fresh))):
        examples = examples_of(rows, results)
        q = holdout_quality(model, examples)
        print(f"{name}: {len(examples)} functions; the shipped chance of passing: AUROC {q.auroc:.3f}, Brier {q.reliability.brier:.3f}, ECE {q.reliability.ece:.3f}")
        for signal in ("functional_weighted", "swap_gain", "plan_agreement", "lexical.all.blended_surprisal"):
            a, n = auroc_fails(examples, [e.signals.get(signal) for e in examples])
            print(f"  {signal:32} {'-' if a is None else f'{a:.3f}'} ({n})")


if __name__ == "__main__":
    main()
