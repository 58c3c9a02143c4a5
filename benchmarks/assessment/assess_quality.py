"""Benchmark: how well each signal tells a right function from the same function with one wrong edit.

    .venv/bin/python -m benchmarks.assessment.assess_quality [--split tune] [--axes lexical|all] [--limit N] [--stride K]
        [--pairs-of RESULTS.jsonl] [--using-definitions] [--seed S]

Reads benchmarks/data/mutant-pairs.jsonl (benchmarks/assessment/build_mutants.py: a reference solution of
HumanEval or MBPP 511-974 and a one-edit mutant that fails the official tests). Both functions of
each pair are assessed as a user's function is (``qualm.fitting.measure.measure``): MBPP's task is
put in as the docstring, the model sees the problem description and is forced through the function.
``--axes lexical`` scores them (teacher forcing: seconds a function on a CPU); ``--axes all`` runs
the whole assessment with the settings' defaults (plans, the code's own plan, self-tests; the
pair's two functions share the plans and tests). Every result is kept in a JSONL file
(``--cache``), so a run resumes where it stopped; ``benchmarks/chance/fit_chance.py`` reads the same files.

Prints, per signal, the AUROC of the uncertainty for "this function fails" over all functions of
the split (0.5: chance), and the share of pairs whose mutant got the higher uncertainty (ties half).
Tune on ``--split tune``; ``--split holdout`` is for the final figures only. ``--pairs FILE``
reads another pairs file of the split (``undecided_pairs.py --split tune``); ``--split test
--pairs FILE`` measures a test set (``build_mutants.py --test-split``) in its order; ``--until
HH:MM`` (UTC) starts no new pair after that time (a rule's deadline).
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from benchmarks.common.paths import OUT, ROOT
from qualm.chance import PassModel
from qualm.engine import calibration_for
from qualm.fitting.measure import measure_pairs
from qualm.fitting.pairs import PAIRS_FILE, examples_of, prepared, read_pairs, read_results, read_test_pairs
from qualm.fitting.validation import auroc_fails, pair_doubts, pairs_auroc_interval
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings

DATA = ROOT / PAIRS_FILE


def report(rows: list[dict], results: dict[tuple[str, str], dict], pass_model: PassModel | None = None) -> None:
    examples = examples_of(rows, results)
    if not examples:
        print("no pair measured yet")
        return
    done = [r for r in rows if (r["pair_id"], "original") in results and (r["pair_id"], "mutant") in results]
    seconds = [results[(r["pair_id"], s)]["seconds"] for r in done for s in ("original", "mutant")]
    print(f"{len(done)} pairs ({len(examples)} functions); seconds a function: {sum(seconds) / len(seconds):.1f}")
    print(f"{'signal':34} {'AUROC':>6} {'pairs':>6} {'mutant higher':>14}")
    signals = sorted({k for e in examples for k in e.signals})
    for s in signals:
        auc, _ = auroc_fails(examples, [e.signals.get(s) for e in examples])
        wins, n = 0.0, 0
        for r in done:
            o, m = results[(r["pair_id"], "original")]["values"].get(s), results[(r["pair_id"], "mutant")]["values"].get(s)
            if o is None or m is None:
                continue
            wins += 1.0 if m > o else 0.5 if m == o else 0.0
            n += 1
        if n and auc is not None:
            print(f"{s:34} {auc:6.3f} {n:6d} {wins / n:14.3f}")
    if pass_model is not None:
        # the headline, from the calibration file's pass model (fitted on the tune split: on tune
        # pairs this figure is in-sample, on holdout pairs it is the honest one)
        chances = [pass_model.probability(e.signals) for e in examples]
        doubt = [None if c is None else 1 - c for c in chances]
        auc, n = auroc_fails(examples, doubt)
        print(f"{'headline: 1 - chance of passing':34} {auc:6.3f} {n // 2:6d}")
        ci = pairs_auroc_interval(pair_doubts(examples, doubt))
        print(f"  95 % bootstrap interval over the pairs: {ci or '- (fewer than two pairs)'}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=("tune", "holdout", "test"), default="tune")
    ap.add_argument("--pairs", type=Path, default=None, help="the pairs file (needed with --split test; default for the others: benchmarks/data/mutant-pairs.jsonl)")
    ap.add_argument("--until", default=None, help="HH:MM UTC: start no new pair after it")
    ap.add_argument("--axes", choices=("lexical", "all"), default="lexical")
    ap.add_argument("--limit", type=int, default=None, help="the first N pairs of the split")
    ap.add_argument("--stride", type=int, default=1, help="every k-th pair only (a quicker look across both data sets)")
    ap.add_argument("--cache", type=Path, default=None, help="results file (default: benchmarks/out/assess-quality-<split>-<axes>.jsonl)")
    ap.add_argument("--pairs-of", type=Path, default=None, help="only the pairs a results file holds (to measure them again)")
    ap.add_argument("--using-definitions", action="store_true", help="only pairs whose function uses another definition of its file (a helper, a class, a constant)")
    ap.add_argument("--n-gpu-layers", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None, help="the model's threads (default: every core)")
    ap.add_argument("--model", default=None, help="model path or name (default: the settings' model)")
    ap.add_argument("--seed", type=int, default=None, help="generation seed (default: the settings'): the same pairs drawn again, to see how far a figure moves between draws")
    args = ap.parse_args()
    if args.split == "test":
        if args.pairs is None:
            ap.error("--split test needs --pairs (a file of build_mutants.py --test-split)")
        rows = read_test_pairs(args.pairs)[:: args.stride][: args.limit]
    else:
        rows = read_pairs(args.pairs or DATA, args.split, args.stride, args.limit)
    if args.pairs_of is not None:
        wanted = {pair_id for pair_id, _ in read_results(args.pairs_of)}
        rows = [r for r in rows if r["pair_id"] in wanted]
    if args.using_definitions:
        rows = [r for r in rows if PYTHON.find_function(prepared(r["original"], r), r["entry_point"]).support_names]
    cache = args.cache or OUT / f"assess-quality-{args.split}-{args.axes}.jsonl"
    model = {"n_gpu_layers": args.n_gpu_layers} | ({"path": args.model} if args.model else {}) | ({"n_threads": args.threads} if args.threads else {})
    settings = Settings().with_overrides(model=model)
    if args.seed is not None:
        settings = settings.with_overrides(generation={"seed": args.seed})
    backend = load_model(settings.model)
    print(f"model: {backend.info.name}; split {args.split}, {len(rows)} pairs, axes {args.axes}; results in {cache}", flush=True)

    def progress(i: int, row: dict, v: dict) -> None:
        if v["side"] == "mutant" and (i + 1) % 10 == 0:
            print(f"{i + 1} of {len(rows)} pairs", flush=True)

    if args.until is None:
        results = measure_pairs(backend, settings, rows, cache, lexical_only=args.axes == "lexical", on_function=progress)
    else:
        hour, minute = map(int, args.until.split(":"))
        deadline = dt.datetime.now(dt.timezone.utc).replace(hour=hour, minute=minute, second=0, microsecond=0)
        results = read_results(cache) if cache.exists() else {}
        for i, row in enumerate(rows):
            if dt.datetime.now(dt.timezone.utc) >= deadline:
                print(f"{args.until} UTC passed: no new pair started after {i} of {len(rows)}", flush=True)
                rows = rows[:i]
                break
            results = measure_pairs(backend, settings, [row], cache, lexical_only=args.axes == "lexical")
            print(f"{i + 1} of {len(rows)} pairs ({dt.datetime.now(dt.timezone.utc):%H:%M})", flush=True)
    if args.split == "test":
        # A test set's figures are computed once, by its own report, after the choice is final.
        done = sum((r["pair_id"], "mutant") in results for r in rows)
        print(f"{done} test pairs measured; no figure computed here")
        return
    calibration = calibration_for(backend.info.identity, settings.ensemble)
    report(rows, results, calibration.pass_model if calibration is not None and args.axes == "all" else None)


if __name__ == "__main__":
    main()
