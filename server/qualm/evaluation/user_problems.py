"""Users' own problem sets: one JSON object per line::

    {"task_id": "mine/1", "prompt": "def inc(x):\\n    \\"\\"\\"Add one.\\"\\"\\"\\n",
     "entry_point": "inc", "tests": ["assert inc(1) == 2", "assert inc(-1) == 0"],
     "setup": "import math", "reference": "def inc(x):\\n    return x + 1\\n"}
    {"task_id": "mine/2", "prompt": "...", "entry_point": "dec",
     "check": "def check(candidate):\\n    assert candidate(1) == 0\\n"}

task_id (string, unique), prompt (string), entry_point (a Python identifier) are required, and
exactly one of ``tests`` (a non-empty list of Python statements, usually asserts, each one test;
kind ``"asserts"``) or ``check`` (source defining ``check(candidate)``, called with the entry
point; kind ``"check"``). Optional: ``setup`` (code run after the candidate, before each test) and
``reference`` (a correct solution). Blank lines are ignored; other keys are refused, so a misspelt
``test`` is reported instead of silently ignored.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from ..fitting.reference_data import DatasetError, jsonl_rows, optional_str, str_field, str_list
from .problems import OfficialTests, Problem

_USER_REQUIRED = ("task_id", "prompt", "entry_point")
_USER_OPTIONAL = ("tests", "check", "setup", "reference")


def user_jsonl(path: Path | str) -> list[Problem]:
    """A user's own problem set: one JSON object per line (format in the module docstring)."""
    path = Path(path)
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for where, row in jsonl_rows(path, "problem set"):
        problem = _user_problem(row, where)
        if problem.task_id in seen:
            raise DatasetError(f"{where}: task_id {problem.task_id!r} already used at {seen[problem.task_id]}")
        seen[problem.task_id] = where
        problems.append(problem)
    if not problems:
        raise DatasetError(f"{path}: no problems (expected one JSON object per line)")
    return problems


def _user_problem(row: Mapping, where: str) -> Problem:
    unknown = sorted(set(row) - set(_USER_REQUIRED) - set(_USER_OPTIONAL))
    if unknown:
        raise DatasetError(f"{where}: unknown field(s) {', '.join(unknown)} (allowed: {', '.join(_USER_REQUIRED + _USER_OPTIONAL)})")
    task_id, prompt, entry = (str_field(row, k, where) for k in _USER_REQUIRED)
    if not task_id.strip():
        raise DatasetError(f"{where}: task_id is empty")
    if not entry.isidentifier():
        raise DatasetError(f"{where}: entry_point {entry!r} is not a Python identifier")
    setup = optional_str(row, "setup", where)
    reference = optional_str(row, "reference", where) or None
    _compiles(setup, "setup", where)
    if ("tests" in row) == ("check" in row):
        raise DatasetError(f"{where}: give exactly one of 'tests' (a list of assert statements) or 'check' (source defining check(candidate))")
    if "tests" in row:
        asserts = str_list(row, "tests", where)
        for i, a in enumerate(asserts):
            _compiles(a, f"tests[{i}]", where)
        tests = OfficialTests("asserts", entry_point=entry, setup=setup, asserts=tuple(asserts))
    else:
        check = str_field(row, "check", where)
        _compiles(check, "check", where)
        if not any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in ast.parse(check).body):
            raise DatasetError(f"{where}: 'check' must define a function check(candidate)")
        tests = OfficialTests("check", entry_point=entry, check=check, setup=setup)
    return Problem(task_id, "user", prompt, entry, tests, reference)


def _compiles(source: str, what: str, where: str) -> None:
    try:
        compile(source, f"<{what}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise DatasetError(f"{where}: {what} is not valid Python: {exc}") from None
