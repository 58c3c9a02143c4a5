"""Samples that depend only on the problem, kept between assessments of the same function.

The N plans and the test list are written from the problem description alone (signature,
docstring, imports), with fixed seeds: assessing the function again after an edit to its body,
or assessing a second version of it, would decode exactly the same samples again. They are most
of an assessment's cost (the plans alone about two thirds on a CPU), so they are kept here, keyed
by everything they depend on: the model, the rendered prompt and the sampling options. The code's
own plan depends on the code and is never kept. The runs of the model's own solutions on its tests
(``qualm.engine.solutions``) are kept beside them, keyed by the solution and the tests.

An object, not a module global: the language server keeps one per loaded model, the CLI one per
run, and a benchmark one for its pairs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..model import GenerationOptions
from ..prompts import ChatPrompt
from ..trace import Trace

Key = tuple[str, str, str, GenerationOptions]


class SampleCache:
    def __init__(self, max_entries: int = 256) -> None:
        self._max = max_entries
        self._entries: OrderedDict[Key, Trace] = OrderedDict()
        # Other results that depend on the problem alone (the runs of the model's solutions).
        self._values: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(model_digest: str, prompt: ChatPrompt, options: GenerationOptions) -> Key:
        return (model_digest, prompt.name, prompt.user + "\x00" + prompt.assistant_prefix, options)

    def get(self, key: Key) -> Trace | None:
        with self._lock:
            trace = self._entries.get(key)
            if trace is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return trace

    def put(self, key: Key, trace: Trace) -> None:
        # A cut-short sample (cancelled) is not the sample: never keep it.
        if trace.stop_reason == "cancelled":
            return
        with self._lock:
            self._entries[key] = trace
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def get_value(self, key: Hashable) -> Any:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
            return None

    def put_value(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._max:
                self._values.popitem(last=False)

    def value_keys(self) -> list[Hashable]:
        """The keys of the kept values, oldest first (what was run, for a test or a benchmark)."""
        with self._lock:
            return list(self._values)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._values.clear()

    def __len__(self) -> int:
        return len(self._entries)


Job = tuple[ChatPrompt, GenerationOptions]


def decode_with_cache(
    jobs: Sequence[Job],
    cacheable: Sequence[bool],
    model_digest: str,
    cache: SampleCache | None,
    decode: Callable[[list[Job]], list[Trace]],
) -> tuple[list[Trace], list[bool]]:
    """Traces for ``jobs`` in order: cached ones where ``cacheable`` and present, the rest decoded
    together in one call of ``decode``. Returns the traces and, for each, whether it was reused."""
    found: dict[int, Trace] = {}
    if cache is not None:
        for i, (job, keep) in enumerate(zip(jobs, cacheable)):
            if keep and (t := cache.get(SampleCache.key(model_digest, *job))) is not None:
                found[i] = t
    todo = [i for i in range(len(jobs)) if i not in found]
    decoded = decode([jobs[i] for i in todo]) if todo else []
    for i, trace in zip(todo, decoded):
        found[i] = trace
        if cache is not None and cacheable[i]:
            cache.put(SampleCache.key(model_digest, *jobs[i]), trace)
    return [found[i] for i in range(len(jobs))], [i not in todo for i in range(len(jobs))]
