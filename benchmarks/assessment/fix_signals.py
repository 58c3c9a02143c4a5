"""The repair's signals of the chance of passing (issue 55, part 4) for pairs measured before them.

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.assessment.fix_signals \\
        --measured results/chance-of-passing/assess-quality-tune-all.jsonl [more full runs ...] \\
        --out results/chance-fix-signals/fix-signals-tune.jsonl

For each function of a full run, its tests reused (as ``swap_signals.py`` does): the code is scored
teacher-forced (the pass an assessment makes anyway), the docstring's examples and the recorded
tests run in the sandbox, and the assessment's fix step (``qualm.engine.fix.try_fix``: the same
candidates, the same checks, the same settings) runs on them. ``values`` holds what
``qualm.chance.signals_of`` takes: ``fix_gain`` (the share of checks the likely fix gains; 0 where
none is found) and ``suspect_unexpected`` (the suspect line's score), for ``fit_chance.py
--tune-extra``. A run appends a row a function and resumes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.common.paths import ROOT
from qualm.engine.assessment import suspect_score
from qualm.engine.fix import try_fix
from qualm.engine.scoring import score_function
from qualm.fitting.measure import measure_again
from qualm.fitting.pairs import PAIRS_FILE, prepared, read_pairs, read_results
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings
from qualm.signals.agreement import run_probes
from qualm.signals.examples import check_examples
from qualm_sandbox import SandboxConfig


def measure(backend, settings: Settings, row: dict, side: str, measured: dict) -> dict:
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    short = fn.name.split(".")[-1]
    tests = [t for t, _ in measured["detail"]["tests"]]
    t0 = time.perf_counter()
    f = settings.functional
    config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
    trace = score_function(backend, fn, settings).trace
    examples = check_examples(fn.program, PYTHON.docstring(fn.source, short), short, config) if f.docstring_examples else None
    outcomes = examples.outcomes if examples is not None else []
    statuses = [o.status for o in run_probes(fn.program, tests, fn.probe_name, config).outcomes] if tests else []
    checks = [o.example.test for o in outcomes] + tests
    fixed = try_fix(backend, fn, trace, checks, [o.status for o in outcomes] + statuses, settings, config, PYTHON.parses)
    return {
        "pair_id": row["pair_id"], "side": side, "axes": "fix",
        "values": {"fix_gain": fixed.gain, "suspect_unexpected": suspect_score(fn, trace)},
        "detail": {"checks": len(checks), "failing": sum(s != "passed" for s in [o.status for o in outcomes] + statuses), "fix": fixed.note, "tried": fixed.tried,
                   "origin": fixed.fix.candidate.origin if fixed.fix else None},
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--measured", type=Path, nargs="+", required=True, help="full runs' results (their tests are reused)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    settings = Settings()
    backend = load_model(settings.model)
    measured: dict = {}
    for path in args.measured:
        measured.update(read_results(path))
    rows = read_pairs(ROOT / PAIRS_FILE, args.split)
    for row, side, r in measure_again(rows, measured, args.out, lambda row, side, full: measure(backend, settings, row, side, full)):
        v = r["values"]
        print(f"{row['pair_id']:32s} {side:8s} fix_gain {v['fix_gain']} suspect {v['suspect_unexpected']} ({r['detail']['fix']}; {r['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
