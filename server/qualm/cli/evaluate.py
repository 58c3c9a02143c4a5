"""``qualm eval`` and ``qualm report``: flags, progress and printing; the evaluation itself is
``qualm.evaluation.runner``'s (imported when a command runs: it needs the eval extra)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import typer

from ..evaluation.groups import ALL_GROUPS
from ..model.files import cache_dir
from .common import CliError, ModelFlags, load_backend, problem_log, with_model_flags
from .terminal import console

Progress = Callable[[int, int, str, str], None]  # as qualm.evaluation.runner.Progress
REMOTE_IN_FLIGHT = 8  # problems at once against a server: enough to keep its batch full between stages


@with_model_flags
def eval_(
    dataset: list[str] = typer.Option(["humaneval"], "--dataset", "-d", help="humaneval | mbpp | mbpp-sanitized | apps | apps-introductory|-interview|-competition | a hub name (APPS format) | a file; repeat for several."),
    split: str | None = typer.Option(None, "--split", help="MBPP: test (task_ids 11-510, the default), calibration (511-974) or all; APPS on the hub: its split."),
    limit: int | None = typer.Option(None, "--limit", help="The first N problems of each data set."),
    methods: str = typer.Option(",".join(ALL_GROUPS), "--methods", help=f"Method groups, comma-separated: {', '.join(ALL_GROUPS)}."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of every sampled output (default: the settings', 42)."),
    n_samples: int = typer.Option(10, "--n-samples", help="Code samples for the consistency baselines (the paper's N)."),
    symbolic_timeout: float = typer.Option(5.0, "--symbolic-timeout", help="CrossHair's seconds per comparison in Symbolic Clustering."),
    symbolic_jobs: int | None = typer.Option(None, "--symbolic-jobs", min=1, help="Problems clustered at once by Symbolic Clustering (default: every core; the model is idle by then)."),
    in_flight: int | None = typer.Option(None, "--in-flight", min=1, help="Problems whose model work runs at once (default: 1 with a local model, 8 with --backend openai; the server never gets more than model.max_concurrency requests at once)."),
    calibration: str | None = typer.Option(None, "--calibration", help="Where to fit P(pass): a data set as DATASET[:SPLIT[:LIMIT]], e.g. mbpp:calibration:90 (never the test split), or the results.json of a three-axis run on one (no model work)."),
    out: Path = typer.Option(Path("results/eval"), "--out", help="Folder for results.json, table.md, claims.md and the plots."),
    cache: Path | None = typer.Option(None, "--cache", help="Pipeline cache (default: qualm's cache folder/eval); a run resumes from it."),
    *,
    flags: ModelFlags,
) -> None:
    """Reproduce the paper's tables: every method on HumanEval, MBPP, APPS or your own problems."""
    # The evaluation needs the eval extra (scikit-learn, SciPy, CodeBLEU, CrossHair): loaded only here.
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn  # noqa: PLC0415 - see above

    from ..evaluation.pipeline import PipelineOptions  # noqa: PLC0415 - see above
    from ..evaluation.report import write_report  # noqa: PLC0415 - see above
    from ..evaluation.runner import EvalPlan, load_inputs, run_evaluation  # noqa: PLC0415 - see above
    from ..evaluation.symbolic import SymbolicConfig  # noqa: PLC0415 - see above

    groups = tuple(g.strip() for g in methods.split(",") if g.strip())
    try:  # every refusal comes before the model is loaded
        plan = EvalPlan(groups, PipelineOptions(n_samples=n_samples), SymbolicConfig(per_condition_timeout=symbolic_timeout), symbolic_jobs or 0)
        inputs = load_inputs(dataset, split=split, limit=limit, calibration=calibration)
    except ValueError as exc:  # DatasetError is one
        raise CliError(str(exc)) from exc
    settings = flags.settings(seed=seed)
    backend = load_backend(settings)
    # a local model decodes one problem at a time whatever runs around it; a server batches many
    plan = replace(plan, in_flight=in_flight or (REMOTE_IN_FLIGHT if backend.info.capabilities.remote else 1))
    command = "qualm eval " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "qualm eval"
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=console(stderr=True)) as bar:
        runs = run_evaluation(backend, inputs, settings, plan, cache or cache_dir() / "eval", command, on_stage=_stages(bar))
    for path in write_report(runs, out):
        print(path)


def report(
    results: list[Path] = typer.Argument(..., help="results.json files written by qualm eval (one run per data set and model across them)."),
    out: Path = typer.Option(..., "--out", help="Folder for the combined results.json, table.md, claims.md and the plots."),
) -> None:
    """Write one report from the results of separate qualm eval runs, without the model or the cache."""
    from ..evaluation.report import load_runs, write_report  # noqa: PLC0415 - the eval extra, as above

    try:
        runs = [run for path in results for run in load_runs(path)]
        written = write_report(runs, out)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    for path in written:
        print(path)


def _stages(bar) -> Callable[[str, int], Progress]:
    """Each stage of a run gets a bar of its own in a terminal; in a log file (a background run)
    its title, then a line per finished problem (Symbolic Clustering alone can take hours)."""

    def start(title: str, total: int) -> Progress:
        task = bar.add_task(title, total=total)
        log = None
        if not bar.console.is_terminal:
            print(title, file=sys.stderr, flush=True)
            log = problem_log()

        def update(done: int, total: int, task_id: str, step: str) -> None:
            bar.update(task, completed=done, description=f"{task_id} · {step}" if step != "done" else task_id)
            if log is not None and step == "done":
                log.finished(done, total, task_id)

        return update

    return start
