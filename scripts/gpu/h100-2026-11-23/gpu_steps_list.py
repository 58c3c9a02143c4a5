# Dev-only: regenerate results/qwen2.5-coder-0.5b/gpu-steps.json from the cache files that carry computed_on.
import json
from collections import Counter
from pathlib import Path

root = Path.home() / ".cache/qualm/eval/1d9614638d18024d/339171848a51"
out = []
for f in sorted(root.rglob("*.json")):
    if "computed_on" in json.loads(f.read_text()):
        out.append(str(f.relative_to(root).with_suffix("")))
def key(s):
    ds, tid, step = s.split("/")
    return (ds, int(tid.split("_")[1]), step)
out.sort(key=key)
Path("results/qwen2.5-coder-0.5b/gpu-steps.json").write_text(json.dumps(out, indent=0) + "\n")
print(len(out), Counter((s.split("/")[0], s.split("/")[2]) for s in out))
