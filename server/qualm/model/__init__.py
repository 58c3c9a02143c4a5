"""Model access: a backend chosen by ``model.backend`` (``qualm.backends``), behind :class:`ModelBackend`."""

from __future__ import annotations

from ..backends import BACKENDS, UnknownBackend, backend_entry
from ..settings import ModelSettings
from .backend import CancelToken, Capabilities, GenerationOptions, ModelBackend, ModelInfo, ModelRuntimeError, ModelUnreachable, TeacherForcingUnavailable
from .files import DEFAULT_MODEL, ModelFileError
from .identity import ModelIdentity


def load_model(settings: ModelSettings) -> ModelBackend:
    """Load the configured model with the configured backend (the default GGUF when no path is set).

    Raises :class:`ModelFileError` (or :class:`UnknownBackend`) with a one-line message that says what to do.
    """
    backend: ModelBackend = backend_entry(settings.backend).load(settings)
    return backend


__all__ = [
    "BACKENDS",
    "Capabilities",
    "CancelToken",
    "DEFAULT_MODEL",
    "GenerationOptions",
    "ModelBackend",
    "ModelFileError",
    "ModelIdentity",
    "ModelInfo",
    "ModelRuntimeError",
    "ModelUnreachable",
    "TeacherForcingUnavailable",
    "UnknownBackend",
    "load_model",
]
