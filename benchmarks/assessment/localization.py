"""Which line is the bug's (issue 55): mutants of tune problems, the model's teacher-forced pass over
each, its body lines ranked by each measure of ``qualm.signals.suspicion``. The rules:
results/localization/rules.md.

    .venv/bin/python -m benchmarks.assessment.localization build --out results/localization/tune-mutants.jsonl [--jobs 2]
    .venv/bin/python -m benchmarks.assessment.localization run results/localization/tune-mutants.jsonl --out results/localization/tune-lexical.jsonl
    .venv/bin/python -m benchmarks.assessment.localization report results/localization/tune-lexical.jsonl

``build`` writes one mutant a line (the fields of ``qualm.evaluation.mutants.pairs_for_problem``);
``run`` appends one row a mutant and condition (resumes); ``report`` prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

from benchmarks.completion.realcode_metrics import bootstrap_over_groups
from qualm.engine.scoring import score_function
from qualm.evaluation.datasets import humaneval, mbpp
from qualm.evaluation.mutants import LOCALIZATION_KINDS, build_pairs, rows
from qualm.fitting.pairs import prepared
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings
from qualm.signals.suspicion import MEASURES, suspect_lines

MIN_LINES = 4  # functions with fewer ranked lines are counted, not ranked (issue 55's done-when)
EXAMPLE_SENTENCE = re.compile(r"\n?Your code should pass (this|these) tests?:.*\Z", re.S)


# -- the truth ------------------------------------------------------------------------------------


def truth_lines(original: str, mutant: str) -> set[int]:
    """The bug's 1-based lines in ``mutant`` (rules.md, "The function and the truth")."""
    a, b = original.split("\n"), mutant.split("\n")
    out: set[int] = set()
    for tag, _i1, _i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
        if tag == "delete":
            out.update(n for n in (j1, j1 + 1) if 1 <= n <= len(b))
        if tag == "insert":  # a duplicated statement: its twin beside it is the bug's line too
            k = j2 - j1
            for twin in (range(j1 - k, j1), range(j2, j2 + k)):
                if twin.start >= 0 and twin.stop <= len(b) and b[twin.start : twin.stop] == b[j1:j2]:
                    out.update(n + 1 for n in twin)
    return out


def random_hits(n: int, h: int) -> tuple[float, float]:
    """A random order's expected top-1 and top-3 with ``h`` of ``n`` lines the bug's."""
    if n <= 0:
        return 0.0, 0.0
    top3 = 1.0 - (math.comb(n - h, 3) / math.comb(n, 3) if n >= 3 else float(h == 0))
    return h / n, top3


def without_example(task: str) -> str:
    return EXAMPLE_SENTENCE.sub("", task)


# -- build, run ----------------------------------------------------------------------------------


def build(args: argparse.Namespace) -> None:
    problems = [*humaneval(), *mbpp(split="calibration")][: args.limit]
    started = time.monotonic()
    done = []

    def on_problem(r) -> None:
        done.append(r)
        if len(done) % 25 == 0:
            print(f"{len(done)}/{len(problems)} problems, {sum(len(x.rows) for x in done)} mutants, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    results = build_pairs(problems, per_problem=3, kinds=LOCALIZATION_KINDS, seed=55, budget_s=60.0, jobs=args.jobs, on_problem=on_problem)
    out = list(rows(results))
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in out))
    print(f"{len(out)} mutants of {sum(1 for r in results if r.rows)} problems; by kind: {dict(Counter(r['kind'] for r in out))}")


def conditions_of(row: dict) -> list[tuple[str, dict]]:
    if row["dataset"] == "mbpp":
        return [("examples", row), ("no-examples", {**row, "task": without_example(row["task"])})]
    return [("examples", row)]


def rank_one(backend, settings: Settings, row: dict) -> dict:
    mutant, original = prepared(row["mutant"], row), prepared(row["original"], row)
    fn = PYTHON.find_function(mutant, row["entry_point"], row["pair_id"])
    truth = {n - fn.line + 1 for n in truth_lines(original, mutant) if fn.line <= n <= fn.line + fn.source.count("\n")}
    t0 = time.perf_counter()
    scored = score_function(backend, fn, settings)
    ranked = {m: [[s.line, round(s.score, 4)] for s in suspect_lines(scored.trace, fn.source, fn.body_offset, m)] for m in MEASURES}
    return {"truth": sorted(truth), "ranked": ranked, "seconds": round(time.perf_counter() - t0, 3)}


def run(args: argparse.Namespace) -> None:
    mutants = [json.loads(line) for line in Path(args.mutants).read_text().splitlines() if line.strip()][: args.limit]
    out = Path(args.out)
    done = {(r["pair_id"], r["condition"]) for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    settings = Settings()
    backend = load_model(settings.model)
    started = time.monotonic()
    with out.open("a") as f:
        for i, row in enumerate(mutants):
            for condition, variant in conditions_of(row):
                if (row["pair_id"], condition) in done:
                    continue
                result = rank_one(backend, settings, variant)
                f.write(json.dumps({"pair_id": row["pair_id"], "task_id": row["task_id"], "dataset": row["dataset"], "kind": row["kind"], "condition": condition, **result}) + "\n")
                f.flush()
            print(f"{i + 1}/{len(mutants)} {row['pair_id']} {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


# -- report --------------------------------------------------------------------------------------


def scored_rows(rows_: Sequence[dict], measure: str) -> list[dict]:
    """Per usable row: top-1, top-3 and the random order's, for ``measure``."""
    out = []
    for r in rows_:
        lines = [line for line, _ in r["ranked"][measure]]
        truth = set(r["truth"]) & set(lines)
        if len(lines) < MIN_LINES or not truth:
            continue
        r1, r3 = random_hits(len(lines), len(truth))
        out.append({"task_id": r["task_id"], "kind": r["kind"], "top1": float(lines[0] in truth), "top3": float(bool(truth & set(lines[:3]))), "random1": r1, "random3": r3})
    return out


def cell(values: Sequence[float], groups: Sequence[str]) -> str:
    if not values:
        return "-"
    mean, lo, hi = bootstrap_over_groups(values, groups, resamples=2000, seed=0)
    return f"{mean:.3f} ({lo:.3f}-{hi:.3f})"


def report(args: argparse.Namespace) -> None:
    all_rows = [json.loads(line) for p in args.rows for line in Path(p).read_text().splitlines() if line.strip()]
    print(f"# Localization: {len({r['pair_id'] for r in all_rows})} mutants of {len({r['task_id'] for r in all_rows})} problems\n")
    subsets = [("all", lambda r: True), ("humaneval", lambda r: r["dataset"] == "humaneval"), ("mbpp", lambda r: r["dataset"] == "mbpp")]
    subsets += [(f"kind {k}", lambda r, k=k: r["kind"] == k) for k in LOCALIZATION_KINDS]
    for condition in sorted({r["condition"] for r in all_rows}):
        for title, keep in subsets:
            picked = [r for r in all_rows if r["condition"] == condition and keep(r)]
            if not picked:
                continue
            counted = scored_rows(picked, MEASURES[0])
            print(f"## {condition}, {title}: {len(counted)} functions ranked of {len(picked)} ({len({r['task_id'] for r in counted})} problems)\n")
            print("| measure | top-1 | top-3 |\n|---|---|---|")
            for m in MEASURES:
                s = scored_rows(picked, m)
                g = [x["task_id"] for x in s]
                print(f"| {m} | {cell([x['top1'] for x in s], g)} | {cell([x['top3'] for x in s], g)} |")
            g = [x["task_id"] for x in counted]
            print(f"| random order (expected) | {cell([x['random1'] for x in counted], g)} | {cell([x['random3'] for x in counted], g)} |\n")
    skipped = Counter("under 4 lines" if len(r["ranked"][MEASURES[0]]) < MIN_LINES else "bug not on a ranked line" for r in all_rows if not scored_rows([r], MEASURES[0]))
    print(f"Not ranked: {dict(skipped)}. Seconds per teacher-forced pass: median {np.median([r['seconds'] for r in all_rows]):.2f}.")
    print("Intervals: 95 % bootstrap over problems, 2,000 resamples.")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    b.add_argument("--limit", type=int)
    b.add_argument("--jobs", type=int, default=1)
    r = sub.add_parser("run")
    r.add_argument("mutants")
    r.add_argument("--out", required=True)
    r.add_argument("--limit", type=int)
    p = sub.add_parser("report")
    p.add_argument("rows", nargs="+")
    args = ap.parse_args(argv)
    {"build": build, "run": run, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
