"""One model behind one queue, off the event loop.

The LSP event loop never runs model work: handlers submit jobs here and await the returned
asyncio future, so hover and code lens keep answering while a completion streams. A job submitted
under a key (say, "complete:<uri>") cancels the unfinished job with the same key: a newer
completion for a document replaces the older one.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import CancelToken

Job = Callable[[CancelToken], Any]


@dataclass
class _Item:
    fn: Job
    cancel: CancelToken
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    key: str | None = None
    done: threading.Event = field(default_factory=threading.Event)


class ModelWorker:
    """``on_idle`` is called on the submitting loop whenever a job ends and none is waiting: a job
    whose caller stopped waiting (a cancelled request) may still be finishing its current token."""

    def __init__(self, name: str = "qualm-model", on_idle: Callable[[], None] | None = None) -> None:
        self._on_idle = on_idle
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._by_key: dict[str, _Item] = {}
        self._lock = threading.Lock()
        self._busy = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self._busy.is_set()

    def submit(self, fn: Job, key: str | None = None, cancel: CancelToken | None = None) -> tuple[asyncio.Future, CancelToken]:
        """Queue ``fn(cancel)``; returns an asyncio future (of the calling loop) and its token."""
        loop = asyncio.get_running_loop()
        item = _Item(fn, cancel or CancelToken(), loop.create_future(), loop, key)
        with self._lock:
            if key is not None:
                older = self._by_key.get(key)
                if older is not None and not older.done.is_set():
                    older.cancel.cancel()
                self._by_key[key] = item
        self._queue.put(item)
        return item.future, item.cancel

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if item.cancel.cancelled:  # cancelled while it waited: never started
                self._finish(item, None, asyncio.CancelledError())
            else:
                self._busy.set()
                try:
                    result = item.fn(item.cancel)
                except BaseException as exc:  # noqa: BLE001 - handed to the awaiting handler
                    self._finish(item, None, exc)
                else:
                    self._finish(item, result, None)
                finally:
                    self._busy.clear()
            if self._on_idle is not None and self._queue.empty():
                try:
                    item.loop.call_soon_threadsafe(self._on_idle)
                except RuntimeError:
                    pass  # the loop is closed

    def _finish(self, item: _Item, result: Any, exc: BaseException | None) -> None:
        item.done.set()
        with self._lock:
            if item.key is not None and self._by_key.get(item.key) is item:
                del self._by_key[item.key]

        def settle() -> None:
            if item.future.done():
                return
            if exc is not None:
                item.future.set_exception(exc)
            else:
                item.future.set_result(result)

        try:
            item.loop.call_soon_threadsafe(settle)
        except RuntimeError:
            pass  # the loop is closed: the server is shutting down

    def stop(self) -> None:
        self._queue.put(None)
