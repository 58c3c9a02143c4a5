"""The signals of the model's own solutions for pairs measured before without them.

    .venv/bin/python benchmarks/solution_signals.py --split tune \\
        --measured results/assess-quality/assess-quality-tune-all.jsonl \\
        --out results/assess-quality/assess-quality-tune-solutions.jsonl

For each function of a full run (``assess_quality.py --axes all``), ``qualm.calibrate_pairs.
measure_solutions`` takes the tests that run wrote, decodes the model's solutions (one batch per
problem, as an assessment does) and writes ``functional_weighted`` and ``agreement``, resumable.
``fit_chance.py --tune-extra/--holdout-extra`` merges them into the full rows. Both functions of a
pair share the solutions and their runs (``SampleCache``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from qualm.calibrate_pairs import SIDES, measure_solutions, read_pairs, read_results
from qualm.engine import SampleCache
from qualm.model import load_model
from qualm.settings import Settings

DATA = Path(__file__).resolve().parent / "data" / "mutant-pairs.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("tune", "holdout"), required=True)
    ap.add_argument("--measured", type=Path, required=True, help="a full run's results (their tests are reused)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model", default=None, help="model path or name (default: the settings' model)")
    ap.add_argument("--body-only", choices=("on", "off"), default=None, help="functional.solution_body_only (default: the settings')")
    args = ap.parse_args()
    settings = Settings() if args.model is None else Settings().with_overrides(model={"path": args.model})
    if args.body_only is not None:
        settings = settings.with_overrides(functional={"solution_body_only": args.body_only == "on"})
    measured = read_results(args.measured)
    done = read_results(args.out)
    backend = load_model(settings.model)
    samples = SampleCache()
    rows = [r for r in read_pairs(DATA, args.split) if all((r["pair_id"], s) in measured for s in SIDES)]
    with open(args.out, "a") as out:
        for row in rows:
            for side in SIDES:
                key = (row["pair_id"], side)
                if key in done:
                    continue
                v = measure_solutions(backend, settings, row, side, measured[key], samples)
                out.write(json.dumps(v) + "\n")
                out.flush()
                d = v["detail"]
                print(f"{row['pair_id']:28s} {side:8s} weighted {v['values']['functional_weighted']} agreement {v['values']['agreement']} "
                      f"verdicts as measured: {d.get('verdicts_as_measured')} ({v['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
