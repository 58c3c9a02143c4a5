"""Benchmark: how well each signal tells a right function from the same function with one wrong edit.

    .venv/bin/python benchmarks/assess_quality.py [--split tune] [--axes lexical|all] [--limit N] [--stride K]

Reads benchmarks/data/mutant-pairs.jsonl (benchmarks/build_mutants.py: a reference solution of
HumanEval or MBPP 511-974 and a one-edit mutant that fails the official tests). Both functions of
each pair are assessed as a user's function is: MBPP's task is put in as the docstring, the model
sees the problem description and is forced through the function. ``--axes lexical`` scores them
(teacher forcing: seconds a function on a CPU); ``--axes all`` runs the whole assessment (plans,
the code's own plan, self-tests: minutes a function on a CPU). Every result is kept in a JSONL file
beside the data (``--cache``), so a run resumes where it stopped.

Prints, per signal, the AUROC of the uncertainty for "this function fails" over all functions of
the split (0.5: chance), and the share of pairs whose mutant got the higher uncertainty (ties half).
Tune on ``--split tune``; ``--split holdout`` is for the final figures only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from sklearn.metrics import roc_auc_score

from qualm import engine
from qualm.engine.samples import SampleCache
from qualm.lang import PYTHON
from qualm.lang.python.source import with_docstring
from qualm.model import load_model
from qualm.settings import Settings

DATA = Path(__file__).resolve().parent / "data" / "mutant-pairs.jsonl"
LEXICAL = ("top_k_entropy", "max_entropy", "mean_entropy", "mean_probability", "max_probability", "top_k_surprisal", "mean_surprisal", "improbable_tokens")


def prepared(source: str, row: dict) -> str:
    """The function as a user would have it: LF line ends, its task as the docstring (MBPP)."""
    text = source.replace("\r\n", "\n")
    return with_docstring(text, row["entry_point"], row["task"]) if row["dataset"] == "mbpp" else text


def measure(backend, settings: Settings, calibration, row: dict, side: str, axes: str, samples: SampleCache) -> dict:
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    t0 = time.perf_counter()
    detail: dict = {}
    if axes == "lexical":
        lex = engine.score_function(backend, fn, settings).lexical
        out = {f"lexical.{scope}.{k}": getattr(getattr(lex, scope), k) for scope in ("all", "code") for k in LEXICAL}
    else:
        # The pair's two functions share their problem: its plans and tests are decoded once.
        a = engine.assess_function(backend, fn, settings, calibration, samples=samples)
        out = {f"lexical.{scope}.{k}": getattr(getattr(a.lexical_scores, scope), k) for scope in ("all", "code") for k in LEXICAL}
        out |= {"algorithmic": a.algorithmic.raw, "candidate_distance": a.candidate_distance, "functional": a.functional.raw, "ensemble": a.ensemble}
        detail = {
            "tests": [[t.code, t.status] for t in a.tests],
            "dropped_tests": len(a.dropped_tests),
            "plans": [p.text for p in a.plans],
            "candidate_plan": a.candidate_plan.text if a.candidate_plan else None,
            "axis_seconds": {ax.name: ax.seconds for ax in a.axes()},
            "extra": a.extra,
        }
    return {"pair_id": row["pair_id"], "side": side, "axes": axes, "seconds": time.perf_counter() - t0, "values": out, "detail": detail}


def report(rows: list[dict], results: dict[tuple[str, str], dict]) -> None:
    done = [r for r in rows if (r["pair_id"], "original") in results and (r["pair_id"], "mutant") in results]
    if not done:
        print("no pair measured yet")
        return
    signals = sorted({k for v in results.values() for k in v["values"]})
    print(f"{len(done)} pairs ({len(done) * 2} functions); seconds a function: {sum(v['seconds'] for v in results.values()) / len(results):.1f}")
    print(f"{'signal':34} {'AUROC':>6} {'pairs':>6} {'mutant higher':>14}")
    for s in signals:
        ys, us, wins, n = [], [], 0.0, 0
        for r in done:
            o, m = results[(r["pair_id"], "original")]["values"].get(s), results[(r["pair_id"], "mutant")]["values"].get(s)
            if o is None or m is None:
                continue
            ys += [0, 1]
            us += [o, m]
            wins += 1.0 if m > o else 0.5 if m == o else 0.0
            n += 1
        if n and len(set(ys)) == 2:
            print(f"{s:34} {roc_auc_score(ys, us):6.3f} {n:6d} {wins / n:14.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--axes", choices=("lexical", "all"), default="lexical")
    ap.add_argument("--limit", type=int, default=None, help="the first N pairs of the split")
    ap.add_argument("--stride", type=int, default=1, help="every k-th pair only (a quicker look across both data sets)")
    ap.add_argument("--cache", type=Path, default=None, help="results file (default: benchmarks/out/assess-quality-<split>-<axes>.jsonl)")
    ap.add_argument("--n-gpu-layers", type=int, default=0)
    args = ap.parse_args()
    rows = [r for r in map(json.loads, DATA.read_text().splitlines()) if r["split"] == args.split][:: args.stride][: args.limit]
    cache = args.cache or Path(__file__).resolve().parent / "out" / f"assess-quality-{args.split}-{args.axes}.jsonl"
    cache.parent.mkdir(parents=True, exist_ok=True)
    results = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            v = json.loads(line)
            results[(v["pair_id"], v["side"])] = v
    settings = Settings().with_overrides(model={"n_gpu_layers": args.n_gpu_layers})
    backend = load_model(settings.model)
    calibration = engine.calibration_for(backend.info.identity, settings.ensemble)
    print(f"model: {backend.info.name}; split {args.split}, {len(rows)} pairs, axes {args.axes}; results in {cache}", flush=True)
    samples = SampleCache()
    with open(cache, "a") as out:
        for i, row in enumerate(rows):
            for side in ("original", "mutant"):
                if (row["pair_id"], side) in results:
                    continue
                v = measure(backend, settings, calibration, row, side, args.axes, samples)
                results[(row["pair_id"], side)] = v
                out.write(json.dumps(v) + "\n")
                out.flush()
            if (i + 1) % 10 == 0:
                print(f"{i + 1} of {len(rows)} pairs", flush=True)
    report(rows, results)


if __name__ == "__main__":
    main()
