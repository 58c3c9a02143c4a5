"""The right/wrong pairs and what was measured of them: the pairs file, the results files (one JSON
line per function, appended as it finishes), and the examples a fit takes from both.

The pairs (``benchmarks/data/mutant-pairs.jsonl``, built by ``benchmarks/assessment/build_mutants.py``) hold a
reference solution of HumanEval or MBPP 511-974 and a one-edit mutant that fails the official
tests; each problem is on the tune or the holdout side.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..chance import with_derived
from ..lang.python.source import with_docstring
from .chance_fit import Example, check_fit_split

# The right/wrong pairs, relative to a checkout's root: benchmarks and tests join it to theirs.
PAIRS_FILE = Path("benchmarks") / "data" / "mutant-pairs.jsonl"

SIDES = ("original", "mutant")


def read_pairs(path: Path, split: str, stride: int = 1, limit: int | None = None) -> list[dict]:
    """Every ``stride``-th pair of ``split`` (tune or holdout); refuses a file with a pair outside
    the calibration splits."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    check_fit_split([r["task_id"] for r in rows])
    return [r for r in rows if r["split"] == split][::stride][:limit]


def read_test_pairs(path: Path) -> list[dict]:
    """A test set's pairs (``benchmarks/assessment/build_mutants.py --test-split``), in the file's (the draw's)
    order; refuses a file with any pair that is not of the test split."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    stray = [r["pair_id"] for r in rows if r["split"] != "test"]
    if stray:
        raise ValueError(f"{path}: not a test set: {', '.join(stray[:3])} ... are of another split")
    return rows


def prepared(source: str, row: dict) -> str:
    """The function as a user would have it: LF line ends, its task as the docstring (MBPP)."""
    text = source.replace("\r\n", "\n")
    return with_docstring(text, row["entry_point"], row["task"]) if row["dataset"] == "mbpp" else text


def read_results(path: Path) -> dict[tuple[str, str], dict]:
    results: dict[tuple[str, str], dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                v = json.loads(line)
                results[(v["pair_id"], v["side"])] = v
            except (ValueError, KeyError):
                continue  # a line cut by an interruption
    return results


def examples_of(rows: Sequence[dict], results: Mapping[tuple[str, str], dict], undecided: bool = False) -> list[Example]:
    """Both functions of every fully measured pair: the original passes, the mutant fails.
    ``undecided``: pairs that the docstring's examples do not decide (``Example.undecided``)."""
    out = []
    for row in rows:
        if all((row["pair_id"], s) in results for s in SIDES):
            for side in SIDES:
                out.append(Example(row["task_id"], with_derived(results[(row["pair_id"], side)]["values"]), side == "original", undecided=undecided))
    return out


def read_generated(path: Path) -> list[Example]:
    """The model's greedy code of tune problems with every signal of its assessment and its official
    label (``benchmarks/chance/generated_chance.py``); a function it could not assess is left out."""
    out = []
    for line in path.read_text().splitlines():
        row = json.loads(line) if line.strip() else None
        if row and row.get("values"):
            out.append(Example(row["task_id"], with_derived(row["values"]), bool(row["passed"]), generated=True))
    check_fit_split([e.task_id for e in out])
    return out


def describe_split(examples: Sequence[Example], name: str) -> str:
    he = len({e.task_id for e in examples if e.task_id.startswith("HumanEval")})
    mb = len({e.task_id for e in examples if e.task_id.startswith("MBPP")})
    return f"{len(examples) // 2} right/wrong pairs of the {name} split ({len(examples)} functions; {he} HumanEval and {mb} MBPP 511-974 problems)"
