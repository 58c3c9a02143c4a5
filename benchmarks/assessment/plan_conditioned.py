"""Does the code follow the model's own plans? Teacher-forced scores of a function given each plan.

    .venv/bin/python -m benchmarks.assessment.plan_conditioned results/chance-of-passing/assess-quality-tune-all.jsonl \
        --cache benchmarks/out/plan-conditioned-tune.jsonl

The shipped candidate-aware algorithmic score compares the code's own plan with the sampled plans
as text (step-aware ROUGE-L) and is at chance on the right/wrong pairs: a small model's account of
the code describes the task, not the edit (``candidate_plan_variants.py``). This measures another
way for the plans to see the code: the model is given the problem *and one sampled plan* and is
forced through the function, so each body token gets p(token | problem, plan_i). Per token:

* mixture ``p_mix = mean_i p(token | plan_i)``: how likely the token is when the model follows one
  of its own plans (the plans as a sample of the algorithms it would use);
* plan gain ``log p_mix - log p(token | problem)``: how much the plans raise (or lower) the token
  against the problem alone; a token the plans argue against has a negative gain.

Per function it prints AUROC for "fails" of the largest mixture surprisal, its Top-5 mean, the
largest plan loss (-gain), and the unconditioned largest surprisal beside them (the lexical axis's
signal), and how the plan scores correlate with it. The per-token numbers are kept in ``--cache``
(resumable). Reads the plans a full run stored (``assess_quality.py --axes all``): no plan is
decoded here. Tune split only.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.common.pair_tokens import SIDES, body_logps, measured, model_loader, signal_table, with_plans
from qualm import prompts
from qualm.fitting.pairs import prepared
from qualm.lang import PYTHON
from qualm.settings import Settings
from qualm.signals.lexical import top_k_mean


def with_plan(problem: str, plan: str) -> prompts.ChatPrompt:
    base = prompts.code_generation(problem)
    return replace(base, user=base.user + "\n\nFollow this plan:\n" + plan.strip())


def measure(backend, settings: Settings, row: dict, side: str, plans: list[str]) -> dict:
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    k = settings.generation.top_alternatives
    base = body_logps(backend.score(prompts.code_generation(fn.problem_description), fn.source, top_alternatives=k), fn.body_offset)
    per_plan = [body_logps(backend.score(with_plan(fn.problem_description, p), fn.source, top_alternatives=k), fn.body_offset) for p in plans]
    keys = [key for key in base if all(key in pp for pp in per_plan)]
    return {
        "pair_id": row["pair_id"],
        "side": side,
        "tokens": [[s, e, base[(s, e)], [pp[(s, e)] for pp in per_plan]] for s, e in keys],
    }


def signals(v: dict) -> dict[str, float]:
    base = np.array([t[2] for t in v["tokens"]])
    plans = np.array([t[3] for t in v["tokens"]])  # tokens x plans
    mix = np.log(np.mean(np.exp(plans), axis=1))
    gain = mix - base
    return {
        "unconditioned max surprisal (lexical)": float(-base.min()),
        "plan mixture max surprisal": float(-mix.min()),
        "plan mixture Top-5 surprisal": top_k_mean(-mix, 5),
        "plan mixture mean surprisal": float(-mix.mean()),
        "largest plan loss (-gain)": float(-gain.min()),
        "Top-5 plan loss": top_k_mean(-gain, 5),
        "plan loss at the least likely token": float(-gain[int(np.argmin(base))]),
        "best plan's max surprisal": float(-plans.max(axis=1).min()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=Path, help="a full run's rows (assess_quality.py --axes all): their plans")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    args = ap.parse_args()
    rows, plans = with_plans(args.rows, args.split)
    settings = Settings()
    model = model_loader(settings)
    done = measured(rows, args.cache, lambda row, side: measure(model(), settings, row, side, plans[(row["pair_id"], side)]))
    pairs = [r["pair_id"] for r in rows if done.get((r["pair_id"], "original")) and done.get((r["pair_id"], "mutant"))]
    sig = {(p, s): signals(done[(p, s)]) for p in pairs for s in SIDES}
    print(f"{len(sig)} functions of {len(rows)} pairs ({args.split})")
    signal_table(sig, pairs)


if __name__ == "__main__":
    main()
