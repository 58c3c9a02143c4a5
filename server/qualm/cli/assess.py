"""``qualm assess``: the three axes (lexical, algorithmic, functional) and the ensemble, per function."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .. import engine
from ..lang import language_named
from .common import ModelFlags, load_backend, target_functions, with_model_flags
from .terminal import assessment_report, console


@with_model_flags
def assess(
    target: str = typer.Argument(..., help="FILE or FILE::FUNCTION; a whole file assesses every function."),
    as_json: bool = typer.Option(False, "--json", help="Print the assessments as JSON."),
    plans: int | None = typer.Option(None, "--plans", help="N, the number of plans (default: the setting algorithmic.n_plans, 5; the paper: 10)."),
    tests: int | None = typer.Option(None, "--tests", help="M, the number of self-tests (default: the setting functional.n_tests, 10)."),
    seed: int | None = typer.Option(None, "--seed", help="Sampling seed (default 42)."),
    calibration: str | None = typer.Option(None, "--calibration", help="A calibration file (default: the model's own)."),
    *,
    flags: ModelFlags,
) -> None:
    """Assess functions on the three axes: lexical, algorithmic (plans), functional (self-tests)."""
    name, functions = target_functions(target, "assess")
    settings = flags.settings(seed=seed).with_overrides(
        algorithmic={"n_plans": plans} if plans else {},
        functional={"n_tests": tests} if tests else {},
        ensemble={"calibration_file": calibration} if calibration else {},
    )
    # the file's own modules import as they do when the project runs from here
    roots = engine.roots_for(language_named(functions[0].language), name, [Path.cwd()])
    backend = load_backend(settings)
    cal = engine.calibration_for(backend.info.identity, settings.ensemble)
    err = console(stderr=True)
    results = []
    for fn in functions:
        with err.status(f"assessing {fn.name}…") as status:
            results.append(engine.assess_function(backend, fn, settings, cal, progress=lambda stage, msg, name=fn.name: status.update(f"{name}: {stage}: {msg}"), roots=roots))
    if as_json:
        print(json.dumps([r.to_dict() for r in results], indent=1))
        return
    out = console()
    for r in results:
        out.rule()
        for part in assessment_report(r, name):
            out.print(part)
