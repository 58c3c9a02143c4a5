"""The model backend interface: everything the engine asks of a language model.

Callers (signals, assessment, the language server) depend only on this protocol, so a second
backend, for example an OpenAI-compatible HTTP server, can be added without touching them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..prompts import ChatPrompt, InfillPrompt
from ..trace import TokenRecord, Trace
from .identity import ModelIdentity
from .text_stream import TextStream


class CancelToken:
    """Set from any thread; the decoding loop checks it before every token. A token made with
    parents is also cancelled when one of them is: an operation's own token, joined to its caller's,
    that the operation cancels when one of its parts fails, to stop the others.

    ``checkpoint``: what the work holding the token does at :meth:`checkpoint` (the language server's
    model worker runs a completion that waits there, so that ghost text need not wait for a whole
    assessment)."""

    def __init__(self, *parents: CancelToken | None, checkpoint: Callable[[], None] | None = None) -> None:
        self._event = threading.Event()
        self._parents = tuple(p for p in parents if p is not None)
        self._checkpoint = checkpoint

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set() or any(p.cancelled for p in self._parents)

    def checkpoint(self) -> None:
        """Let more urgent model work run now, if any waits. Backends call it only where nothing the
        work relies on sits in the model's main context (before a call, between a batch's steps):
        the urgent work may use that context."""
        if self._checkpoint is not None:
            self._checkpoint()
        for p in self._parents:
            p.checkpoint()

    def or_after(self, seconds: float) -> Callable[[], bool]:
        """A sandbox run's ``should_stop``: this token cancelled, or ``seconds`` passed from now (a
        program that loops is not worth the wait)."""
        end = time.monotonic() + seconds
        return lambda: self.cancelled or time.monotonic() > end


@dataclass(frozen=True)
class GenerationOptions:
    max_tokens: int = 1024
    temperature: float = 0.0  # 0: greedy (argmax); otherwise sampled with top_p and seed
    top_p: float = 1.0
    seed: int = 42
    top_alternatives: int = 5
    # Reuse the model's cache of the longest prompt prefix shared with the previous generation or
    # scoring (a rewrite from a token shares the completion's prompt up to that token; the model's
    # solutions share the opening of the function just scored: in a batch, every job must ask).
    # Off by default: from a reused prefix the numbers differ from a fresh run's by batch-shape
    # rounding. Servers keep their own prefix caches, so remote backends ignore it.
    reuse_cache: bool = False

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do; callers ask this instead of knowing which backend they hold."""

    exact_entropy: bool  # entropy over the full next-token distribution (else a bound from the top N)
    teacher_forcing: bool  # score(): records for text the model did not write
    parallel_sequences: bool  # generate_batch() decodes samples together over one shared prompt
    gpu: bool  # layers run on a GPU (or the server behind it does)
    max_alternatives: int  # most alternatives a token record can carry
    remote: bool = False  # the model runs on an inference server (``gpu`` then unknown here)
    # generate() takes an InfillPrompt: the model has fill-in-the-middle tokens (qualm.model.fim)
    infill: bool = False

    def describe(self) -> str:
        words = [
            "exact entropy" if self.exact_entropy else "entropy bounds",
            "scoring existing code" if self.teacher_forcing else "no scoring of existing code",
            "parallel samples" if self.parallel_sequences else "samples one at a time",
            "on a server" if self.remote else "GPU" if self.gpu else "CPU",
        ]
        if self.infill:
            words.insert(3, "fill-in-the-middle")
        return ", ".join(words)


@dataclass(frozen=True)
class ModelInfo:
    """What callers may know about a loaded model, whatever the backend."""

    name: str
    identity: ModelIdentity
    backend: str  # the registry name: "llama_cpp", ...
    capabilities: Capabilities
    context_length: int  # the context qualm runs with
    vocab_size: int
    # The backend's own facts for people (path, size, threads, GPU layers, build), in display order.
    details: tuple[tuple[str, str], ...] = ()
    chat_template: str = ""

    def detail(self, key: str, default: str = "") -> str:
        return dict(self.details).get(key, default)

    def summary(self) -> str:
        """One line for a log: name, backend and what it can do."""
        return f"{self.name} on {self.backend} ({self.capabilities.describe()})"


OnToken = Callable[[TokenRecord], None]


class ModelBackend(Protocol):
    @property
    def info(self) -> ModelInfo: ...

    def render_prompt(self, prompt: ChatPrompt | InfillPrompt) -> str:
        """The exact text the model sees: chat template applied, assistant reply started; for an
        infill prompt, its parts between the model's FIM markers."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` is for this model (an estimate where the tokenizer is remote)."""
        ...

    def generate(
        self,
        prompt: ChatPrompt | InfillPrompt,
        options: GenerationOptions,
        on_token: OnToken | None = None,
        cancel: CancelToken | None = None,
    ) -> Trace:
        """Continue the prompt (an InfillPrompt only where ``capabilities.infill``); ``on_token``
        receives each final record as soon as it is certain."""
        ...

    def generate_batch(
        self,
        jobs: Sequence[tuple[ChatPrompt, GenerationOptions]],
        on_progress: Callable[[int], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Trace]:
        """Several samples at once (plans, self-tests); a backend may decode them in parallel."""
        ...

    def score(self, prompt: ChatPrompt, text: str, cancel: CancelToken | None = None, top_alternatives: int = 5) -> Trace:
        """Teacher-forced: records for each token of ``text`` as if the model had written it, each
        with the model's ``top_alternatives`` likeliest tokens at that place."""
        ...

    def close(self) -> None: ...


def generated_trace(stream: TextStream, options: GenerationOptions, *, model: str, prompt: str, vocab_size: int, stop_reason: str, seconds: float, prompt_tokens: int = 0, extra: dict | None = None) -> Trace:
    """The trace of a finished generation: what every backend records the same way (mode, sampling
    options, seed only when sampled)."""
    return Trace(
        text=stream.text,
        tokens=stream.records,
        model=model,
        mode="greedy" if options.greedy else "sampled",
        prompt=prompt,
        prompt_tokens=prompt_tokens,
        vocab_size=vocab_size,
        temperature=options.temperature,
        top_p=options.top_p,
        seed=None if options.greedy else options.seed,
        stop_reason=stop_reason,  # type: ignore[arg-type]
        seconds=seconds,
        extra={
            **(extra or {}),
            **({"end_rule": stream.end_rule} if stream.end_rule else {}),
            # what the model began with when the rules left nothing (qualm.engine.completion)
            **({"opening": stream.opening} if stream.opening is not None and stream.end_rule and not stream.text.strip() else {}),
        },
    )


class ModelRuntimeError(RuntimeError):
    """The model failed while running (context overflow, decode error)."""


class ModelUnreachable(ModelRuntimeError):
    """The model runs elsewhere (an inference server) and a request to it failed: down, overloaded,
    cut mid-answer. Unlike other runtime errors a later request may succeed."""


class TeacherForcingUnavailable(ModelRuntimeError):
    """The backend cannot score text it did not write (a served engine without prompt
    log-probabilities); the message says why. The lexical axis of code in the file is then
    unavailable with that reason, never zero."""
