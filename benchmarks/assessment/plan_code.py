"""Does the code behave like the model's plans? Each sampled plan is implemented, and the code's
answers on its tests are compared with each plan's implementation's.

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.assessment.plan_code \\
        results/chance-of-passing/assess-quality-tune-all.jsonl --cache benchmarks/out/plan-code-tune.jsonl

The shipped candidate-aware algorithmic score compares the code's own plan with the sampled plans
as text (step-aware ROUGE-L) and is at chance on the right/wrong pairs: a small model's account of
code describes the task, not a one-token edit (``candidate_plan_variants.py``,
``candidate_plan_code_only.py``); the plans as conditions of the code's token probabilities add
nothing beyond the lexical signal (``plan_conditioned.py``). This asks the plans through behaviour
instead: for each of the N plans a full run stored, the model writes the function following that
plan (greedy, the solutions' prompt and budget with "Follow this plan:" and the plan appended), the
code's tests run on the code and on each plan's implementation (``qualm.engine.plan_programs``,
the engine's own jobs; ``algorithmic.plan_programs`` turns it on in an assessment), and per function:

* ``plan_agreement`` = 1 - the mean share of test inputs where a plan's implementation answers as
  the code does (``qualm.signals.agreement.agreement``, the plans' programs as the solutions);
* ``plan_weighted`` = the code's failed share of its tests, each weighted by the share of plans whose
  implementation passes it (``weighted_functional``).

Each function goes through the engine's own check (``check_against_solutions`` with the plans'
jobs, each program within twice the per-test limit), as an assessment does.

Reads the plans and tests a full run stored (``assess_quality.py --axes all``): no plan is decoded
here. Both functions of a pair share the plans, so their implementations are decoded once.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.common.pair_tokens import SIDES, measured, model_loader, with_plans
from qualm.engine import SampleCache
from qualm.engine.plan_programs import plan_program_jobs
from qualm.engine.solutions import check_against_solutions
from qualm.fitting.chance_fit import Example
from qualm.fitting.pairs import prepared
from qualm.fitting.validation import auroc_fails
from qualm.lang import PYTHON
from qualm.settings import Settings
from qualm.signals.agreement import run_probes
from qualm_sandbox import SandboxConfig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=Path, help="a full run's results (assess_quality.py --axes all)")
    ap.add_argument("--split", default="tune", choices=("tune", "holdout"))
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--programs", type=int, default=None, help="only the first this many plans written as code (default: every plan)")
    args = ap.parse_args()
    settings = Settings()
    f = settings.functional
    config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
    rows, plans = with_plans(args.rows, args.split)
    tests_of = {}
    for line in args.rows.read_text().splitlines():
        v = json.loads(line)
        tests_of[(v["pair_id"], v["side"])] = [t for t, _ in v["detail"]["tests"]]
    model = model_loader(settings)
    samples = SampleCache()  # both functions of a pair share the plans' programs and their runs

    def measure(row: dict, side: str) -> dict | None:
        tests = tests_of[(row["pair_id"], side)]
        if not tests:
            return None
        fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
        short = fn.name.split(".")[-1]
        probes = run_probes(fn.program, tests, short, config)
        # the engine's own path (qualm.engine.assessment with algorithmic.plan_programs on)
        jobs = plan_program_jobs(fn.problem_description, plans[(row["pair_id"], "original")], settings, PYTHON)[: args.programs]
        programs = check_against_solutions(model(), fn.problem_description, short, probes, settings, PYTHON, config, samples, jobs=jobs, label="programs of the plans")
        return {"pair_id": row["pair_id"], "side": side, "values": {"plan_agreement": programs.agreement, "plan_weighted": programs.weighted}, "plans_passing": [p.passed for p in programs.solutions], "shares": [p.agreement for p in programs.solutions]}

    done = measured(rows, args.cache, measure, every=5)
    examples, values = [], []
    for row in rows:
        for side in SIDES:
            v = done.get((row["pair_id"], side))
            examples.append(Example(row["task_id"], {}, side == "original"))
            values.append(v["values"] if v else {})
    print(f"{len(rows)} {args.split} pairs, {len(examples)} functions (plans and tests from {args.rows})")
    for name in ("plan_agreement", "plan_weighted"):
        auc, n = auroc_fails(examples, [v.get(name) for v in values])
        print(f"  {name:16} AUROC {auc if auc is not None else float('nan'):.3f} ({n} functions)")
    # plan_agreement from the first k programs only (algorithmic.plan_programs = k): the mean of
    # their shares, as qualm.signals.agreement takes it
    shares = [(done.get((row["pair_id"], side)) or {}).get("shares") for row in rows for side in SIDES]
    for k in range(1, 1 + max((len(x) for x in shares if x), default=0)):
        firsts = [[a for a in x[:k] if a is not None] if x else [] for x in shares]
        auc, n = auroc_fails(examples, [1 - sum(f) / len(f) if f else None for f in firsts])
        print(f"  plan_agreement from the first {k} program{'s' if k > 1 else ''}: AUROC {auc if auc is not None else float('nan'):.3f} ({n} functions)")


if __name__ == "__main__":
    main()
