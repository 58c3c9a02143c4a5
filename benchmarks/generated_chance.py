"""The chance of passing on the model's own greedy code of tune problems, against the official tests.

    flock /tmp/qualm-model.lock .venv/bin/python benchmarks/generated_chance.py \\
        --out results/assess-quality/generated-tune.jsonl --stride 5
    .venv/bin/python benchmarks/generated_chance.py --report --out results/assess-quality/generated-tune.jsonl

The pairs are a person's code and one-edit mutants of it; the editor also assesses code the model
has just written, where no swap exists (every token of greedy code is the model's likeliest) and
the lexical signal is low everywhere. This measures the candidate pass models there, on problems of
the tune split only (every ``--stride``-th problem of the pairs file's tune split; no holdout problem
and never MBPP 11-510): the greedy solution (the paper's code prompt), its official label, and an
assessment with the shipped settings but the plans off (no plan signal enters the chance). Each row
keeps every signal, so ``--report`` fits each candidate on the pairs' tune split (as
``fit_chance.py`` does) and scores it here: AUROC, Brier, ECE and log-loss.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace
from pathlib import Path

from qualm.calibrate import ReferenceProblem, with_task
from qualm.calibrate_pairs import CANDIDATE_FEATURES, FALLBACK_FEATURES, auroc_fails, cross_validate, examples_of, read_pairs, read_results
from qualm.chance_fit import Example, check_fit_split, fit_pass_model, reliability
from qualm.engine import assess_function, generate_solution
from qualm.evaluation import datasets
from qualm.evaluation.labels import official_label
from qualm.lang import PYTHON, SourceError
from qualm.model import load_model
from qualm.settings import Settings
from qualm_sandbox import SandboxConfig

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "mutant-pairs.jsonl"
R = HERE.parent / "results" / "assess-quality"


def tune_problems(stride: int):
    tune = sorted({r["task_id"] for r in read_pairs(DATA, "tune")}, key=lambda t: (t.split("/")[0], int(t.split("/")[1])))
    check_fit_split(tune)
    chosen = set(tune[::stride])
    problems = datasets.humaneval() + datasets.mbpp(split="calibration")
    return [p for p in problems if p.task_id in chosen]


def measure(backend, settings: Settings, problem) -> dict:
    t0 = time.perf_counter()
    trace = generate_solution(backend, problem.prompt, settings)
    label = official_label(problem, trace.text, SandboxConfig(timeout=settings.functional.timeout, mode=settings.functional.sandbox_mode))
    row = {"task_id": problem.task_id, "passed": label.passed, "label": label.detail, "code": trace.text}
    try:
        fn = PYTHON.find_function(with_task(trace.text, ReferenceProblem(problem.task_id, problem.prompt, problem.entry_point)), problem.entry_point, problem.task_id)
    except SourceError as exc:
        return row | {"values": None, "note": str(exc), "seconds": time.perf_counter() - t0}
    a = assess_function(backend, fn, settings, None)
    swaps = a.swaps
    return row | {"values": a.extra["signals"], "swaps_tried": len(swaps.outcomes) if swaps else None, "seconds": time.perf_counter() - t0}


def report(out: Path) -> None:
    from fit_chance import with_extra, with_lexical  # the same tune rows as the shipped fit

    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    generated = [Example(r["task_id"], r["values"], r["passed"]) for r in rows if r.get("values")]
    tune_rows = with_extra(
        with_lexical(read_results(R / "assess-quality-tune-all.jsonl"), R / "assess-quality-tune-lexical-score-batch-64.jsonl", True),
        [R / "assess-quality-tune-solutions.jsonl", R / "swap-signals-tune.jsonl"],
    )
    tune = examples_of(read_pairs(DATA, "tune"), tune_rows)
    print(f"{out}: {len(generated)} greedy solutions of tune problems, {sum(e.passed for e in generated)} pass the official tests")
    print(f"  swaps tried on {sum(bool(r.get('swaps_tried')) for r in rows)} of them")
    for name in ("lexical.all.max_surprisal", "lexical.all.blended_surprisal", "functional", "functional_weighted", "swap_gain"):
        auc, n = auroc_fails(generated, [e.signals.get(name) for e in generated])
        print(f"  {name:32} AUROC {auc if auc is not None else float('nan'):.3f} ({n})")
    print("\ncandidate pass models fitted on the tune pairs, scored here (plan signals left out: the plans were off)")
    print(f"  {'signals':80} {'AUROC':>6} {'Brier':>6} {'ECE':>6} {'logloss':>8} {'pairs CV':>8} {'mean':>8}")
    present = {name for e in tune for name, v in e.signals.items() if v is not None}
    fallback = fit_pass_model(tune, ("lexical.all.blended_surprisal",), "tune")
    means = []
    for features in CANDIDATE_FEATURES + FALLBACK_FEATURES:
        if not set(features) <= present or {"algorithmic", "candidate_distance"} & set(features):
            continue
        model = fit_pass_model(tune, features, "tune")
        if not any(f.startswith("lexical.") for f in features):
            model = replace(model, fallback=fallback)
        chances = [model.probability(e.signals) for e in generated]
        pairs = [(p, e.passed) for p, e in zip(chances, generated) if p is not None]
        auc, _ = auroc_fails(generated, [None if p is None else 1 - p for p in chances])
        rel = reliability([p for p, _ in pairs], [y for _, y in pairs])
        loss = sum(-math.log(max(1e-6, p if y else 1 - p)) for p, y in pairs) / len(pairs)
        cv = cross_validate(tune, features).logloss
        means.append(((loss + cv) / 2, features))
        print(f"  {', '.join(features):80} {auc if auc is not None else float('nan'):6.3f} {rel.brier:6.3f} {rel.ece:6.3f} {loss:8.4f} {cv:8.4f} {(loss + cv) / 2:8.4f}")
    best = min(means)
    print(f"  the lowest mean of the two log-losses (code in the file, code the model wrote): {', '.join(best[1])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--stride", type=int, default=5)
    ap.add_argument("--report", action="store_true", help="only the report from --out (no model)")
    args = ap.parse_args()
    if args.report:
        report(args.out)
        return
    settings = Settings().with_overrides(ensemble={"weights": {"lexical": 0.2, "algorithmic": 0.0, "functional": 0.4}})
    done = {json.loads(line)["task_id"] for line in args.out.read_text().splitlines() if line.strip()} if args.out.exists() else set()
    backend = load_model(settings.model)
    with open(args.out, "a") as out:
        for problem in tune_problems(args.stride):
            if problem.task_id in done:
                continue
            row = measure(backend, settings, problem)
            out.write(json.dumps(row) + "\n")
            out.flush()
            v = row.get("values") or {}
            print(f"{problem.task_id:14s} passed {row['passed']!s:5s} fw {v.get('functional_weighted')} swap {v.get('swap_gain')} ({row['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
