# Dev-only: which sampled steps are missing from the local cache, in the order the evaluation needs them (jobs.json for gpu_steps.py).
import json
import sys
from pathlib import Path

from qualm.evaluation import datasets

root = Path.home() / ".cache/qualm/eval/1d9614638d18024d/339171848a51"
jobs = []
def add(problems, steps):
    for p in problems:
        d = root / p.dataset / "".join(c if c.isalnum() or c in "-_." else "_" for c in p.task_id)
        missing = [s for s in steps if not (d / f"{s}.json").exists()]
        if missing:
            jobs.append([p.task_id, missing])
he = datasets.humaneval()
mb = {int(p.task_id.split("/")[1]): p for p in datasets.mbpp(split="all")}
add(he, ["plans"])
add(he, ["samples"])
add([mb[i] for i in range(511, 601)], ["plans", "tests"])
add([mb[i] for i in range(511, 601)], ["samples"])
add([mb[i] for i in range(11, 511)], ["tests", "plans"])
add([mb[i] for i in range(11, 511)], ["samples"])
json.dump({"jobs": jobs}, open(sys.argv[1], "w"))
print(len(jobs), sum(len(s) for _, s in jobs))
