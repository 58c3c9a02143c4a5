"""Benchmark: the docstring's own examples as tests (``qualm.signals.examples``) on the mutant pairs.

    .venv/bin/python -m benchmarks.assessment.docstring_examples [--split tune] [--out rows.jsonl]
        [--generated generated-tune.jsonl --generated-out rows.jsonl]

No model: for every pair of the split, the examples of the function's docstring (the same for the
right function and its mutant) run against both in the sandbox. Prints, per data set, how many
pairs have an example, how many right functions pass all of theirs and how many mutants fail one,
and the AUROC of ``examples_failed`` for "fails the official tests" over the functions that have
an example. ``--out`` keeps each function's ``examples_failed`` as a results file that
``benchmarks/chance/fit_chance.py --tune-extra`` merges into the stored assessment rows.
Tune on ``--split tune``; ``--split holdout`` is for the final figures only.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path

from benchmarks.chance.generated_chance import greedy_function
from benchmarks.common.paths import ROOT
from qualm.evaluation import datasets
from qualm.fitting.chance_fit import Example
from qualm.fitting.pairs import PAIRS_FILE, SIDES, prepared, read_pairs
from qualm.fitting.validation import auroc_fails
from qualm.lang import PYTHON, SourceError
from qualm.signals.examples import check_examples
from qualm_sandbox import SandboxConfig

DATA = ROOT / PAIRS_FILE


def _row(pair_id: str, side: str, result) -> dict:
    return {"pair_id": pair_id, "side": side, "axes": "examples", "values": {"examples_failed": result.failed}, "detail": {"examples": [[o.example.call, o.example.expected, o.example.form, o.status] for o in result.outcomes]}}


def _generated(paths: list[Path], out_path: Path | None, config: SandboxConfig) -> None:
    """``examples_failed`` of the model's greedy code of tune problems (``generated_chance.py``'s rows,
    one file or several), found as that benchmark finds it; printed, and kept in ``out_path`` (rows
    with ``task_id``, every file's in one)."""
    entry = {p.task_id: p for p in datasets.humaneval() + datasets.mbpp(split="calibration")}
    found: list[Example] = []
    rows = []
    for line in (line for path in paths for line in path.read_text().splitlines()):
        row = json.loads(line)
        problem = entry[row["task_id"]]
        try:
            fn = greedy_function(row["code"], problem)
        except SourceError:
            continue
        result = check_examples(fn.program, PYTHON.docstring(fn.source, problem.entry_point), problem.entry_point, config)
        rows.append({"task_id": row["task_id"], "values": {"examples_failed": result.failed}})
        if result.outcomes:
            found.append(Example(row["task_id"], {"examples_failed": result.failed}, bool(row["passed"])))
    auc, n = auroc_fails(found, [e.signals["examples_failed"] for e in found])
    print(f"the model's code ({', '.join(path.name for path in paths)}): {len(found)} of {len(rows)} functions have an example; examples_failed AUROC {auc if auc is None else round(auc, 3)} over them")
    if out_path is not None:
        out_path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=("tune", "holdout"), default="tune")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--generated", type=Path, action="append", help="generated_chance.py's rows: the signal on the model's own code of tune problems too; may be given more than once (one --generated-out for all)")
    ap.add_argument("--generated-out", type=Path, default=None)
    args = ap.parse_args()
    config = SandboxConfig(timeout=4.0, memory_mb=512)
    rows = read_pairs(DATA, args.split)
    counts: Counter[tuple[str, str]] = Counter()
    examples: list[Example] = []
    seconds: list[float] = []
    out = open(args.out, "w") if args.out else None
    for row in rows:
        fns = {side: PYTHON.find_function(prepared(row[side], row), row["entry_point"]) for side in SIDES}
        ds = row["dataset"]
        counts[(ds, "pairs")] += 1
        for side in SIDES:
            fn = fns[side]
            result = check_examples(fn.program, PYTHON.docstring(fn.source, row["entry_point"]), row["entry_point"], config)
            if not result.outcomes:
                break  # the same docstring on both sides
            if side == "original":
                counts[(ds, "with examples")] += 1
                counts[(ds, "examples")] += len(result.outcomes)
                counts[(ds, "right pass all")] += result.failed == 0
            else:
                counts[(ds, "mutant fails one")] += bool(result.failed)
            examples.append(Example(row["task_id"], {"examples_failed": result.failed}, side == "original"))
            seconds.append(result.seconds)
            if out is not None:
                out.write(json.dumps(_row(row["pair_id"], side, result)) + "\n")
    if args.generated is not None:
        _generated(args.generated, args.generated_out, config)
    if out is not None:
        out.close()
    print(f"split {args.split}: {len(rows)} pairs")
    for ds in sorted({d for d, _ in counts}):
        n = counts[(ds, "with examples")]
        print(f"  {ds:10} {counts[(ds, 'pairs')]:4d} pairs, {n:4d} with an example ({counts[(ds, 'examples')]} examples); right functions passing all: {counts[(ds, 'right pass all')]}/{n}; mutants failing one: {counts[(ds, 'mutant fails one')]}/{n}")
    auc, n = auroc_fails(examples, [e.signals["examples_failed"] for e in examples])
    if auc is not None:
        print(f"  examples_failed AUROC {auc:.3f} over the {n} functions with an example")
        print(f"  seconds to run a function's examples in the sandbox: median {statistics.median(seconds):.3f}, max {max(seconds):.3f}")


if __name__ == "__main__":
    main()
