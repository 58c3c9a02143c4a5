# Dev-only: `qualm calibrate --dataset mbpp --limit 90` through the library (this machine's typer needs pydantic)
import time
from pathlib import Path

from qualm.cli import _settings
from qualm.fitting.calibrate import calibrate, describe, mbpp_problems
from qualm.model import load_model

problems = list(mbpp_problems(None))[:90]
label = describe(problems, "MBPP")
settings = _settings("/tmp/q/m.gguf", -1, 4)
backend = load_model(settings.model)
sha = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
target = Path("/tmp/q/cal/calibration.json")
t0 = time.time()
def report(i, p, row):
    print(i + 1, p.task_id, row.get("lexical"), row.get("algorithmic"), row.get("functional"), row.get("note", ""), f"{time.time()-t0:.0f}s", flush=True)
cal = calibrate(backend, problems, settings, sha, label, target.with_suffix(".rows.jsonl"), on_problem=report)
cal.save(target)
print("saved", target, flush=True)
