"""The chance of passing on the model's own greedy code of tune problems, against the official tests.

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.chance.generated_chance \\
        --out results/chance-of-passing/generated-tune.jsonl --stride 5 [--offset 2]
    .venv/bin/python -m benchmarks.chance.generated_chance --report --out results/chance-of-passing/generated-tune.jsonl

The pairs are a person's code and one-edit mutants of it; the editor also assesses code the model
has just written, where no swap exists (every token of greedy code is the model's likeliest) and
the lexical signal is low everywhere. This measures that kind of code, on problems of the tune split
only (every ``--stride``-th problem of the pairs file's tune split; no holdout problem and never
MBPP 11-510): the greedy solution (the paper's code prompt), its official label, and an assessment
with the shipped settings but the plans off (no plan signal enters the chance). Each row keeps every
signal; ``fit_chance.py --tune-generated`` chooses and fits the chance of passing on these rows and
the tune pairs together, and ``--report`` prints each signal's AUROC here. ``--model`` measures
another model (the 1.5B's rows are in ``results/qwen2.5-coder-1.5b/calibration/``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.common.paths import ROOT
from qualm.engine import assess_function, generate_solution
from qualm.evaluation import datasets
from qualm.evaluation.labels import official_label
from qualm.fitting.calibrate import ReferenceProblem, with_task
from qualm.fitting.chance_fit import check_fit_split
from qualm.fitting.pairs import PAIRS_FILE, read_generated, read_pairs
from qualm.fitting.validation import auroc_fails
from qualm.lang import PYTHON, FunctionSource, SourceError
from qualm.model import load_model
from qualm.settings import Settings
from qualm_sandbox import SandboxConfig

DATA = ROOT / PAIRS_FILE


def tune_problems(stride: int, offset: int = 0):
    tune = sorted({r["task_id"] for r in read_pairs(DATA, "tune")}, key=lambda t: (t.split("/")[0], int(t.split("/")[1])))
    check_fit_split(tune)
    chosen = set(tune[offset::stride])
    problems = datasets.humaneval() + datasets.mbpp(split="calibration")
    return [p for p in problems if p.task_id in chosen]


def greedy_function(code: str, problem) -> FunctionSource:
    """The problem's function in the model's code, with the task as its docstring where it has none
    (as a user's function carries its task); SourceError where the code has no such function."""
    return PYTHON.find_function(with_task(code, ReferenceProblem(problem.task_id, problem.prompt, problem.entry_point)), problem.entry_point, problem.task_id)


def measure(backend, settings: Settings, problem) -> dict:
    t0 = time.perf_counter()
    trace = generate_solution(backend, problem.prompt, settings)
    label = official_label(problem, trace.text, SandboxConfig(timeout=settings.functional.timeout, mode=settings.functional.sandbox_mode))
    row = {"task_id": problem.task_id, "passed": label.passed, "label": label.detail, "code": trace.text}
    try:
        fn = greedy_function(trace.text, problem)
    except SourceError as exc:
        return row | {"values": None, "note": str(exc), "seconds": time.perf_counter() - t0}
    a = assess_function(backend, fn, settings, None)
    swaps = a.swaps
    return row | {"values": a.extra["signals"], "swaps_tried": len(swaps.outcomes) if swaps else None, "seconds": time.perf_counter() - t0}


def report(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    generated = read_generated(out)
    print(f"{out}: {len(generated)} greedy solutions of tune problems, {sum(e.passed for e in generated)} pass the official tests")
    print(f"  swaps tried on {sum(bool(r.get('swaps_tried')) for r in rows)} of them")
    for name in ("lexical.all.max_surprisal", "lexical.all.blended_surprisal", "functional", "functional_weighted", "swap_gain"):
        auc, n = auroc_fails(generated, [e.signals.get(name) for e in generated])
        print(f"  {name:32} AUROC {auc if auc is not None else float('nan'):.3f} ({n})")
    print("the chance of passing is chosen and fitted on these with the tune pairs: benchmarks/chance/fit_chance.py --tune-generated")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--stride", type=int, default=5)
    ap.add_argument("--offset", type=int, default=0, help="start at this tune problem (another --offset, other problems)")
    ap.add_argument("--report", action="store_true", help="only the report from --out (no model)")
    ap.add_argument("--model", default=None, help="model path or name (default: the settings' model)")
    args = ap.parse_args()
    if args.report:
        report(args.out)
        return
    settings = Settings().with_overrides(ensemble={"weights": {"lexical": 0.2, "algorithmic": 0.0, "functional": 0.4}})
    if args.model is not None:
        settings = settings.with_overrides(model={"path": args.model})
    done = {json.loads(line)["task_id"] for line in args.out.read_text().splitlines() if line.strip()} if args.out.exists() else set()
    backend = load_model(settings.model)
    with open(args.out, "a") as out:
        for problem in tune_problems(args.stride, args.offset):
            if problem.task_id in done:
                continue
            row = measure(backend, settings, problem)
            out.write(json.dumps(row) + "\n")
            out.flush()
            v = row.get("values") or {}
            print(f"{problem.task_id:14s} passed {row['passed']!s:5s} fw {v.get('functional_weighted')} swap {v.get('swap_gain')} ({row['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
