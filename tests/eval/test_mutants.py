"""Right/wrong function pairs (qualm.evaluation.mutants): each mutation kind's exact one-edit text on
small hand-written functions, the refusal of MBPP's test split, the problem-level split, and
build_pairs on three HumanEval problems in the real sandbox (skipped, with the reason, where qualm's
sandbox refuses to run). No model is used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_eval_datasets import needs_sandbox  # the same skip rule: tests that need the real sandbox

from qualm.evaluation.datasets import humaneval
from qualm.evaluation.labels import official_label
from qualm.evaluation.mutants import (
    HOLDOUT_FRACTION,
    KINDS,
    ForbiddenProblem,
    build_pairs,
    check_allowed,
    mutants,
    problem_mutants,
    split_of,
)
from qualm.evaluation.problems import OfficialTests, Problem
from qualm.fitting import pairs

PAIRS_FILE = Path(__file__).parents[2] / pairs.PAIRS_FILE


def _texts(source: str, kind: str, entry_point: str = "f") -> list[str]:
    return [m.source for m in mutants(source, entry_point) if m.kind == kind]


# ---------------------------------------------------------------------------------------------
# Each kind: the exact mutant texts


OPERATOR_SRC = "def f(a, b):\n    c = a * b\n    c += 1\n    return c > 0 and a - b\n"
COMPARISON_SRC = "def f(a, b, c):\n    return a < b, a >= b, a == b, a in c, a is not None\n"


@pytest.mark.parametrize(
    "src, kind, edits",
    [
        (OPERATOR_SRC, "operator", [("a * b", "a / b"), ("a * b", "a // b"), ("c += 1", "c -= 1"), ("and", "or"), ("a - b", "a + b")]),
        (COMPARISON_SRC, "comparison", [("a < b", "a <= b"), ("a >= b", "a > b"), ("a == b", "a != b"), ("a in c", "a not in c"), ("is not", "is")]),
    ],
)
def test_operator_and_comparison_mutants(src, kind, edits):
    assert _texts(src, kind) == [src.replace(old, new) for old, new in edits]


def test_operator_leaves_string_and_list_arithmetic_alone():
    src = "def f(s, n):\n    return s + 'x', [0] * n\n"
    assert _texts(src, "operator") == []


def test_constant_mutants():
    src = "def f(x):\n    return x * 3, True\n"
    assert _texts(src, "constant") == [src.replace("3", "4"), src.replace("3", "2"), src.replace("True", "False")]


def test_off_by_one_mutants():
    src = "def f(xs, n):\n    return [xs[i] for i in range(1, n - 1)], xs[:n]\n"
    assert _texts(src, "off_by_one") == [
        src.replace("xs[i]", "xs[i + 1]"),
        src.replace("xs[i]", "xs[i - 1]"),
        src.replace("range(1,", "range(2,"),
        src.replace("range(1,", "range(0,"),
        src.replace("n - 1)", "n)"),  # n - 1, plus one, is written n
        src.replace("n - 1)", "n - 2)"),
        src.replace("xs[:n]", "xs[:n + 1]"),
        src.replace("xs[:n]", "xs[:n - 1]"),
    ]
    one_arg = "def f(n):\n    return list(range(n))\n"
    assert _texts(one_arg, "off_by_one") == [one_arg.replace("range(n)", f"range({r})") for r in ("n + 1", "n - 1", "1, n")]


def test_swapped_branches_mutants():
    src = "def f(x):\n    if x > 0:\n        return 1\n    else:\n        return -1\n"
    assert _texts(src, "swapped_branches") == [
        "def f(x):\n    if not x > 0:\n        return 1\n    else:\n        return -1\n",
        "def f(x):\n    if x > 0:\n        return -1\n    else:\n        return 1\n",
    ]
    expr = "def f(x, y):\n    return x if x > y and y else y\n"
    assert _texts(expr, "swapped_branches") == [
        "def f(x, y):\n    return y if x > y and y else x\n",
        "def f(x, y):\n    return x if not (x > y and y) else y\n",
    ]


def test_each_mutant_is_one_edit_inside_the_function_body():
    src = (
        "import math\r\n\r\nLIMIT = 10\r\n\r\ndef helper(k=1):\r\n    return k + 1\r\n\r\n"
        "def f(xs, n=2):\r\n    \"\"\"Return 1 + 2 < 3 'é' items.\"\"\"\r\n    s = 'é' ; t = n - 1\r\n"
        "    for i in range(len(xs)):\r\n        if xs[i] < t:\r\n            s += str(i)\r\n    return s\r\n"
    )
    found = mutants(src, "f")
    assert {m.kind for m in found} == set(KINDS)
    body_start = src.index("    s = 'é'")
    lines = src.splitlines(keepends=True)
    for m in found:
        # line and column point at the edit; everything around it is byte-identical; the edit lies in
        # the body (not in the helper, the constant, the signature's default or the docstring)
        start = sum(len(ln) for ln in lines[: m.line - 1]) + m.column
        assert src[start : start + len(m.before)] == m.before and start >= body_start
        assert m.source == src[:start] + m.after + src[start + len(m.before) :]
    assert "t = n - 2" in {m.source[body_start:].split("\r\n")[0].split("; ")[1] for m in found}
    assert all("\r\n" in m.source and "\n" not in m.source.replace("\r\n", "") for m in found)


def test_mutants_are_deterministic_and_absent_without_the_function():
    src = "def f(a):\n    return a + 1 if a else 0\n"
    assert mutants(src, "f") == mutants(src, "f")
    assert mutants(src, "g") == [] and mutants("def f(:\n", "f") == []


# ---------------------------------------------------------------------------------------------
# Which problems, and the split


def _mbpp(number: int) -> Problem:
    tests = OfficialTests("asserts", entry_point="f", asserts=("assert f(1) == 2",))
    return Problem(f"MBPP/{number}", "mbpp", '"""Add one."""\n', "f", tests, "def f(x):\n    return x + 1\n")


@pytest.mark.parametrize("number", [1, 10, 11, 300, 510, 975])
def test_mbpp_test_split_and_prompt_examples_are_refused(number):
    with pytest.raises(ForbiddenProblem):
        check_allowed(_mbpp(number))
    with pytest.raises(ForbiddenProblem):
        problem_mutants(_mbpp(number))
    # refused before anything runs: the allowed problem in front is never labelled either
    with pytest.raises(ForbiddenProblem):
        build_pairs([_mbpp(511), _mbpp(number)])


def test_allowed_problems():
    check_allowed(_mbpp(511))
    check_allowed(_mbpp(974))
    assert problem_mutants(_mbpp(600))  # `x + 1` has mutants
    with pytest.raises(ForbiddenProblem):
        check_allowed(Problem("x/1", "user", "", "f", OfficialTests("asserts", asserts=("assert 1",)), "def f(): pass\n"))


def test_split_is_stable_and_near_seventy_thirty():
    assert [split_of(t) for t in ("HumanEval/0", "HumanEval/2", "MBPP/511", "MBPP/515", "MBPP/974")] == ["tune", "holdout", "tune", "holdout", "tune"]
    ids = [f"HumanEval/{i}" for i in range(164)] + [f"MBPP/{i}" for i in range(511, 975)]
    holdout = sum(split_of(t) == "holdout" for t in ids) / len(ids)
    assert abs(holdout - HOLDOUT_FRACTION) < 0.06


def test_built_file_keeps_problems_on_one_side():
    if not PAIRS_FILE.exists():
        pytest.skip(f"{PAIRS_FILE} not built")
    rows = [json.loads(line) for line in PAIRS_FILE.read_text(encoding="utf-8").splitlines()]
    assert rows and len({r["pair_id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["split"] == split_of(r["task_id"]) and r["kind"] in KINDS and r["original"] != r["mutant"]
        assert r["dataset"] == "humaneval" or (r["dataset"] == "mbpp" and 511 <= int(r["task_id"].split("/")[1]) <= 974)
    per_problem: dict[str, list[str]] = {}
    for r in rows:
        per_problem.setdefault(r["task_id"], []).append(r["kind"])
    assert all(len(k) <= 2 and len(set(k)) == len(k) for k in per_problem.values())


# ---------------------------------------------------------------------------------------------
# Pairs in the real sandbox


@needs_sandbox
def test_build_pairs_keeps_only_failing_mutants():
    he = {p.task_id: p for p in humaneval()}
    chosen = [he["HumanEval/0"], he["HumanEval/2"], he["HumanEval/13"]]
    results = build_pairs(chosen, jobs=2)
    assert [r.task_id for r in results] == [p.task_id for p in chosen]
    for problem, r in zip(chosen, results):
        assert r.status == "ok" and "passed" in r.reference_detail  # the reference passes its own tests
        assert 1 <= len(r.rows) <= 2 and len({row["kind"] for row in r.rows}) == len(r.rows)
        assert r.tried == len(r.rows) + r.equivalent
        for row in r.rows:
            assert row["split"] == split_of(problem.task_id) and row["original"] == problem.reference
            assert not official_label(problem, row["mutant"]).passed
            assert row["mutant"].replace(row["after"], row["before"], 1) == problem.reference or row["kind"] == "swapped_branches"
    # seeded by the task id: the same problem alone gives the same pairs
    alone = build_pairs([chosen[1]])[0]
    assert alone.rows == results[1].rows
