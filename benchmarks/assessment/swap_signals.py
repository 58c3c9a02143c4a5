"""Token swaps (``qualm.signals.swaps``) for pairs measured before without them, and the report that
chose their settings.

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.assessment.swap_signals --split tune \\
        --measured results/chance-of-passing/assess-quality-tune-all.jsonl \\
        --out results/swap-signals/swap-signals-tune.jsonl --positions 5 --alternatives 3
    .venv/bin/python -m benchmarks.assessment.swap_signals --report --out results/swap-signals/swap-signals-tune.jsonl

For each function of a full run (its tests are reused, as ``solution_signals.py`` does): the code
is scored teacher-forced (the lexical pass an assessment makes anyway), its swaps are made as the
engine makes them (``token_swaps``) and run on the tests, and the model's solutions weigh the tests
(``check_against_solutions``: the same seeds, so the same weights as an assessment's). Each row keeps
the code's and every swap's verdicts, so that other numbers of positions and alternatives (a
subset: the first ones of each) are compared without the model (``--report``), and ``values`` holds
``swap_gain`` at the settings' numbers for ``fit_chance.py --tune-extra``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from sklearn.metrics import roc_auc_score

from benchmarks.common.paths import ROOT
from qualm.engine import SampleCache
from qualm.engine.scoring import score_function
from qualm.engine.solutions import check_against_solutions
from qualm.engine.swaps import check_swaps
from qualm.fitting.measure import measure_again
from qualm.fitting.pairs import PAIRS_FILE, SIDES, prepared, read_pairs, read_results
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings
from qualm.signals.agreement import run_probes
from qualm.signals.swaps import TokenSwap, swap_gain
from qualm_sandbox import SandboxConfig

DATA = ROOT / PAIRS_FILE


def measure(backend, settings: Settings, row: dict, side: str, measured: dict, samples: SampleCache) -> dict:
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    short = fn.name.split(".")[-1]
    tests = [t for t, _ in measured["detail"]["tests"]]
    t0 = time.perf_counter()
    out = {"pair_id": row["pair_id"], "side": side, "axes": "swaps", "tests": len(tests)}
    if not tests:
        return out | {"values": {"swap_gain": None}, "seconds": time.perf_counter() - t0}
    trace = score_function(backend, fn, settings).trace
    f = settings.functional
    config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
    probes = run_probes(fn.program, tests, short, config)
    statuses = [o.status for o in probes.outcomes]
    solved = check_against_solutions(backend, fn.problem_description, short, probes, settings, PYTHON, config, samples)
    result = check_swaps(fn, trace, tests, statuses, solved.test_weights, settings, config, PYTHON.parses)
    variants = [
        {"rank": o.swap.rank, "token": o.swap.token, "prob": o.swap.prob, "alternative": o.swap.alternative, "alt_prob": o.swap.alt_prob,
         "verdicts": list(o.statuses)}
        for o in result.outcomes
    ]
    return out | {"weights": solved.test_weights, "verdicts": statuses, "variants": variants, "swap_seconds": result.seconds, "seconds": time.perf_counter() - t0}


def gain(r: dict, positions: int, alternatives: int) -> float | None:
    """``swap_gain`` of a stored row with the first ``alternatives`` swaps of its first ``positions``
    places: what the engine computes with those settings."""
    if not r.get("tests"):
        return None
    seen: dict[int, int] = defaultdict(int)
    kept = []
    for v in r["variants"]:
        if v["rank"] < positions and seen[v["rank"]] < alternatives:
            seen[v["rank"]] += 1
            kept.append((TokenSwap(v["rank"], 0, 0, v["token"], v["prob"], v["alternative"], v["alt_prob"], ""), v["verdicts"]))
    return swap_gain(r["verdicts"], kept, r["weights"]).uncertainty


def report(rows: list[dict], positions: int, alternatives: int) -> str:
    by_pair: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        by_pair[r["pair_id"]][r["side"]] = r
    y, x, wins = [], [], [0, 0, 0]
    for pair in by_pair.values():
        if set(pair) != set(SIDES):
            continue
        g = {side: gain(pair[side], positions, alternatives) for side in SIDES}
        for side in SIDES:
            if g[side] is not None:
                y.append(int(side == "mutant"))
                x.append(g[side])
        if None not in g.values():
            wins[0 if g["mutant"] > g["original"] else 1 if g["mutant"] == g["original"] else 2] += 1
    auc = roc_auc_score(y, x) if 0 < sum(y) < len(y) else float("nan")
    return f"  positions {positions} alternatives {alternatives}: AUROC {auc:.3f} ({len(x)} functions; mutant higher/equal/lower in {wins[0]}/{wins[1]}/{wins[2]} pairs)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--measured", type=Path, help="a full run's results (their tests are reused)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--positions", type=int, default=None, help="places tried (default: the settings'; more keeps a superset for --report)")
    ap.add_argument("--alternatives", type=int, default=None, help="likelier tokens tried at each (default: the settings')")
    ap.add_argument("--model", default=None, help="model path or name (default: the settings' model)")
    ap.add_argument("--report", action="store_true", help="only report from --out, for 1..5 positions and 1..3 alternatives (no model)")
    ap.add_argument("--revalue", action="store_true", help="only rewrite each row's values.swap_gain from its verdicts at the settings' numbers (no model)")
    args = ap.parse_args()
    settings = Settings() if args.model is None else Settings().with_overrides(model={"path": args.model})
    f = settings.functional
    if args.revalue:
        rows = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
        for r in rows:
            r["values"] = {"swap_gain": gain(r, f.swap_positions, f.swap_alternatives)}
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{args.out}: {len(rows)} rows revalued at {f.swap_positions} places, {f.swap_alternatives} alternative(s)")
        return
    if args.report:
        rows = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
        print(f"{args.out}: swap_gain against right/wrong, by the number of places and of alternatives tried")
        for p in range(1, 6):
            for a in range(1, 4):
                print(report(rows, p, a))
        return
    wide = settings.with_overrides(functional={"swap_positions": args.positions or f.swap_positions, "swap_alternatives": args.alternatives or f.swap_alternatives})
    backend = load_model(settings.model)
    samples = SampleCache()

    def measure_one(row: dict, side: str, full: dict) -> dict:
        r = measure(backend, wide, row, side, full, samples)
        return r | {"values": {"swap_gain": gain(r, f.swap_positions, f.swap_alternatives)}}

    for row, side, r in measure_again(read_pairs(DATA, args.split), read_results(args.measured), args.out, measure_one):
        print(f"{row['pair_id']:28s} {side:8s} {len(r.get('variants', []))} swaps, swap_gain {r['values']['swap_gain']} ({r['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
