"""Does the chat template's default system turn change the code the model writes?

    .venv/bin/python -m benchmarks.assessment.system_turn [--n 60] [--out results/system-turn]

Qwen2.5's chat template adds "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
as a system turn when the conversation has none; the paper's prompts are a user turn alone. For the
first ``--n`` MBPP 511-974 problems (tune split) in a seeded order, the evaluation's greedy
code-generation step runs twice on the default model: with the GGUF's template (qualm's rendering)
and with ChatML holding the user turn alone (``qualm.model.chat_template``, the paper's prompt).
Each answer runs the official tests in the sandbox. Rows are kept in ``rows.jsonl`` (a run resumes);
the report gives pass@1 and the Top-5-entropy AUROC of each rendering and their paired
differences with 95 % bootstrap intervals over problems. The rule: results/system-turn/rules.md.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from benchmarks.common.paths import ROOT
from qualm.engine import generate_solution
from qualm.evaluation.datasets import mbpp
from qualm.evaluation.labels import official_label
from qualm.evaluation.metrics import auroc
from qualm.model import load_model
from qualm.model.chat_template import CHATML
from qualm.settings import Settings
from qualm.signals.lexical import lexical_report
from qualm_sandbox import SandboxConfig

RENDERINGS = ("template", "user_only")  # the GGUF's own template; the user turn alone (the paper's)
SEED = 20261128


def problems(n: int) -> list:
    by_number = {int(p.task_id.split("/")[1]): p for p in mbpp(split="calibration")}
    order = random.Random(SEED).sample(range(511, 975), 464)
    return [by_number[i] for i in order if i in by_number][:n]


def measure(rendering: str, chosen: list, rows: dict, out: Path, settings: Settings) -> None:
    todo = [p for p in chosen if (p.task_id, rendering) not in rows]
    if not todo:
        return
    template = out / "user-only-chatml.jinja"
    template.write_text(CHATML)
    model = {"chat_template": str(template)} if rendering == "user_only" else {}
    run_settings = settings.with_overrides(model=model) if model else settings
    backend = load_model(run_settings.model)
    config = SandboxConfig(timeout=settings.functional.timeout, mode=settings.functional.sandbox_mode)
    with open(out / "rows.jsonl", "a") as f:
        for p in todo:
            trace = generate_solution(backend, p.prompt, run_settings)
            label = official_label(p, trace.text, config)
            row = {"task_id": p.task_id, "rendering": rendering, "passed": label.passed, "top_k_entropy": lexical_report(trace, 5).all.top_k_entropy,
                   "tokens": len(trace.tokens), "code": trace.text, "prompt_start": trace.prompt[:120]}
            rows[(p.task_id, rendering)] = row
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(f"{rendering} {p.task_id}: {'pass' if label.passed else 'fail'}", flush=True)
    backend.close()


def interval(values: np.ndarray) -> str:
    lo, hi = np.percentile(values[~np.isnan(values)], [2.5, 97.5])
    return f"{lo:+.3f} to {hi:+.3f}"


def report(chosen: list, rows: dict) -> list[str]:
    ids = [p.task_id for p in chosen if all((p.task_id, r) in rows for r in RENDERINGS)]
    passed = {r: np.array([rows[(i, r)]["passed"] for i in ids], dtype=float) for r in RENDERINGS}
    entropy = {r: np.array([rows[(i, r)]["top_k_entropy"] for i in ids], dtype=float) for r in RENDERINGS}
    rng = np.random.default_rng(0)
    draws = [rng.integers(0, len(ids), len(ids)) for _ in range(2000)]

    def auc(r: str, idx: np.ndarray) -> float:
        value = auroc(list(passed[r][idx].astype(bool)), list(entropy[r][idx]))
        return np.nan if value is None else value

    diff_pass = np.array([passed["user_only"][d].mean() - passed["template"][d].mean() for d in draws])
    diff_auc = np.array([auc("user_only", d) - auc("template", d) for d in draws])
    whole = np.arange(len(ids))
    same = sum(rows[(i, "template")]["code"] == rows[(i, "user_only")]["code"] for i in ids)
    lines = [f"{len(ids)} MBPP 511-974 problems (tune split), greedy, default model; 2,000 bootstrap resamples over problems, seed 0"]
    for r, name in (("template", "the GGUF's template (default system turn)"), ("user_only", "the user turn alone (the paper's prompt)")):
        lines.append(f"  {name:45} pass@1 {passed[r].mean():.3f}   Top-5 entropy AUROC {auc(r, whole):.3f}")
    lines.append(f"  paired difference, paper's minus template: pass@1 {passed['user_only'].mean() - passed['template'].mean():+.3f} ({interval(diff_pass)}); "
                 f"AUROC {auc('user_only', whole) - auc('template', whole):+.3f} ({interval(diff_auc)})")
    lines.append(f"  answers identical under both renderings: {same} of {len(ids)}; pass/fail differs on {int((passed['template'] != passed['user_only']).sum())}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "system-turn")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    settings = Settings()
    chosen = problems(args.n)
    path = args.out / "rows.jsonl"
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            rows[(row["task_id"], row["rendering"])] = row
    for rendering in RENDERINGS:
        measure(rendering, chosen, rows, args.out, settings)
    text = "\n".join(report(chosen, rows))
    (args.out / "report.txt").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
