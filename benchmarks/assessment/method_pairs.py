"""Methods assessed as methods: right/wrong pairs made into methods of a class, their chance of passing
with the method's self-tests, against what a method got before they ran (the lexical fallback).

    .venv/bin/python -m benchmarks.assessment.method_pairs --split tune --stride 30 --out benchmarks/out/method-pairs-tune.jsonl

Each pair's function (``benchmarks/data/mutant-pairs.jsonl``, MBPP with its task as the docstring,
as ``assess_quality.py`` reads it) becomes ``Solution.<name>(self, ...)``, a method of ``class
Solution`` at the end of its file (LeetCode's form); its helpers stay at module level. A function
that calls itself by its bare name is skipped (as a method it would call ``self.<name>``). Both
functions of a pair are assessed with the defaults, sharing their plans and tests
(``SampleCache``). Printed: the AUROC of the chance of passing (right against wrong) with the
method's tests, and of the chance the same shipped pass model gives from the lexical signal alone
(what a method got before its tests ran). Results are appended as they finish, so a run resumes.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import time
from pathlib import Path

from benchmarks.common.paths import OUT, ROOT
from qualm.engine import SampleCache, assess_function, calibration_for
from qualm.fitting.chance_fit import Example
from qualm.fitting.pairs import PAIRS_FILE, SIDES, prepared, read_pairs
from qualm.fitting.validation import auroc_fails
from qualm.lang import PYTHON
from qualm.model import load_model
from qualm.settings import Settings

LEXICAL = "lexical.all.blended_surprisal"


def as_method(text: str, name: str) -> str | None:
    """``text`` with function ``name`` moved into ``class Solution`` and given ``self``; None for a
    function that calls itself (or that is not at module level)."""
    tree = ast.parse(text)
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)
    if node is None or any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
        return None
    lines = text.splitlines(keepends=True)
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    function = "".join(lines[start - 1 : node.end_lineno])
    function = re.sub(rf"def\s+{re.escape(name)}\s*\(\s*", lambda m: f"def {name}(self, " if node.args.args or node.args.vararg or node.args.kwonlyargs or node.args.kwarg else f"def {name}(self", function, count=1)
    rest = "".join(lines[: start - 1] + lines[node.end_lineno :]).rstrip("\n")
    method = "".join("    " + line if line.strip() else line for line in function.splitlines(keepends=True))
    return rest + "\n\n\nclass Solution:\n" + method.rstrip("\n") + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--stride", type=int, default=30)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out", type=Path, default=OUT / "method-pairs.jsonl")
    args = ap.parse_args()
    settings = Settings()
    backend = load_model(settings.model)
    calibration = calibration_for(backend.info.identity, settings.ensemble)
    model = calibration.pass_model if calibration is not None else None
    if model is None:
        raise SystemExit("no calibration with a pass model for this model")
    done = {}
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            done[(r["pair_id"], r["side"])] = r
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows = read_pairs(ROOT / PAIRS_FILE, args.split, args.stride, args.limit)
    for row in rows:
        texts = {side: as_method(prepared(row[side], row), row["entry_point"]) for side in SIDES}
        if any(t is None for t in texts.values()):
            print(f"{row['pair_id']}: skipped (calls itself)", flush=True)
            continue
        samples = SampleCache()
        for side in SIDES:
            if (row["pair_id"], side) in done:
                continue
            fn = PYTHON.find_function(texts[side], f"Solution.{row['entry_point']}")
            t0 = time.perf_counter()
            a = assess_function(backend, fn, settings, calibration, samples=samples)
            signals = a.extra["signals"]
            record = {
                "pair_id": row["pair_id"], "task_id": row["task_id"], "side": side, "seconds": round(time.perf_counter() - t0, 1),
                "chance": a.chance_of_passing, "lexical_chance": model.probability({LEXICAL: signals.get(LEXICAL)}),
                "signals": signals, "tests": [[t.code, t.status] for t in a.tests], "dropped": len(a.dropped_tests),
            }
            done[(row["pair_id"], side)] = record
            with args.out.open("a") as fh:
                fh.write(json.dumps(record) + "\n")
            print(f"{row['pair_id']} {side}: chance {record['chance']}, lexical only {record['lexical_chance']}, {record['seconds']} s", flush=True)
    records = [r for r in done.values() if any(r["pair_id"] == row["pair_id"] for row in rows)]
    examples = [Example(r["task_id"], {}, r["side"] == "original") for r in records]
    for label, key in (("chance with the method's tests", "chance"), ("chance from the lexical signal alone (before)", "lexical_chance")):
        a, n = auroc_fails(examples, [None if r[key] is None else -r[key] for r in records])  # doubt: -P(pass)
        print(f"{label}: AUROC {'-' if a is None else f'{a:.3f}'} ({n} methods, {len({r['pair_id'] for r in records})} pairs)")
    for signal in ("functional_weighted", "functional", "swap_gain", "agreement"):
        a, n = auroc_fails(examples, [r["signals"].get(signal) for r in records])
        print(f"  {signal:22} {'-' if a is None else f'{a:.3f}'} ({n})")


if __name__ == "__main__":
    main()
