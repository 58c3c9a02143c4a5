"""The signals of the model's own solutions for pairs measured before without them.

    .venv/bin/python -m benchmarks.assessment.solution_signals --split tune \\
        --measured results/chance-of-passing/assess-quality-tune-all.jsonl \\
        --out results/solution-signals/assess-quality-tune-solutions.jsonl

For each function of a full run (``assess_quality.py --axes all``), ``qualm.fitting.
measure.measure_solutions`` takes the tests that run wrote, decodes the model's solutions (one batch per
problem, as an assessment does) and writes ``functional_weighted`` and ``agreement``, resumable.
``fit_chance.py --tune-extra/--holdout-extra`` merges them into the full rows. Both functions of a
pair share the solutions and their runs (``SampleCache``).

``--from-plans`` writes the solutions after the first from the full run's stored plans
(``functional.solutions_from_plans``) and adds ``plan_agreement`` / ``plan_weighted``; with
``--swap-rows`` (``swap_signals.py``'s rows of the same functions) ``swap_gain`` is computed again
from the stored swaps' verdicts with these solutions' test weights, as the engine would.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.assessment.swap_signals import gain
from benchmarks.common.paths import ROOT
from qualm.engine import SampleCache
from qualm.fitting.measure import measure_again, measure_solutions
from qualm.fitting.pairs import PAIRS_FILE, read_pairs, read_results
from qualm.model import load_model
from qualm.settings import Settings

DATA = ROOT / PAIRS_FILE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("tune", "holdout"), required=True)
    ap.add_argument("--measured", type=Path, required=True, help="a full run's results (their tests are reused)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model", default=None, help="model path or name (default: the settings' model)")
    ap.add_argument("--body-only", choices=("on", "off"), default=None, help="functional.solution_body_only (default: the settings')")
    ap.add_argument("--from-plans", action="store_true", help="functional.solutions_from_plans on")
    ap.add_argument("--swap-rows", type=Path, default=None, help="swap_signals.py rows: swap_gain again with these solutions' weights")
    args = ap.parse_args()
    settings = Settings() if args.model is None else Settings().with_overrides(model={"path": args.model})
    if args.body_only is not None:
        settings = settings.with_overrides(functional={"solution_body_only": args.body_only == "on"})
    if args.from_plans:
        settings = settings.with_overrides(functional={"solutions_from_plans": True})
    swaps = read_results(args.swap_rows) if args.swap_rows else {}
    f = settings.functional
    backend = load_model(settings.model)
    samples = SampleCache()

    def measure_one(row: dict, side: str, full: dict) -> dict:
        v = measure_solutions(backend, settings, row, side, full, samples)
        stored = swaps.get((row["pair_id"], side))
        if stored is not None and "weights" in v["detail"]:
            v["values"]["swap_gain"] = gain(stored | {"weights": v["detail"]["weights"]}, f.swap_positions, f.swap_alternatives)
        return v

    for row, side, v in measure_again(read_pairs(DATA, args.split), read_results(args.measured), args.out, measure_one):
        d = v["detail"]
        print(f"{row['pair_id']:28s} {side:8s} weighted {v['values']['functional_weighted']} agreement {v['values']['agreement']} "
              f"verdicts as measured: {d.get('verdicts_as_measured')} ({v['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
