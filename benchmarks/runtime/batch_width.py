"""Benchmark: what one decode step costs for 1, 2, 4, 7 and 11 sequences decoded together.

    .venv/bin/python -m benchmarks.runtime.batch_width [--widths 1 2 4 7 11] [--n-gpu-layers -1]

Each width decodes the same plan prompt sampled with that many seeds, twice: 16 and 96 tokens a
sequence; the difference of the two wall times over the difference of their steps is the cost of
a step with the prompt's evaluation taken out. On a CPU a step is compute-bound, so a sequence
beside others is not free: this is what decides which samples of an assessment are worth putting
in one batch (README, cost).
"""

from __future__ import annotations

import argparse
import time

from qualm import prompts
from qualm.model import GenerationOptions, load_model
from qualm.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--widths", type=int, nargs="+", default=[1, 2, 4, 7, 11])
    ap.add_argument("--n-gpu-layers", type=int, default=0, help="-1: every layer on the GPU (a CUDA build)")
    args = ap.parse_args()
    backend = load_model(Settings().with_overrides(model={"n_gpu_layers": args.n_gpu_layers}).model)
    prompt = prompts.plan_generation('def add(a, b):\n    """Return the sum of a and b."""\n')

    def run(width: int, tokens: int) -> tuple[float, int]:
        jobs = [(prompt, GenerationOptions(max_tokens=tokens, temperature=0.8, top_p=0.95, seed=i, top_alternatives=1)) for i in range(width)]
        t0 = time.perf_counter()
        traces = backend.generate_batch(jobs)
        return time.perf_counter() - t0, max(len(t.tokens) for t in traces)

    run(1, 4)  # warm-up
    print(f"model: {backend.info.name}, {backend.info.detail('threads')} threads, GPU layers {args.n_gpu_layers}")
    for width in args.widths:
        short, long = run(width, 16), run(width, 96)
        step = (long[0] - short[0]) / max(1, long[1] - short[1])
        print(f"width {width}: {1000 * step:.0f} ms a step, {1000 * step / width:.1f} ms a token", flush=True)


if __name__ == "__main__":
    main()
