"""Benchmark: the shipped chance of passing on pairs measured again with today's defaults, against
the rows its fit used (tune) or was measured on (holdout) for the same pairs.

    .venv/bin/python -m benchmarks.chance.chance_on_same_pairs RESULTS.jsonl [RESULTS2.jsonl ...] [--split tune|holdout] [--fit-inputs results/chance-of-passing/fit-inputs.json]
        [--before OTHER.jsonl ...]

``RESULTS.jsonl`` is an ``assess_quality.py --split SPLIT --axes all --cache`` file. A change to how
the samples are decoded (fewer plans in the first batch, the solutions beside the plans' programs)
changes every sampled answer a little (llama.cpp's batched arithmetic) but not their distribution;
this shows whether the fitted chance still ranks and places the same functions as it did. On tune
pairs both figures are in-sample (the pass model was fitted on them): they compare one measurement
with another; on holdout pairs they are the chance's quality under each way of decoding.

Each chance AUROC comes with a 95 % bootstrap interval over the pairs, and the difference of two
measurements of the same pairs with a paired one: a difference inside it is what drawing these
pairs' samples again can give. Several RESULTS files are read as one measurement (the halves of a
split measured apart). ``--before`` compares with other results files instead of the fit's rows:
the same pairs drawn with another seed (``assess_quality.py --seed``), or at another commit.
Only pairs both measurements hold in full are compared.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common.paths import ROOT
from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.fitting.chance_fit import Example
from qualm.fitting.fit_inputs import FitInputs, split_results, with_extra
from qualm.fitting.pairs import PAIRS_FILE, SIDES, examples_of, read_pairs
from qualm.fitting.validation import auroc_fails, pair_doubts, pairs_auroc_interval

SIGNALS = ("functional_weighted", "swap_gain", "examples_failed", "agreement", "plan_agreement")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("results", type=Path, nargs="+")
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--fit-inputs", type=Path, default=ROOT / "results/chance-of-passing/fit-inputs.json")
    ap.add_argument("--before", type=Path, nargs="+", default=None, help="compare with these results files (another seed, another commit) instead of the fit's rows")
    args = ap.parse_args()
    inputs = FitInputs.read(args.fit_inputs)
    pass_model = Calibration.load(SHIPPED_DIR / f"{inputs.model_key}.json").pass_model
    if pass_model is None:
        raise SystemExit("the calibration file has no pass model")
    measured = split_results(args.results, None, False)  # several files read as one
    if args.before is not None:
        before_results = split_results(args.before, None, False)
    else:
        files, lexical, extra = (inputs.tune, inputs.tune_lexical, inputs.tune_extra) if args.split == "tune" else (inputs.holdout, inputs.holdout_lexical, inputs.holdout_extra)
        before_results = with_extra(split_results(files, lexical, inputs.lexical_replaces), extra)
    # the pairs both measurements hold in full, in the pairs file's order
    rows = [r for r in read_pairs(ROOT / PAIRS_FILE, args.split) if all((r["pair_id"], side) in m for side in SIDES for m in (measured, before_results))]
    again, before = examples_of(rows, measured), examples_of(rows, before_results)

    def chance(e: Example) -> float | None:
        used = pass_model.used_for(e.signals)
        return None if used is None else used.own_probability(e.signals)

    before_name = "the rows of " + ", ".join(p.name for p in args.before) if args.before else "the fit's rows" if args.split == "tune" else "the rows measured before"
    doubts: list[list[tuple[float, float]]] = []  # each pair's (right, wrong) 1 - chance, a missing chance at 0.5
    for name, examples in ((before_name, before), ("measured again", again)):
        chances = [chance(e) for e in examples]
        doubts.append(pair_doubts(examples, [1 - (c if c is not None else 0.5) for c in chances]))
        auroc, n = auroc_fails(examples, [None if c is None else 1 - c for c in chances])
        right = [c for e, c in zip(examples, chances) if e.passed and c is not None]
        wrong = [c for e, c in zip(examples, chances) if not e.passed and c is not None]
        print(f"{name}: {len(examples)} functions; chance AUROC {auroc:.3f} ({n}); mean chance of the right ones {sum(right) / len(right):.3f}, of the wrong ones {sum(wrong) / len(wrong):.3f}")
        for signal in SIGNALS:
            a, k = auroc_fails(examples, [e.signals.get(signal) for e in examples])
            print(f"  {signal}: {'-' if a is None else f'{a:.3f}'} ({k} functions)")

    old, new = doubts
    for name, d in (("before", old), ("again", new)):
        print(f"chance AUROC {name}, 95 % bootstrap interval over the {len(rows)} pairs: {pairs_auroc_interval(d) or '- (fewer than two pairs)'}")
    ci = pairs_auroc_interval(new, against=old)
    print(f"again - before, paired bootstrap over the same {len(rows)} pairs: 95 % interval " + (f"{ci.low:+.3f} to {ci.high:+.3f} (SE {ci.se:.3f})" if ci else "- (fewer than two pairs)"))


if __name__ == "__main__":
    main()
