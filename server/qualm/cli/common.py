"""What every command shares: the model flags, settings, loading the model, reading sources."""

from __future__ import annotations

import functools
import inspect
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import typer

from ..lang import FunctionSource, language_for
from ..model import ModelBackend, load_model
from ..settings import Settings, load_user_settings
from .terminal import ProblemLog, console


class CliError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


@dataclass(frozen=True)
class ModelFlags:
    """The flags of every command that loads a model, as the command receives them."""

    model: str | None = None
    backend: str | None = None
    n_gpu_layers: int | None = None
    threads: int | None = None
    endpoint: str | None = None

    def settings(self, **generation: Any) -> Settings:
        """The user's settings file, then these flags (and a command's generation flags) on top; the
        tests of the user's code run with the active virtual environment's Python where the file
        names none (``tests_python``)."""
        chosen = {"path": self.model, "backend": self.backend, "n_gpu_layers": self.n_gpu_layers, "n_threads": self.threads, "endpoint": self.endpoint}
        model_section = {k: v for k, v in chosen.items() if v is not None}
        settings = load_user_settings().with_overrides(model=model_section, generation={k: v for k, v in generation.items() if v is not None})
        python = tests_python(settings.functional.python, os.environ)
        return settings.with_overrides(functional={"python": python}) if python != settings.functional.python else settings


def tests_python(configured: str, environ: Mapping[str, str]) -> str:
    """The Python for the tests of the user's code on the command line: the configured one, else the
    activated virtual environment's (``VIRTUAL_ENV``, as the shell that runs qualm has it: its
    packages are the project's), else "" (qualm's own)."""
    if configured:
        return configured
    venv = environ.get("VIRTUAL_ENV", "")
    python = Path(venv) / "bin" / "python" if venv else None
    return str(python) if python is not None and python.exists() else ""


# The command-line face of ModelFlags, in its field order (typer reads parameters, not dataclasses).
_FLAG_OPTIONS: dict[str, tuple[Any, Any]] = {
    "model": (str | None, typer.Option(None, "--model", "-m", help="Path to a GGUF model, or a known model's name once fetched (qwen2.5-coder-1.5b-instruct-q4_k_m); default: the bundled Qwen2.5-Coder-0.5B. For --backend scripted, its script.")),
    "backend": (str | None, typer.Option(None, "--backend", help="Which backend runs the model (default llama_cpp; see qualm.backends).")),
    "n_gpu_layers": (int | None, typer.Option(None, "--n-gpu-layers", help="Layers to offload to the GPU (-1: all; needs a GPU build).")),
    "threads": (int | None, typer.Option(None, "--threads", help="CPU threads (default: all cores).")),
    "endpoint": (str | None, typer.Option(None, "--endpoint", help="With --backend openai: the inference server's URL (README, Team setup).")),
}
assert list(_FLAG_OPTIONS) == [f.name for f in fields(ModelFlags)]


def with_model_flags(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the model flags (--model, --backend, --n-gpu-layers, --threads, --endpoint); it declares
    one keyword-only parameter ``flags: ModelFlags`` and receives them in it."""
    signature = inspect.signature(command)
    own = [p for p in signature.parameters.values() if p.name != "flags"]
    extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind) for name, (kind, option) in _FLAG_OPTIONS.items()]

    @functools.wraps(command)
    def with_flags(**kwargs: Any) -> Any:
        flags = ModelFlags(**{name: kwargs.pop(name) for name in _FLAG_OPTIONS})
        return command(**kwargs, flags=flags)

    with_flags.__signature__ = signature.replace(parameters=own + extra)  # type: ignore[attr-defined]
    with_flags.__annotations__ = {k: v for k, v in command.__annotations__.items() if k != "flags"} | {n: k for n, (k, _) in _FLAG_OPTIONS.items()}
    return with_flags


def load_backend(settings: Settings) -> ModelBackend:
    err = console(stderr=True)
    with err.status("loading model…"):
        return load_model(settings.model)


def read_source(source: str) -> tuple[str, str]:
    """The text of a file, or of stdin for '-', and the name to show for it."""
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


def target_functions(target: str, verb: str) -> tuple[str, list[FunctionSource]]:
    """FILE or FILE::FUNCTION -> the file's display name and the functions it names."""
    file_part, _, func_name = target.partition("::")
    text, name = read_source(file_part)
    language = language_for(filename=name)
    functions = [language.find_function(text, func_name, name)] if func_name else language.runnable_functions(text, name)
    if not functions:
        raise CliError(f"{name}: no functions to {verb}")
    return name, functions


def problem_log() -> ProblemLog:
    """A line per finished problem on stderr, with the time left: what a long run shows where
    stderr is a log file (a live bar needs a terminal) and what calibration always shows."""
    return ProblemLog(lambda line: print(line, file=sys.stderr, flush=True), time.monotonic)
