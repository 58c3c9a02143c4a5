"""qualm's command line: ``qualm generate | score | assess | calibrate | eval | report | serve | model``
(also ``python -m qualm``). One module per command family; this one wires them into one app and
turns qualm's own errors into one line and exit code 2."""

from __future__ import annotations

import sys

import typer
from rich.text import Text

from qualm_sandbox import SandboxUnavailable

from ..calibration_file import CalibrationError
from ..lang import SourceError
from ..model import ModelFileError, ModelRuntimeError, UnknownBackend
from ..settings import SettingsError
from . import assess, calibrate, check, evaluate, generate, model, score, serve
from .common import CliError
from .terminal import console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="How far to trust code written by a language model.")
app.add_typer(model.model_app, name="model")
app.command()(generate.generate)
app.command()(score.score)
app.command()(serve.serve)
app.command()(assess.assess)
app.command()(check.check)
app.command()(calibrate.calibrate)
app.command("eval")(evaluate.eval_)
app.command()(evaluate.report)

USER_ERRORS = (CliError, SourceError, ModelFileError, ModelRuntimeError, UnknownBackend, SettingsError, CalibrationError, SandboxUnavailable)


def main() -> None:
    try:
        app(prog_name="qualm")  # standalone: typer prints usage errors itself and exits
    except USER_ERRORS as exc:
        console(stderr=True).print(Text.assemble(("qualm: ", "bold red"), str(exc)))
        sys.exit(2)


__all__ = ["CliError", "app", "main"]
