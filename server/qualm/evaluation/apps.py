"""APPS problems in the ``codeparrot/apps`` format, from a local .jsonl/.json file or the hub.

prompt: the question, the starter code if any, and the call format (standard input/output, or the
function ``fn_name``). Tests: kind ``"stdio"`` ((stdin text, expected stdout) pairs) or, when
``input_output`` names ``fn_name``, kind ``"call"`` ((argument tuple, expected value) pairs).
reference: the first of ``solutions``. Rows without tests are skipped (they cannot be labelled).
``dataset`` is ``"apps-<difficulty>"`` so the paper's APPS-Intro and APPS-Interview tables come
apart by it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..fitting.reference_data import DatasetError, json_array, jsonl_rows, str_field
from .problems import OfficialTests, Problem

APPS_HUB_NAME = "codeparrot/apps"
APPS_DIFFICULTIES = ("introductory", "interview", "competition")
_HUB_NAME = re.compile(r"^[\w.-]+/[\w.-]+$")


def apps(path_or_name: Path | str = APPS_HUB_NAME, difficulty: str | None = None, limit: int | None = None, split: str = "test") -> list[Problem]:
    """APPS problems in the ``codeparrot/apps`` format from a local .jsonl or .json file, or from
    the Hugging Face hub when given a hub name (needs the ``datasets`` library and a network).

    ``difficulty`` keeps one of "introductory", "interview", "competition"; ``limit`` keeps the
    first problems (after that filter, in the source's order); ``split`` is the hub's split.
    """
    if difficulty is not None and difficulty not in APPS_DIFFICULTIES:
        raise DatasetError(f"unknown APPS difficulty {difficulty!r}: use one of {', '.join(APPS_DIFFICULTIES)}")
    if limit is not None and limit < 0:
        raise DatasetError(f"limit must be at least 0, got {limit}")
    path = Path(path_or_name)
    if path.suffix in (".json", ".jsonl") or path.exists():
        rows: Iterable[tuple[str, Mapping]] = _apps_local_rows(path)
    else:
        rows = _apps_hub_rows(str(path_or_name), split)
    problems: list[Problem] = []
    for where, row in rows:
        if limit is not None and len(problems) >= limit:
            break
        if difficulty is not None and row.get("difficulty") != difficulty:
            continue
        problem = _apps_problem(row, where)
        if problem is not None:
            problems.append(problem)
    return problems


def is_apps_source(name: str) -> bool:
    """A ``.json`` file, a ``.jsonl`` file whose first row has ``input_output``, or a hub name."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        return True
    if path.suffix == ".jsonl" and path.exists():
        return _first_jsonl_row_has(path, "input_output")
    return not path.exists() and bool(_HUB_NAME.match(name)) and path.suffix not in (".json", ".jsonl")


def _apps_problem(row: Mapping, where: str) -> Problem | None:
    pid = row.get("problem_id", row.get("id"))
    if pid is None:
        raise DatasetError(f"{where}: no problem_id")
    question = str_field(row, "question", where)
    starter = str(row.get("starter_code") or "")
    difficulty = str(row.get("difficulty") or "unknown")
    io_text = row.get("input_output") or ""
    if isinstance(io_text, str) and not io_text.strip():
        return None  # no tests: nothing can label it
    try:
        io = json.loads(io_text) if isinstance(io_text, str) else io_text
    except ValueError as exc:
        raise DatasetError(f"{where}: input_output is not valid JSON ({exc})") from None
    if not isinstance(io, dict):
        raise DatasetError(f"{where}: input_output must be an object with inputs and outputs")
    inputs, outputs, fn_name = io.get("inputs"), io.get("outputs"), io.get("fn_name")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise DatasetError(f"{where}: input_output needs lists 'inputs' and 'outputs' of the same length")
    if not inputs:
        return None
    if fn_name:
        cases = tuple((tuple(a) if isinstance(a, list) else (a,), out) for a, out in zip(inputs, outputs))
        tests = OfficialTests("call", entry_point=str(fn_name), cases=cases)
    else:
        cases = tuple((_text(a), _text(out)) for a, out in zip(inputs, outputs))
        tests = OfficialTests("stdio", cases=cases)
    prompt = _apps_prompt(question, starter, fn_name)
    return Problem(f"APPS/{pid}", f"apps-{difficulty}", prompt, fn_name or None, tests, _first_solution(row, where))


def _apps_prompt(question: str, starter: str, fn_name: str | None) -> str:
    parts = [question.strip()]
    if starter.strip():
        parts.append(starter.rstrip())
    if fn_name:
        parts.append(f"Use Call-Based format: write the function `{fn_name}`{' of the starter code' if starter.strip() else ''}; it is called with each test's arguments and its return value is checked.")
    else:
        parts.append("Use Standard Input format: read the input from standard input and print the answer to standard output.")
    return "\n\n".join(parts) + "\n"


def _text(value: Any) -> str:
    # APPS stores some inputs/outputs as lists of lines.
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


def _first_solution(row: Mapping, where: str) -> str | None:
    raw = row.get("solutions") or ""
    if isinstance(raw, str):
        if not raw.strip():
            return None
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise DatasetError(f"{where}: solutions is not valid JSON ({exc})") from None
    if isinstance(raw, list) and raw and isinstance(raw[0], str):
        return raw[0]
    return None


def _apps_local_rows(path: Path) -> Iterator[tuple[str, Mapping]]:
    if path.suffix == ".json":
        for i, row in enumerate(json_array(path, "APPS")):
            if not isinstance(row, dict):
                raise DatasetError(f"{path}: item {i}: expected an object, found {type(row).__name__}")
            yield f"{path}: item {i}", row
        return
    yield from jsonl_rows(path, "APPS")


def _apps_hub_rows(name: str, split: str) -> Iterator[tuple[str, Mapping]]:
    """Rows from the Hugging Face hub. Not exercised by the tests: no hub access where they run."""
    try:
        from datasets import load_dataset  # noqa: PLC0415 - optional, heavy
    except ImportError:
        raise DatasetError(f"{name!r} is not a local file, and loading it from the hub needs the datasets library (pip install datasets)") from None
    try:
        # codeparrot/apps is a script data set; newer datasets versions refuse scripts and serve
        # the hub's Parquet conversion instead.
        data = load_dataset(name, split=split, trust_remote_code=True)
    except Exception as first:  # noqa: BLE001 - retried below, and both reasons reported
        try:
            data = load_dataset(name, split=split, revision="refs/convert/parquet")
        except Exception as second:
            raise DatasetError(f"cannot load {name!r} (split {split!r}) from the hub: {first}; with the Parquet conversion: {second}") from second
    for i, row in enumerate(data):
        yield f"{name} [{split}] row {i}", row


def _first_jsonl_row_has(path: Path, key: str) -> bool:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError:
                    return False  # the loader that follows reports the line
                return isinstance(row, dict) and key in row
    return False
