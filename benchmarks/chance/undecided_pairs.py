"""Right/wrong pairs that the docstring's examples do not decide (issue 55, part 4): each wrong
function fails the hidden tests, and either passes every example its docstring gives or its
docstring gives none.

    .venv/bin/python -m benchmarks.chance.undecided_pairs --pairs 45 --out results/chance-undecided/test-pairs.jsonl
    .venv/bin/python -m benchmarks.chance.undecided_pairs --split tune --pairs 60 --seed 20261130 --out results/chance-undecided-2/tune-pairs.jsonl

``--split tune`` draws from the tune side of the calibration problems instead (HumanEval and MBPP
511-974 whose ``split_of`` is "tune"; split "tune", read by ``assess_quality.py --split tune
--pairs``), so that a fit can be judged on such pairs apart; their ``pair_id`` ends in
``#undecided`` so that it never meets a pair of ``benchmarks/data/mutant-pairs.jsonl`` in a results
file. HumanEval states its examples as ``>>>`` lines, not as MBPP does, so a HumanEval problem gives
a pair only where a mutant passes them. What follows describes the test split (the default).

Problems: MBPP 11-510 (the evaluation's test split) that no file under results/ or benchmarks/data/
names but the paper replication's records and ``FREE_LIST`` (the localization experiment's list of
such problems, which names them all; ``benchmarks.assessment.repair.named_problems``), in the order
of ``random.Random(ORDER_SEED)``. For each, mutants of every localization kind are labelled
(``qualm.evaluation.mutants.pairs_for_problem``, ``test_split=True``: split "test", which a fit
refuses). The pair's wrong function is the first, in the seeded order, whose function as a user has
it (its task as the docstring, ``qualm.fitting.pairs.prepared``) passes its docstring's examples in
the sandbox (``condition`` "examples pass"); where none does, the first failing mutant, with the
example taken out of the task for both functions (MBPP states it as "Your code should pass this
test:" and an ``assert``; ``condition`` "no example"), so that the docstring gives none and the
model writes its tests from the words alone. Stops at ``--pairs`` pairs. The rows are those of
``build_mutants.py --test-split`` plus ``condition``, read by ``assess_quality.py --split test``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from benchmarks.assessment.repair import named_problems
from benchmarks.common.paths import ROOT
from qualm.evaluation.datasets import humaneval, mbpp
from qualm.evaluation.mutants import LOCALIZATION_KINDS, pairs_for_problem, rows, split_of
from qualm.evaluation.problems import Problem
from qualm.fitting.pairs import prepared
from qualm.lang import PYTHON
from qualm.settings import Settings
from qualm.signals.examples import check_examples, docstring_examples
from qualm_sandbox import SandboxConfig

ORDER_SEED = 20261129
EXAMPLE_INTRO = "Your code should pass"
FREE_LIST = "results/localization/test-problems.txt"


def passes_examples(row: dict, config: SandboxConfig) -> bool:
    """The wrong function, as a user has it, passes every example its docstring gives (at least one)."""
    fn = PYTHON.find_function(prepared(row["mutant"], row), row["entry_point"], row["pair_id"])
    short = fn.name.split(".")[-1]
    result = check_examples(fn.program, PYTHON.docstring(fn.source, short), short, config)
    return bool(result.outcomes) and result.failed == 0


def without_example(row: dict) -> dict | None:
    """The pair with its task's example taken out; None where the task does not state it as MBPP does
    or an example is still found."""
    task = row["task"]
    at = task.find(EXAMPLE_INTRO)
    if at < 0:
        return None
    out = {**row, "task": task[:at].rstrip(), "condition": "no example"}
    fn = PYTHON.find_function(prepared(out["mutant"], out), out["entry_point"], out["pair_id"])
    short = fn.name.split(".")[-1]
    return out if not docstring_examples(PYTHON.docstring(fn.source, short), short) else None


def kept_pairs(made: list[dict], per_problem: int, config: SandboxConfig) -> list[dict]:
    """Up to ``per_problem`` of a problem's failing mutants, in their seeded order: those whose wrong
    function passes its docstring's examples; where none does, the first ones with the example taken
    out of the task."""
    passing = [{**r, "condition": "examples pass"} for r in made if passes_examples(r, config)]
    if passing:
        return passing[:per_problem]
    return [k for r in made[:per_problem] if (k := without_example(r)) is not None]


def test_problems() -> list[Problem]:
    """MBPP 11-510 problems named by no result file but the replication's records and ``FREE_LIST``."""
    named = named_problems(ROOT, skip=(FREE_LIST,))
    free = [p for p in mbpp(split="test") if int(p.task_id.rsplit("/", 1)[-1]) not in named]
    print(f"{len(free)} MBPP 11-510 problems named by no result file but the replication's records", file=sys.stderr)
    return free


def tune_problems() -> list[Problem]:
    """The tune side of the calibration problems: HumanEval and MBPP 511-974 whose ``split_of`` is "tune"."""
    found = [p for p in (*humaneval(), *mbpp(split="calibration")) if split_of(p.task_id) == "tune"]
    print(f"{len(found)} tune problems (HumanEval and MBPP 511-974)", file=sys.stderr)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, required=True)
    ap.add_argument("--split", choices=("test", "tune"), default="test")
    ap.add_argument("--seed", type=int, default=ORDER_SEED, help="the problems' order and the mutants' draw")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-problem", type=int, default=1, help="pairs a problem may give (the second ones after every problem's first)")
    args = ap.parse_args()
    test_split = args.split == "test"
    problems = sorted(test_problems() if test_split else tune_problems(), key=lambda p: (p.dataset, int(p.task_id.rsplit("/", 1)[-1])))
    random.Random(args.seed).shuffle(problems)
    f = Settings().functional
    config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
    per = args.per_problem
    out: list[dict] = []
    later: list[list[dict]] = []  # each problem's pairs after its first, for a second round
    for i, problem in enumerate(problems):
        if len(out) >= args.pairs:
            break
        result = pairs_for_problem(problem, per_problem=len(LOCALIZATION_KINDS), kinds=LOCALIZATION_KINDS, seed=args.seed, budget_s=60.0, test_split=test_split)
        made = [r if test_split else {**r, "pair_id": f"{r['pair_id']}#undecided"} for r in rows([result])]
        kept = kept_pairs(made, per, config)
        out.extend(kept[:1])
        later.append(kept[1:])
        what = "kept " + ", ".join(f"{k['kind']} ({k['condition']})" for k in kept) if kept else "none kept"
        print(f"{i + 1} {problem.task_id}: {len(made)} failing mutants, {what} ({len(out)}/{args.pairs})", file=sys.stderr, flush=True)
    for more in later:  # every problem has given its first pair: then each its next ones, in the same order
        out.extend(more[: max(0, args.pairs - len(out))])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in out))
    conditions = {c: sum(r["condition"] == c for r in out) for c in ("examples pass", "no example")}
    print(f"{len(out)} pairs the examples do not decide ({conditions}) -> {args.out}")


if __name__ == "__main__":
    main()
