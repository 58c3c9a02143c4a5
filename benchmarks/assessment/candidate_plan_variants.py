"""Other ways of comparing the code's own plan with the sampled plans, on rows measured before.

    .venv/bin/python -m benchmarks.assessment.candidate_plan_variants results/chance-of-passing/assess-quality-tune-all.jsonl

Reads the plans and the code's own plan that ``assess_quality.py --axes all`` stored for each
function of the right/wrong pairs, and prints, for each variant of the comparison, the AUROC for
"this function fails" and in how many pairs the mutant's plan is farther than its original's. No
model runs. Used on the tune split only, to see whether the shipped ``candidate_distance`` (the
mean step-aware ROUGE-L distance) was losing a signal another comparison would keep.
"""

from __future__ import annotations

import argparse
import json
import statistics as st
from pathlib import Path

from sklearn.metrics import roc_auc_score

from qualm.signals.algorithmic import StepRouge, split_steps


def variants(rouge: StepRouge, own: list[str], sampled: list[list[str]]) -> dict[str, float]:
    sims = [rouge.plans(own, s) for s in sampled]
    pairwise = [rouge.plans(sampled[i], sampled[j]) for i in range(len(sampled)) for j in range(i + 1, len(sampled))]
    loo = [1 - st.mean(rouge.plans(sampled[i], sampled[j]) for j in range(len(sampled)) if j != i) for i in range(len(sampled))]
    tokens = [[rouge.tokens(x) for x in s] for s in sampled]
    # each of the code's steps: its best match among all sampled steps
    best = [max(max(rouge._f(rouge.tokens(c), y) for y in s) for s in tokens) for c in own]
    distance = 1 - st.mean(sims)
    return {
        "distance (shipped candidate_distance)": distance,
        "distance - the plans' dispersion": distance - (1 - st.mean(pairwise)),
        "distance / the plans' dispersion": distance / max(1e-6, 1 - st.mean(pairwise)),
        "z against each plan's distance to the others": (distance - st.mean(loo)) / (st.pstdev(loo) + 1e-6),
        "1 - similarity to the closest plan": 1 - max(sims),
        "1 - the least-matched step's best match": 1 - min(best),
        "1 - mean of the steps' best matches": 1 - st.mean(best),
        "share of steps whose best match < 0.5": sum(b < 0.5 for b in best) / len(best),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=Path, help="a full run's rows (assess_quality.py --axes all)")
    args = ap.parse_args()
    rouge = StepRouge()
    found: dict[tuple[str, str], dict[str, float]] = {}
    for line in args.rows.read_text().splitlines():
        v = json.loads(line)
        own = split_steps(v["detail"].get("candidate_plan") or "")
        sampled = [s for s in (split_steps(p) for p in v["detail"].get("plans") or []) if s]
        if own and len(sampled) >= 2:
            found[(v["pair_id"], v["side"])] = variants(rouge, own, sampled)
    keys = list(found)
    fails = [k[1] == "mutant" for k in keys]
    pairs = sorted({p for p, side in keys if (p, "original") in found and (p, "mutant") in found})
    print(f"{len(keys)} functions, {len(pairs)} complete pairs")
    for name in found[keys[0]]:
        auc = roc_auc_score(fails, [found[k][name] for k in keys])
        farther = sum(found[(p, "mutant")][name] > found[(p, "original")][name] for p in pairs)
        ties = sum(found[(p, "mutant")][name] == found[(p, "original")][name] for p in pairs)
        print(f"  {name:46} AUROC {auc:.3f}   mutant farther in {farther} of {len(pairs)} pairs ({ties} ties)")


if __name__ == "__main__":
    main()
