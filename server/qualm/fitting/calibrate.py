"""Building a model's calibration file: the three axes' raw scores over reference problems.

For each reference problem the model writes a greedy solution with the paper's code prompt, and
that solution's function is assessed exactly as ``qualm assess`` assesses a user's function, so
the reference distribution and the editor's scores are computed the same way.

Allowed reference sets: HumanEval, MBPP task_ids 511-974. MBPP 11-510 is the test split of the
evaluation and is refused here, so no threshold can be tuned on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import engine
from ..calibration_file import Calibration, new_calibration
from ..engine import assess_function
from ..engine.calibration import calibration_settings
from ..lang import PYTHON, SourceError
from ..lang.python.source import docstring_of, with_docstring
from ..model import CancelToken, ModelBackend
from ..settings import Settings
from .reference_data import MBPP_CALIBRATION_IDS, MBPP_PATH, MBPP_TEST_IDS, humaneval_rows, mbpp_tasks


@dataclass(frozen=True)
class ReferenceProblem:
    task_id: str
    description: str  # what the model is given (signature and docstring, or text)
    entry_point: str


def humaneval_problems() -> Iterator[ReferenceProblem]:
    for task_id, p in humaneval_rows().items():
        yield ReferenceProblem(task_id, p["prompt"], p["entry_point"])


def mbpp_problems(path: Path | None = None, ids: range = MBPP_CALIBRATION_IDS) -> Iterator[ReferenceProblem]:
    """MBPP problems by task_id (default: qualm's shipped copy), never from the test split (the
    evaluation's prompts, from the same reader)."""
    for task in mbpp_tasks(path or MBPP_PATH):
        if task.number in MBPP_TEST_IDS or task.number not in ids:
            continue  # the evaluation's test split never feeds calibration
        yield ReferenceProblem(task.task_id, task.prompt, task.entry_point)


def describe(problems: list[ReferenceProblem], dataset: str) -> str:
    """The reference set as a calibration file names it, e.g. "MBPP task_ids 511-600 (90 problems)"."""
    count = f"{len(problems)} problem{'' if len(problems) == 1 else 's'}"
    if dataset == "MBPP" and problems:
        ids = [int(p.task_id.split("/")[1]) for p in problems]
        return f"MBPP task_ids {min(ids)}-{max(ids)} ({count})"
    return f"{dataset} ({count})"


def with_task(solution: str, problem: ReferenceProblem) -> str:
    """The solution with the problem's task as its function's docstring where the model left it out
    (MBPP solutions mostly do): the editor assesses functions whose task is written down, and plans
    and tests written from a bare signature would make a reference no user's function resembles."""
    task = docstring_of(problem.description, problem.entry_point) or docstring_of(problem.description)
    if not task:
        return solution
    try:
        return with_docstring(solution, problem.entry_point, task)
    except SourceError:
        return solution  # find_function reports the unparsable solution


def calibrate(
    backend: ModelBackend,
    problems: list[ReferenceProblem],
    settings: Settings,
    dataset: str,
    rows_path: Path,
    on_problem: Callable[[int, ReferenceProblem, dict], None] | None = None,
    cancel: CancelToken | None = None,
) -> Calibration:
    """Assess a greedy solution per problem; rows are appended to ``rows_path`` as they finish so
    an interrupted run resumes where it stopped. The file records the model's identity
    (``backend.info.identity``): that is how it is found again for this model."""
    done: dict[str, dict] = {}
    if rows_path.exists():
        for line in rows_path.read_text().splitlines():
            try:
                row = json.loads(line)
                done[row["task_id"]] = row
            except (ValueError, KeyError):
                continue
    rows_path.parent.mkdir(parents=True, exist_ok=True)
    with open(rows_path, "a") as log:
        for i, problem in enumerate(problems):
            if cancel is not None and cancel.cancelled:
                break
            if problem.task_id not in done:
                row = _one(backend, problem, settings, cancel)
                log.write(json.dumps(row) + "\n")
                log.flush()
                done[problem.task_id] = row
            if on_problem is not None:
                on_problem(i, problem, done[problem.task_id])
    rows = [done[p.task_id] for p in problems if p.task_id in done]
    return new_calibration(backend.info.name, backend.info.identity.digest, dataset, rows, calibration_settings(settings))


def _one(backend: ModelBackend, problem: ReferenceProblem, settings: Settings, cancel: CancelToken | None) -> dict:
    trace = engine.generate_solution(backend, problem.description, settings, cancel=cancel)
    row: dict = {"task_id": problem.task_id, "lexical": None, "algorithmic": None, "functional": None, "note": ""}
    try:
        fn = PYTHON.find_function(with_task(trace.text, problem), problem.entry_point, problem.task_id)
    except SourceError as exc:
        row["note"] = f"no usable solution: {exc}"
        return row
    a = assess_function(backend, fn, settings, None, cancel=cancel)
    row.update(lexical=a.lexical.raw, algorithmic=a.algorithmic.raw, functional=a.functional.raw, seconds=round(a.seconds, 2))
    # why an axis is missing (no parsable tests, no numbered plans) stays readable beside the scores
    row["note"] = "; ".join(f"{ax.name}: {ax.note}" for ax in (a.lexical, a.algorithmic, a.functional) if not ax.available)
    return row
