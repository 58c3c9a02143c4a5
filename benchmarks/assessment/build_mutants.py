"""Build the right/wrong function pairs (issue 23, item 5): each reference solution of HumanEval and
MBPP task_ids 511-974, and up to two single-edit mutants of it that fail the official tests
(``qualm.evaluation.mutants``), with each problem's tune/holdout split.

    .venv/bin/python -m benchmarks.assessment.build_mutants [--limit N] [--out benchmarks/data/mutant-pairs.jsonl] [--jobs N]

``--limit N`` keeps the first N problems of each data set (a quick run). ``--test-split N`` builds
a test set instead: one pair each of N MBPP 11-510 problems drawn with ``--order-seed``, in the
drawn order, split "test" (a fit refuses them; only a held-out measurement reads them; ``--out``
must name another file than the pairs file). MBPP 11-510 (the
evaluation's test split) and 1-10 (prompt examples) are never loaded: the MBPP loader is asked for
the "calibration" split only, and ``build_pairs`` refuses them anyway. The figures go to stdout;
the pairs to ``--out``, one JSON object a line (fields in benchmarks/data/README.md).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import time
from pathlib import Path

from benchmarks.common.paths import ROOT
from qualm.evaluation.datasets import humaneval, mbpp
from qualm.evaluation.mutants import DEFAULT_BUDGET_S, DEFAULT_PER_PROBLEM, KINDS, ProblemPairs, build_pairs, rows
from qualm.fitting.pairs import PAIRS_FILE

DEFAULT_OUT = ROOT / PAIRS_FILE


def figures(results: list[ProblemPairs], label: str) -> list[str]:
    pairs = [row for r in results for row in r.rows]
    status = collections.Counter(r.status for r in results)
    kinds = collections.Counter(row["kind"] for row in pairs)
    outcomes = collections.Counter(row["mutant_status"] for row in pairs)
    split_problems = collections.Counter(r.split for r in results if r.rows)
    split_pairs = collections.Counter(row["split"] for row in pairs)
    failed_refs = [r.task_id for r in results if r.status == "reference_failed"]
    lines = [
        f"== {label}",
        f"problems used: {len(results)}",
        f"reference failures (skipped): {len(failed_refs)}{' (' + ', '.join(failed_refs) + ')' if failed_refs else ''}",
        f"problems without any candidate mutant: {status['no_candidates']}",
        f"problems whose tried mutants all passed: {status['no_failing_mutant']}",
        f"problems with at least one pair: {sum(1 for r in results if r.rows)} (two pairs: {sum(1 for r in results if len(r.rows) >= 2)})",
        f"problems that ran out of time: {sum(r.out_of_time for r in results)}",
        f"candidate mutants: {sum(r.candidates for r in results)}; tried: {sum(r.tried for r in results)}; "
        f"equivalent (passed the official tests, discarded): {sum(r.equivalent for r in results)}",
        f"pairs: {len(pairs)}; per kind: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS),
        "mutant outcome: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())),
        f"split, problems with pairs: tune {split_problems['tune']}, holdout {split_problems['holdout']}; "
        f"pairs: tune {split_pairs['tune']}, holdout {split_pairs['holdout']}",
    ]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="first N problems of each data set")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--jobs", type=int, default=1, help="problems labelled at a time")
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="seconds per problem, reference included")
    ap.add_argument("--per-problem", type=int, default=DEFAULT_PER_PROBLEM)
    ap.add_argument("--datasets", default="humaneval,mbpp", help="comma-separated: humaneval, mbpp (511-974)")
    ap.add_argument("--test-split", type=int, default=None, metavar="N", help="a test set: N problems of MBPP 11-510, one pair each")
    ap.add_argument("--order-seed", type=int, default=20261128, help="--test-split: the draw's seed (random.Random(seed).sample)")
    args = ap.parse_args()
    if args.test_split is not None:
        test_set(args)
        return

    started = time.monotonic()
    wanted = [d.strip() for d in args.datasets.split(",") if d.strip()]
    loaders = {"humaneval": humaneval, "mbpp": lambda: mbpp(split="calibration")}
    unknown = [d for d in wanted if d not in loaders]
    if unknown:
        sys.exit(f"unknown data set(s): {', '.join(unknown)} (humaneval, mbpp)")
    problems = []
    for name in wanted:
        loaded = loaders[name]()
        problems += loaded if args.limit is None else loaded[: args.limit]
    print(f"{len(problems)} problems ({', '.join(wanted)}), jobs {args.jobs}, budget {args.budget:g} s a problem", flush=True)

    done = 0

    def progress(r: ProblemPairs) -> None:
        nonlocal done
        done += 1
        kinds = ", ".join(row["kind"] for row in r.rows) or "-"
        print(f"[{done}/{len(problems)}] {r.task_id} {r.split} {r.status}: {len(r.rows)} pair(s) ({kinds}); "
              f"{r.tried} tried of {r.candidates}, {r.equivalent} equivalent, {r.seconds:.1f} s", flush=True)

    results = build_pairs(problems, per_problem=args.per_problem, budget_s=args.budget, jobs=args.jobs, on_problem=progress)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(args.out.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for row in rows(results):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, args.out)
    wall = time.monotonic() - started

    print()
    for name in wanted:
        print("\n".join(figures([r for r in results if r.dataset == name], name)))
    if len(wanted) > 1:
        print("\n".join(figures(results, "all")))
    print(f"wall time: {wall:.0f} s ({args.jobs} job(s)); written: {args.out} ({sum(len(r.rows) for r in results)} rows)")


def test_set(args: argparse.Namespace) -> None:
    """One pair each of ``args.test_split`` MBPP 11-510 problems, in the seeded draw's order."""
    if args.out.resolve() == DEFAULT_OUT.resolve():
        sys.exit("--test-split writes a test set: give --out another file than the tune/holdout pairs")
    by_number = {int(p.task_id.split("/")[1]): p for p in mbpp(split="test")}
    order = random.Random(args.order_seed).sample(range(11, 511), args.test_split)
    problems = [by_number[n] for n in order if n in by_number]
    print(f"{len(problems)} MBPP 11-510 problems drawn (seed {args.order_seed}), one pair each", flush=True)
    results = build_pairs(problems, per_problem=1, budget_s=args.budget, jobs=args.jobs, test_split=True,
                          on_problem=lambda r: print(f"{r.task_id} {r.status}: {len(r.rows)} pair(s), {r.seconds:.1f} s", flush=True))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for row in rows(results):  # build_pairs keeps the problems' (the draw's) order
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print("\n".join(figures(results, "test set")))
    print(f"written: {args.out} ({sum(len(r.rows) for r in results)} pairs)")


if __name__ == "__main__":
    main()
