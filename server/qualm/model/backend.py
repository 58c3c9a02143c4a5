"""The model backend interface: everything the engine asks of a language model.

Callers (signals, assessment, the language server) depend only on this protocol, so a second
backend, for example an OpenAI-compatible HTTP server, can be added without touching them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from ..prompts import ChatPrompt
from ..trace import TokenRecord, Trace


class CancelToken:
    """Set from any thread; the decoding loop checks it before every token."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass(frozen=True)
class GenerationOptions:
    max_tokens: int = 1024
    temperature: float = 0.0  # 0: greedy (argmax); otherwise sampled with top_p and seed
    top_p: float = 1.0
    seed: int = 42
    top_alternatives: int = 5

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0


@dataclass(frozen=True)
class ModelInfo:
    name: str
    path: str
    size_bytes: int
    context_length: int  # the context qualm runs with
    trained_context_length: int
    vocab_size: int
    n_threads: int
    n_gpu_layers: int
    backend: str
    build: str  # the backend's own description of its build (CPU features, GPU)
    chat_template: str = ""


OnToken = Callable[[TokenRecord], None]


class ModelBackend(Protocol):
    @property
    def info(self) -> ModelInfo: ...

    def render_prompt(self, prompt: ChatPrompt) -> str:
        """The exact text the model sees: chat template applied, assistant reply started."""
        ...

    def generate(
        self,
        prompt: ChatPrompt,
        options: GenerationOptions,
        on_token: OnToken | None = None,
        cancel: CancelToken | None = None,
    ) -> Trace:
        """Continue the prompt; ``on_token`` receives each final record as soon as it is certain."""
        ...

    def generate_batch(
        self,
        jobs: Sequence[tuple[ChatPrompt, GenerationOptions]],
        on_progress: Callable[[int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Trace]:
        """Several samples at once (plans, self-tests); a backend may decode them in parallel."""
        ...

    def score(self, prompt: ChatPrompt, text: str, cancel: CancelToken | None = None) -> Trace:
        """Teacher-forced: records for each token of ``text`` as if the model had written it."""
        ...

    def close(self) -> None: ...


class ModelRuntimeError(RuntimeError):
    """The model failed while running (context overflow, decode error)."""
