"""``qualm check``: the gate for CI and pre-commit. Scores (or assesses) the functions of files or of
the files changed against a git ref, prints a summary, writes JSON and SARIF, and exits 1 when a
function fails the gate (qualm.check)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from .. import engine
from ..check import CheckReport, FunctionCheck, TargetError, check_files, choose_targets, gate_for, sarif_log
from ..model import TeacherForcingUnavailable
from .common import CliError, ModelFlags, load_backend, with_model_flags
from .terminal import console

VERDICT_MARKS = {"pass": ("✓ pass", "green"), "fail": ("✗ fail", "bold red"), "unknown": ("? unknown", "yellow"), "skipped": ("– skipped", "dim")}


@with_model_flags
def check(
    paths: list[str] | None = typer.Argument(None, help="Files, or folders to walk for the files of qualm's languages (hidden folders skipped)."),
    changed: str | None = typer.Option(None, "--changed", metavar="REF", help="The files changed against this git ref (git diff REF, plus untracked files; deleted ones skipped), kept to PATHS when some are named. HEAD: uncommitted changes; origin/main: a pull request's."),
    assess: bool = typer.Option(False, "--assess", help="Assess each function (three axes, minutes on a CPU) and gate on its calibrated chance of passing."),
    min_chance: float | None = typer.Option(None, "--min-chance", help="With --assess: fail a function below this chance of passing, 0 to 1 (setting check.min_chance, default 0.3)."),
    score_name: str | None = typer.Option(None, "--score", help="Without --assess: the lexical score gated on, in nats (setting check.score, default max_surprisal)."),
    max_score: float | None = typer.Option(None, "--max-score", help="Without --assess: fail a function above this score in nats (setting check.max_score, default 11)."),
    json_out: str | None = typer.Option(None, "--json", metavar="FILE", help="Write the report as JSON to FILE ('-': stdout, the summary then goes to stderr)."),
    sarif_out: str | None = typer.Option(None, "--sarif", metavar="FILE", help="Write the failures as SARIF 2.1.0 to FILE (GitHub code scanning)."),
    *,
    flags: ModelFlags,
) -> None:
    """Gate code on how far to trust it: exit 0 when every function passes, 1 when one fails, 2 when something could not be checked."""
    if not paths and changed is None:
        raise CliError("name files or folders to check, or --changed REF (e.g. --changed HEAD)")
    overrides = {"min_chance": min_chance, "score": score_name, "max_score": max_score}
    settings = flags.settings().with_overrides(check={k: v for k, v in overrides.items() if v is not None})
    gate = gate_for(settings.check, assess, settings.lexical.top_k)
    try:
        targets = choose_targets(paths or [], changed, Path.cwd())
    except TargetError as exc:
        raise CliError(str(exc)) from exc
    err = console(stderr=True)
    out = err if json_out == "-" else console()
    if not targets.files:
        # nothing to look at is a pass; the reports are still written, so CI's upload step finds its file
        report = CheckReport(root=targets.root, model="(not loaded)", gate=gate, files=(), functions=(), ignored=targets.ignored)
    else:
        backend = load_backend(settings)
        calibration = engine.calibration_for(backend.info.identity, settings.ensemble) if assess else None
        try:
            with err.status("checking…") as status:
                report = check_files(backend, targets, settings, gate, calibration, progress=lambda i, n, what: status.update(f"{'assessing' if assess else 'scoring'} {i + 1}/{n}: {what}"))
        except TeacherForcingUnavailable as exc:
            raise CliError(f"cannot score code in the file on this model ({exc}): the score-only gate needs it; --assess gates on the chance of passing instead (with a calibration file for this model)") from exc
    write_reports(report, json_out, sarif_out)
    for part in summary(report):
        out.print(part)
    raise typer.Exit(report.exit_code)


def write_reports(report: CheckReport, json_out: str | None, sarif_out: str | None) -> None:
    if json_out == "-":
        print(json.dumps(report.to_dict(), indent=1))
    elif json_out:
        _write(json_out, report.to_dict())
    if sarif_out:
        _write(sarif_out, sarif_log(report))


def _write(name: str, data: dict) -> None:
    try:
        Path(name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{name}: cannot write ({exc.strerror or exc})") from exc


def _number(f: FunctionCheck, report: CheckReport) -> str:
    if f.value is None:
        return "—"
    return report.gate.show(f.value)


def summary(report: CheckReport) -> list:
    """Renderables: a row per function, then the counts and what was not checked."""
    parts: list = []
    if report.functions:
        table = Table(title=f"qualm check · {report.model} · gate: {report.gate.describe()}", title_justify="left")
        explain = any(f.verdict != "pass" for f in report.functions)
        for col in ("function", "lines", "tokens", report.gate.words(), "verdict", *(["why"] if explain else [])):
            table.add_column(col, justify="right" if col in ("lines", "tokens", report.gate.words()) else "left")
        for f in report.functions:
            mark, style = VERDICT_MARKS[f.verdict]
            why = [] if not explain else ["" if f.verdict == "pass" else f.reason]
            table.add_row(f"{f.path}::{f.function}", f"{f.start_line}-{f.end_line}", str(f.tokens), _number(f, report), Text(mark, style=style), *why)
        parts.append(table)
    counts = report.summary()
    line = Text()
    line.append(f"{counts['functions']} function{'s' if counts['functions'] != 1 else ''} in {counts['files']} file{'s' if counts['files'] != 1 else ''}: ", style="bold")
    line.append(f"{counts['pass']} passed", style="green")
    line.append(", ")
    line.append(f"{counts['fail']} failed", style="bold red" if counts["fail"] else "")
    if counts["unknown"]:
        line.append(f", {counts['unknown']} could not be judged", style="yellow")
    if counts["skipped"]:
        line.append(f", {counts['skipped']} skipped (nothing to score)", style="dim")
    line.append(f" · {report.seconds:.1f} s")
    parts.append(line)
    for f in report.problems:
        parts.append(Text(f"not checked: {f.problem}", style="yellow"))
    for path, why in report.ignored:
        parts.append(Text(f"ignored: {path}: {why}", style="dim"))
    if not report.files:
        parts.append(Text("nothing to check: no changed or named files of qualm's languages", style="dim"))
    return parts
