"""Does the model, shown one of its plans and the code, say the code follows it?

    .venv/bin/python -m benchmarks.assessment.plan_judge results/chance-of-passing/assess-quality-tune-all.jsonl \
        --cache benchmarks/out/plan-judge-tune.jsonl

Another way for the sampled plans to see the code (after ``candidate_plan_variants.py`` and
``plan_conditioned.py`` found none in the plan text and in the code's likelihood under a plan): the
model is asked, for each of the 5 plans a full run stored, "does this code follow the plan and solve
the problem correctly? Yes or No", and the probability it gives "No" at the first token of its
answer (against "Yes") is read off one teacher-forced pass. Per function: the mean of P(No) over
the plans, and beside it the same question without a plan. Prints their AUROC for "fails" on the
tune pairs; the answers are kept in ``--cache`` (resumable). Tune split only.
"""

from __future__ import annotations

import argparse
import statistics as st
from pathlib import Path

from sklearn.metrics import roc_auc_score

from benchmarks.common.pair_tokens import SIDES, measured, model_loader, with_plans
from qualm.fitting.pairs import prepared
from qualm.lang import PYTHON
from qualm.prompts import ChatPrompt
from qualm.settings import Settings

QUESTION = """Problem:
{problem}
{plan}
Code:
```python
{code}
```

Does the code {what} solve the problem correctly? Answer Yes or No."""


def p_no(backend, problem: str, code: str, plan: str | None) -> float:
    """P(No) / (P(Yes) + P(No)) at the first token of the answer."""
    user = QUESTION.format(problem=problem.strip(), plan=f"\nPlan:\n{plan.strip()}\n" if plan else "", code=code.rstrip(), what="follow the plan and" if plan else "")
    rec = backend.score(ChatPrompt(user=user, assistant_prefix="", stop=()), "Yes", top_alternatives=20).tokens[0]
    probs = {a.text.strip().lower(): a.prob for a in rec.alternatives}
    yes, no = rec.prob, probs.get("no", 0.0)
    return no / max(yes + no, 1e-12)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=Path, help="a full run's rows (assess_quality.py --axes all): their plans")
    ap.add_argument("--cache", type=Path, required=True)
    args = ap.parse_args()
    rows, plans = with_plans(args.rows, "tune")
    model = model_loader(Settings())

    def judged(row: dict, side: str) -> dict:
        fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
        return {
            "pair_id": row["pair_id"],
            "side": side,
            "no_plan": p_no(model(), fn.problem_description, fn.source, None),
            "per_plan": [p_no(model(), fn.problem_description, fn.source, p) for p in plans[(row["pair_id"], side)]],
        }

    done = measured(rows, args.cache, judged)
    keys = [(r["pair_id"], s) for r in rows for s in SIDES]
    fails = [k[1] == "mutant" for k in keys]
    print(f"{len(keys)} functions of {len(rows)} tune pairs")
    for name, f in (("P(No), no plan", lambda v: v["no_plan"]), ("mean P(No) over the plans", lambda v: st.mean(v["per_plan"])), ("largest P(No) over the plans", lambda v: max(v["per_plan"]))):
        xs = [f(done[k]) for k in keys]
        print(f"  {name:32} AUROC {roc_auc_score(fails, xs):.3f}  mean P(No) {st.mean(xs):.1e}")


if __name__ == "__main__":
    main()
