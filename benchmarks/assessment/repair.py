"""The likely fix (issue 55): offered for wrong functions, not for right ones, and does it pass the
hidden tests? Also the fix's line as evidence of the bug's line, the fix's cost, and the test set.
The rules: results/localization/repair-rules.md.

    .venv/bin/python -m benchmarks.assessment.repair testset --out results/localization/test-problems.txt
    .venv/bin/python -m benchmarks.assessment.repair build-test results/localization/test-problems.txt --out results/localization/test-mutants.jsonl
    .venv/bin/python -m benchmarks.assessment.repair run results/localization/tune-mutants.jsonl --problems 20 --out results/localization/tune-repair.jsonl
    .venv/bin/python -m benchmarks.assessment.repair report results/localization/tune-repair.jsonl --lexical results/localization/tune-lexical.jsonl
    .venv/bin/python -m benchmarks.assessment.repair cost results/localization/tune-mutants.jsonl --out results/localization/tune-cost.jsonl
    .venv/bin/python -m benchmarks.assessment.repair cost results/localization/tune-mutants.jsonl --off issue-55 --out results/chance-undecided-3/tune-cost.jsonl

``run`` appends one row a function and condition and resumes; ``report`` prints Markdown.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks.assessment.localization import MIN_LINES, cell, conditions_of
from benchmarks.common.paths import ROOT
from qualm.engine import SampleCache
from qualm.engine.assessment import assess_function
from qualm.engine.calibration import calibration_for
from qualm.evaluation.datasets import Problem, humaneval, mbpp
from qualm.evaluation.labels import official_label
from qualm.evaluation.mutants import LOCALIZATION_KINDS, pairs_for_problem, rows
from qualm.fitting.pairs import prepared
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings

SEED = 55
# The paper replication's records: every MBPP test problem's own generation, scored once (repair-rules.md §1).
REPLICATION_RECORDS = (
    "results/qwen2.5-coder-0.5b/results.json",
    "results/qwen2.5-coder-0.5b/stages/mbpp/results.json",
    "results/qwen2.5-coder-0.5b/stages/mbpp-axes/results.json",
    "results/qwen2.5-coder-0.5b/stages/mbpp-lexical-functional/results.json",
)
MBPP_NAME = re.compile(r"MBPP/(\d+)")
FIX_OFF = {"fix_positions": 0, "fix_line": False}
# What arm A of ``cost`` turns off: the likely fix, or all that issue 55 added to an assessment (the
# fix and the consistent solutions' signals of the chance's third round).
COST_OFF = {"fix": FIX_OFF, "issue-55": {**FIX_OFF, "consistent_solutions": False}}


def seeded(items: Sequence) -> list:
    out = sorted(items)
    random.Random(SEED).shuffle(out)
    return out


def read_jsonl(path: str | Path) -> list[dict]:
    p = Path(path)
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()] if p.exists() else []


# -- the test set ----------------------------------------------------------------------------------


def named_problems(root: Path, skip: Sequence[str] = ()) -> set[int]:
    """MBPP task numbers that a file under results/ or benchmarks/data/ names, the replication's
    records and ``skip`` (paths relative to ``root``) apart."""
    skipped = {root / r for r in (*REPLICATION_RECORDS, *skip)}
    out: set[int] = set()
    for top in (root / "results", root / "benchmarks" / "data"):
        for f in top.rglob("*"):
            if f.is_file() and f not in skipped:
                try:
                    out.update(int(n) for n in MBPP_NAME.findall(f.read_text(errors="ignore")))
                except OSError:
                    continue
    return out


def testset(args: argparse.Namespace) -> None:
    named = named_problems(ROOT)
    free = [int(p.task_id.rsplit("/", 1)[-1]) for p in mbpp(split="test")]
    free = [n for n in free if n not in named]
    Path(args.out).write_text("".join(f"MBPP/{n}\n" for n in seeded(free)))
    print(f"{len(free)} MBPP 11-510 problems named by no result file but the replication's records -> {args.out}")


def build_test(args: argparse.Namespace) -> None:
    problems = {p.task_id: p for p in mbpp(split="test")}
    order = [t for t in Path(args.problems).read_text().split() if t]
    out, kept = [], 0
    for tid in order:
        if kept >= args.count:
            break
        result = pairs_for_problem(problems[tid], per_problem=3, kinds=LOCALIZATION_KINDS, seed=SEED, budget_s=60.0, test_split=True)
        made = list(rows([result]))
        out += made
        kept += bool(made)
        print(f"{tid}: {len(made)} mutants ({kept}/{args.count} problems)", file=sys.stderr, flush=True)
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in out))
    print(f"{len(out)} mutants of {kept} problems; by kind: {dict(Counter(r['kind'] for r in out))}")


# -- run -------------------------------------------------------------------------------------------


def problem_index() -> dict[str, Problem]:
    return {p.task_id: p for p in [*humaneval(), *mbpp(split="all")]}


def functions_of(mutants: Sequence[dict], count: int) -> list[tuple[str, list[dict]]]:
    """The first ``count`` problems in the seeded order: each's right function (``side`` "right",
    from its first mutant's original) and its mutants (``side`` "wrong")."""
    by_task: dict[str, list[dict]] = {}
    for r in mutants:
        by_task.setdefault(r["task_id"], []).append(r)
    out = []
    for tid in seeded(by_task)[:count]:
        first = by_task[tid][0]
        right = {**first, "pair_id": f"{tid}#right", "kind": "right", "mutant": first["original"]}
        out.append((tid, [right | {"side": "right"}, *({**m, "side": "wrong"} for m in by_task[tid])]))
    return out


def same_function(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def repair_settings() -> Settings:
    """As shipped, without what the fix does not read (repair-rules.md §2)."""
    return Settings().with_overrides(ensemble={"weights": {"algorithmic": 0.0}}, functional={"n_solutions": 0})


def repair_one(backend, settings: Settings, problem: Problem, row: dict, samples: SampleCache) -> dict:
    text = prepared(row["mutant"], row)
    fn = PYTHON.find_function(text, row["entry_point"], row["pair_id"])
    original = PYTHON.find_function(prepared(row["original"], row), row["entry_point"], row["pair_id"]).source
    a = assess_function(backend, fn, settings, None, samples=samples)
    fixed = a.fix.fix if a.fix is not None else None
    out = {
        "suspects": [s.line - fn.line + 1 for s in a.suspects],
        "fix_note": a.fix.note if a.fix is not None else None,
        "fix_seconds": round(a.fix.seconds, 3) if a.fix is not None else None,
        "fix_tried": a.fix.tried if a.fix is not None else 0,
        "checks_failed": sum(t.status != "passed" for t in a.tests) + (a.examples.failed or 0 if a.examples is not None else 0),
        "seconds": round(a.seconds, 3),
        "offered": fixed is not None,
    }
    if fixed is None:
        return out
    program = text.replace(fn.source, fixed.candidate.source, 1)
    label = official_label(problem, program, max_tests=None, fail_fast=False)
    return out | {
        "origin": fixed.candidate.origin,
        "fix_line": fixed.candidate.line,
        "replaced": fixed.candidate.replaced,
        "replacement": fixed.candidate.replacement,
        "passes_hidden": label.passed,
        "hidden": f"{label.tests_passed}/{label.tests_total}",
        "true_fix": same_function(fixed.candidate.source, original),
    }


def run(args: argparse.Namespace) -> None:
    mutants = read_jsonl(args.mutants)
    done = {(r["pair_id"], r["condition"]) for r in read_jsonl(args.out)}
    settings = repair_settings()
    backend = load_model(settings.model)
    problems = problem_index()
    started = time.monotonic()
    with Path(args.out).open("a") as f:
        for i, (tid, versions) in enumerate(functions_of(mutants, args.problems)):
            for condition in [c for c, _ in conditions_of(versions[0])]:
                samples = SampleCache()  # one problem and condition: the reference and its mutants share the model's tests
                for row in versions:
                    if (row["pair_id"], condition) in done:
                        continue
                    variant = dict(conditions_of(row))[condition]
                    result = repair_one(backend, settings, problems[tid], variant, samples)
                    keep = {k: row[k] for k in ("pair_id", "task_id", "dataset", "kind", "side")}
                    f.write(json.dumps(keep | {"condition": condition} | result) + "\n")
                    f.flush()
            print(f"{i + 1}/{args.problems} {tid} {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


# -- the cost, A/B interleaved ---------------------------------------------------------------------


def cost(args: argparse.Namespace) -> None:
    mutants = read_jsonl(args.mutants)
    base = Settings()
    arms = {"A": base.with_overrides(functional=COST_OFF[args.off]), "B": base}
    backend = load_model(base.model)
    calibration = calibration_for(backend.info.identity, base.ensemble)
    done = {(r["pair_id"], r["arm"], r["run"]) for r in read_jsonl(args.out)}
    with Path(args.out).open("a") as f:
        for i, (tid, versions) in enumerate(functions_of(mutants, args.problems)):
            row = versions[1]  # the first mutant
            fn = PYTHON.find_function(prepared(row["mutant"], row), row["entry_point"], row["pair_id"])
            for run_no, arm in enumerate("ABBA" if i % 2 == 0 else "BAAB"):
                if (row["pair_id"], arm, run_no) in done:
                    continue
                t0 = time.perf_counter()
                a = assess_function(backend, fn, arms[arm], calibration, samples=SampleCache())
                seconds = time.perf_counter() - t0
                f.write(json.dumps({"pair_id": row["pair_id"], "task_id": tid, "arm": arm, "run": run_no, "seconds": round(seconds, 3), "fix": a.fix.note if a.fix else None}) + "\n")
                f.flush()
                print(f"{tid} {arm} {seconds:.1f} s", file=sys.stderr, flush=True)


# -- report ----------------------------------------------------------------------------------------


def rate(rows_: Sequence[dict], key: Callable[[dict], float]) -> str:
    return cell([key(r) for r in rows_], [r["task_id"] for r in rows_])


def combined_hits(repair_rows: Sequence[dict], lexical: dict[tuple[str, str], dict], measure: str) -> list[dict]:
    """Per wrong function with a lexical row: top-1/top-3 of the lexical ranking and of the combined one."""
    out = []
    for r in repair_rows:
        lx = lexical.get((r["pair_id"], r["condition"]))
        if r["side"] != "wrong" or lx is None:
            continue
        lines = [line for line, _ in lx["ranked"][measure]]
        truth = set(lx["truth"]) & set(lines)
        if len(lines) < MIN_LINES or not truth:
            continue
        combined = ([r["fix_line"]] if r.get("offered") and r["fix_line"] in lines else []) + [x for x in lines if not (r.get("offered") and x == r.get("fix_line"))]
        out.append({
            "task_id": r["task_id"], "lex1": float(lines[0] in truth), "lex3": float(bool(truth & set(lines[:3]))),
            "comb1": float(combined[0] in truth), "comb3": float(bool(truth & set(combined[:3]))),
        })
    return out


def report(args: argparse.Namespace) -> None:
    all_rows = read_jsonl(args.rows)
    lexical = {(r["pair_id"], r["condition"]): r for p in args.lexical for r in read_jsonl(p)}
    print(f"# The likely fix: {len(all_rows)} assessments of {len({r['task_id'] for r in all_rows})} problems\n")
    kinds = sorted({r["kind"] for r in all_rows if r["side"] == "wrong"}, key=lambda k: LOCALIZATION_KINDS.index(k) if k in LOCALIZATION_KINDS else 99)
    subsets = [("all", lambda r: True), ("humaneval", lambda r: r["dataset"] == "humaneval"), ("mbpp", lambda r: r["dataset"] == "mbpp")]
    for condition in sorted({r["condition"] for r in all_rows}):
        print(f"## {condition}\n")
        print("| functions | n | fix offered | offered: passes hidden tests | offered: the true fix |\n|---|---|---|---|---|")
        for title, keep in [*subsets, *((f"kind {k}", lambda r, k=k: r["kind"] == k) for k in kinds)]:
            wrong = [r for r in all_rows if r["condition"] == condition and r["side"] == "wrong" and keep(r)]
            offered = [r for r in wrong if r["offered"]]
            if wrong:
                print(f"| wrong, {title} | {len(wrong)} | {rate(wrong, lambda r: float(r['offered']))} | {rate(offered, lambda r: float(r['passes_hidden']))} ({len(offered)}) | {rate(offered, lambda r: float(r['true_fix']))} |")
        for title, keep in subsets:
            right = [r for r in all_rows if r["condition"] == condition and r["side"] == "right" and keep(r)]
            if right:
                print(f"| **right**, {title}: a false fix | {len(right)} | {rate(right, lambda r: float(r['offered']))} | | |")
        ran = [r["fix_seconds"] for r in all_rows if r["condition"] == condition and r["fix_tried"]]
        print(f"\nFix step: median {np.median(ran) if ran else float('nan'):.2f} s where it ran ({len(ran)} functions); assessment median {np.median([r['seconds'] for r in all_rows if r['condition'] == condition]):.1f} s (the algorithmic axis and the solutions off, repair-rules.md §2).")
        origins = Counter(r["origin"] for r in all_rows if r["condition"] == condition and r["offered"])
        print(f"Fixes by origin: {dict(origins)}.\n")
        for measure in args.measures:
            hits = [h for h in combined_hits([r for r in all_rows if r["condition"] == condition], lexical, measure)]
            if hits:
                print(f"Line, {measure}, {len(hits)} wrong functions with ≥ {MIN_LINES} ranked lines: top-1 lexical {rate(hits, lambda h: h['lex1'])}, combined {rate(hits, lambda h: h['comb1'])}; top-3 lexical {rate(hits, lambda h: h['lex3'])}, combined {rate(hits, lambda h: h['comb3'])}.\n")
    print("Intervals: 95 % bootstrap over problems, 2,000 resamples.")


def report_cost(args: argparse.Namespace) -> None:
    rows_ = read_jsonl(args.rows)
    by = {arm: [r["seconds"] for r in rows_ if r["arm"] == arm] for arm in "AB"}
    ratios = []
    for tid in sorted({r["task_id"] for r in rows_}):
        a = [r["seconds"] for r in rows_ if r["task_id"] == tid and r["arm"] == "A"]
        b = [r["seconds"] for r in rows_ if r["task_id"] == tid and r["arm"] == "B"]
        if a and b:
            ratios.append(np.median(b) / np.median(a))
    ma, mb = np.median(by["A"]), np.median(by["B"])
    print(f"A (off): median {ma:.1f} s over {len(by['A'])} runs; B (as shipped): median {mb:.1f} s over {len(by['B'])} runs.")
    print(f"Growth median(B)/median(A) - 1: {mb / ma - 1:+.1%}; median per-problem ratio {np.median(ratios):.3f} ({len(ratios)} problems).")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("testset")
    t.add_argument("--out", required=True)
    b = sub.add_parser("build-test")
    b.add_argument("problems")
    b.add_argument("--out", required=True)
    b.add_argument("--count", type=int, default=30)
    r = sub.add_parser("run")
    r.add_argument("mutants")
    r.add_argument("--out", required=True)
    r.add_argument("--problems", type=int, required=True)
    c = sub.add_parser("cost")
    c.add_argument("mutants")
    c.add_argument("--out", required=True)
    c.add_argument("--problems", type=int, default=6)
    c.add_argument("--off", choices=sorted(COST_OFF), default="fix", help="what arm A turns off (B: as shipped)")
    p = sub.add_parser("report")
    p.add_argument("rows")
    p.add_argument("--lexical", nargs="*", default=[])
    p.add_argument("--measures", nargs="*", default=["surprisal", "unexpected", "margin"])
    pc = sub.add_parser("report-cost")
    pc.add_argument("rows")
    args = ap.parse_args(argv)
    {"testset": testset, "build-test": build_test, "run": run, "cost": cost, "report": report, "report-cost": report_cost}[args.command](args)


if __name__ == "__main__":
    main()
