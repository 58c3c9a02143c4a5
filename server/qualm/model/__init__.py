"""Model access: locate or assemble a GGUF, load it behind the :class:`ModelBackend` interface."""

from __future__ import annotations

from ..settings import ModelSettings
from .backend import CancelToken, GenerationOptions, ModelBackend, ModelInfo, ModelRuntimeError
from .files import DEFAULT_MODEL, ModelFileError, resolve_model_path


def load_model(settings: ModelSettings) -> ModelBackend:
    """Load the configured model (the default model when no path is set).

    Raises :class:`ModelFileError` with a one-line message that says what to do.
    """
    from .llama_cpp_backend import LlamaCppBackend  # noqa: PLC0415 - heavy native import

    path, known = resolve_model_path(settings.path)
    return LlamaCppBackend(path, settings, display_name=known.display_name if known else None)


__all__ = [
    "CancelToken",
    "DEFAULT_MODEL",
    "GenerationOptions",
    "ModelBackend",
    "ModelFileError",
    "ModelInfo",
    "ModelRuntimeError",
    "load_model",
]
