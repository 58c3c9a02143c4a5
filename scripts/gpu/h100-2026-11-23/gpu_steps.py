"""Dev-only (not shipped): compute the pipeline's machine-independent sampled steps (plans,
samples, tests) for a shard of a job list, on a GPU, into the same cache layout."""
import json
import os
import sys
import time
from pathlib import Path

from qualm.cli import _settings
from qualm.evaluation import datasets
from qualm.evaluation.pipeline import PipelineOptions, ProblemCache, problem_dir, run_problem, settings_key
from qualm.model import load_model

shard, nshards, jobfile, cache_root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
jobs = json.load(open(jobfile))["jobs"][shard::nshards]
settings = _settings(os.environ["QUALM_MODEL"], -1, int(os.environ.get("QUALM_THREADS", "2")))
backend = load_model(settings.model)
sha = os.environ["QUALM_SHA"]
problems = {p.task_id: p for p in datasets.humaneval() + datasets.mbpp(split="all")}
key = settings_key(settings, PipelineOptions())
assert key == os.environ["QUALM_KEY"], (key, os.environ["QUALM_KEY"])
t_start = time.time()
for tid, steps in jobs:
    p = problems[tid]
    t0 = time.time()
    run_problem(backend, p, settings, PipelineOptions(steps=tuple(steps)), ProblemCache(problem_dir(cache_root, sha, key, p)))
    print(f"shard {shard} {tid} {steps} {time.time()-t0:.1f}s total {time.time()-t_start:.0f}s", flush=True)
print(f"shard {shard} done", flush=True)
