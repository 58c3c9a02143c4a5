"""Dev-only: copy GPU-computed pipeline steps that are missing locally, marked computed_on."""
import json
import sys
from pathlib import Path

src = Path(sys.argv[1]) / "gcache/1d9614638d18024d/339171848a51"
dst = Path.home() / ".cache/qualm/eval/1d9614638d18024d/339171848a51"
label = "NVIDIA H100 80GB HBM3, CUDA 13.0, llama-cpp-python 0.3.36 (every layer offloaded), 2026-11-23"
n = 0
for f in sorted(src.rglob("*.json")):
    rel = f.relative_to(src)
    target = dst / rel
    if target.exists():
        continue
    data = json.loads(f.read_text())
    data["computed_on"] = label
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(target)
    n += 1
print("merged", n)
