"""The code's own plan on code the model wrote: does it tell the model's failing solutions apart?

    .venv/bin/python -m benchmarks.assessment.candidate_plan_generated <evaluation cache>/mbpp --stride 5 \
        --cache benchmarks/out/candidate-plan-generated.jsonl

On the right/wrong pairs the code's own plan (``candidate_distance``) is at chance: a one-token
edit leaves the algorithm, and so the plan, as it was. The model's own wrong solutions are mostly
wrong in another way (another algorithm, a misread task), which a plan can say. This measures the
shipped signal, unchanged, on the evaluation's greedy solutions of MBPP 11-510 (the test split,
never tuned on: a final figure only): for every ``stride``-th problem of the evaluation cache it
decodes the code's own plan exactly as an assessment does (greedy, the candidate-plan prompt, the
plan budget, stopped after its last step) and compares it with the evaluation's cached plans (the
paper's N = 10 at T = 0.8) by the shipped step-aware ROUGE-L distance. Prints the AUROC of
``candidate_distance`` for "fails the official tests", beside the paper's plan dispersion on the
same problems. No setting is chosen from it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from sklearn.metrics import roc_auc_score

from qualm import prompts
from qualm.answer_ends import plan_end
from qualm.evaluation.datasets import load
from qualm.model import GenerationOptions, load_model
from qualm.settings import Settings
from qualm.signals.algorithmic import StepRouge, algorithmic_uncertainty, candidate_distance


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cache_dir", type=Path, help="the evaluation cache's mbpp folder (one folder a problem)")
    ap.add_argument("--stride", type=int, default=5)
    ap.add_argument("--cache", type=Path, required=True, help="results (resumable)")
    args = ap.parse_args()
    problems = {p.task_id: p for p in load("mbpp", split="test")}
    ids = sorted((d.name.replace("_", "/") for d in args.cache_dir.iterdir() if (d / "plans.json").exists() and (d / "greedy.json").exists()), key=lambda t: int(t.split("/")[1]))
    ids = [t for t in ids if t in problems][:: args.stride]
    done: dict[str, dict] = {}
    if args.cache.exists():
        for line in args.cache.read_text().splitlines():
            v = json.loads(line)
            done[v["task_id"]] = v
    settings = Settings()
    a = settings.algorithmic
    backend = None
    rouge = StepRouge()
    with open(args.cache, "a") as out:
        for i, tid in enumerate(ids):
            if tid in done:
                continue
            folder = args.cache_dir / tid.replace("/", "_")
            code = json.loads((folder / "greedy.json").read_text())["code"]
            plans = json.loads((folder / "plans.json").read_text())["plans"]
            label = json.loads((folder / "label.json").read_text())
            backend = backend or load_model(settings.model)
            prompt = replace(prompts.candidate_plan(problems[tid].prompt, code, "python"), ends=plan_end if a.stop_after_last_step else None)
            own = backend.generate(prompt, GenerationOptions(max_tokens=a.max_tokens, temperature=0.0, seed=settings.generation.seed, top_alternatives=1))
            dist = candidate_distance(own.text, plans, rouge)
            disp = algorithmic_uncertainty(plans, rouge)
            v = {"task_id": tid, "passed": bool(label["passed"]), "candidate_distance": dist.distance, "algorithmic": disp.uncertainty, "candidate_plan": own.text}
            done[tid] = v
            out.write(json.dumps(v) + "\n")
            out.flush()
            if (i + 1) % 10 == 0:
                print(f"{i + 1} of {len(ids)} problems", flush=True)
    rows = [done[t] for t in ids if t in done]
    print(f"{len(rows)} problems of MBPP 11-510 (every {args.stride}th of the evaluation cache); {sum(r['passed'] for r in rows)} pass the official tests")
    for name in ("candidate_distance", "algorithmic"):
        kept = [r for r in rows if r[name] is not None]
        auc = roc_auc_score([not r["passed"] for r in kept], [r[name] for r in kept])
        print(f"  {name:20} AUROC {auc:.3f} for 'fails' ({len(kept)} problems)")


if __name__ == "__main__":
    main()
