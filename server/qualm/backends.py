"""Model backends by name: ``model.backend`` picks one, and a new backend is one module plus one
entry here.

Each entry names a module and its loader (``ModelSettings -> ModelBackend``), imported only when
chosen, so a backend's heavy or optional dependencies (llama.cpp's native library, an HTTP client)
cost nothing to the others. This module imports nothing of qualm: the settings check
``model.backend`` against it, and the model package loads through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any


@dataclass(frozen=True)
class BackendEntry:
    name: str
    module: str  # imported on first use
    loader: str  # a function of that module: (qualm.settings.ModelSettings) -> qualm.model.ModelBackend
    description: str

    def load(self, settings: Any) -> Any:
        return getattr(import_module(self.module), self.loader)(settings)


BACKENDS: dict[str, BackendEntry] = {
    e.name: e
    for e in (
        BackendEntry("llama_cpp", "qualm.model.llama_cpp_backend", "load", "a local GGUF model in this process (llama.cpp, CPU or GPU)"),
        BackendEntry("openai", "qualm.model.remote.backend", "load", "an OpenAI-compatible inference server (llama.cpp's llama-server, llama-cpp-python's server, vLLM, SGLang): model.endpoint"),
        BackendEntry("scripted", "qualm.model.scripted_backend", "load", "replays a JSON script of tokens: tests and demos without a model"),
    )
}


class UnknownBackend(ValueError):
    pass


def backend_entry(name: str) -> BackendEntry:
    try:
        return BACKENDS[name]
    except KeyError:
        raise UnknownBackend(f"unknown model backend {name!r}; known: {', '.join(BACKENDS)}") from None
