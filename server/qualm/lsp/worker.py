"""One model behind one queue, off the event loop.

The LSP event loop never runs model work: handlers submit jobs here and await the returned
asyncio future, so hover and code lens keep answering while a completion streams. A job submitted
under a key (say, "complete:<uri>") cancels the unfinished job with the same key: a newer
completion for a document replaces the older one.

**Urgent jobs** (completions, rewrites: someone is watching the cursor) go before the others, and
do not wait for a long job to end: the long job's token has a checkpoint (``CancelToken.checkpoint``)
that the backends call between a batch's decoding steps and before each model call, and there the
waiting urgent jobs run, on this same thread, before the long job goes on. One thread keeps the
model's use sequential (two decoders on two cores slow each other several-fold).
"""

from __future__ import annotations

import asyncio
import collections
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
    urgent: bool = False
    done: threading.Event = field(default_factory=threading.Event)


class ModelWorker:
    """``on_idle`` is called on the submitting loop whenever a job ends and none is waiting: a job
    whose caller stopped waiting (a cancelled request) may still be finishing its current token."""

    def __init__(self, name: str = "qualm-model", on_idle: Callable[[], None] | None = None) -> None:
        self._on_idle = on_idle
        self._urgent: collections.deque[_Item] = collections.deque()
        self._normal: collections.deque[_Item | None] = collections.deque()  # None: stop
        self._ready = threading.Condition()
        self._by_key: dict[str, _Item] = {}
        self._busy = threading.Event()
        self._in_urgent = False  # an urgent job is running (it is not interrupted)
        self._running = 0  # jobs on this thread's stack: a long one and one urgent at its checkpoint
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self._busy.is_set()

    def submit(self, fn: Job, key: str | None = None, cancel: CancelToken | None = None, urgent: bool = False) -> tuple[asyncio.Future, CancelToken]:
        """Queue ``fn(token)``; returns an asyncio future (of the calling loop) and the job's token
        (cancelled with ``cancel``). ``urgent``: before the other jobs, and at their checkpoints."""
        loop = asyncio.get_running_loop()
        token = CancelToken(cancel) if urgent else CancelToken(cancel, checkpoint=self._checkpoint)
        item = _Item(fn, token, loop.create_future(), loop, key, urgent)
        with self._ready:
            if key is not None:
                older = self._by_key.get(key)
                if older is not None and not older.done.is_set():
                    older.cancel.cancel()
                self._by_key[key] = item
            (self._urgent if urgent else self._normal).append(item)
            self._ready.notify()
        return item.future, item.cancel

    @property
    def waiting(self) -> int:
        """Jobs queued and not started (urgent ones included)."""
        with self._ready:
            return len(self._urgent) + sum(1 for x in self._normal if x is not None)

    def _next(self) -> _Item | None:
        with self._ready:
            while not self._urgent and not self._normal:
                self._ready.wait()
            return self._urgent.popleft() if self._urgent else self._normal.popleft()

    def _run(self) -> None:
        while (item := self._next()) is not None:
            self._execute(item)
            if self._on_idle is not None and self.waiting == 0:
                try:
                    item.loop.call_soon_threadsafe(self._on_idle)
                except RuntimeError:
                    pass  # the loop is closed

    def _execute(self, item: _Item) -> None:
        if item.cancel.cancelled:  # cancelled while it waited: never started
            self._finish(item, None, asyncio.CancelledError())
            return
        outer = self._in_urgent  # False while an urgent job runs at a long job's checkpoint
        self._running += 1
        self._busy.set()
        self._in_urgent = item.urgent
        try:
            result = item.fn(item.cancel)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting handler
            self._finish(item, None, exc)
        else:
            self._finish(item, result, None)
        finally:
            self._in_urgent = outer
            self._running -= 1
            if self._running == 0:
                self._busy.clear()

    def _checkpoint(self) -> None:
        """A long job's checkpoint: run the urgent jobs that wait, on this thread, then go back to it.
        Elsewhere (a sandbox's helper thread polling the token) or inside an urgent job: nothing."""
        if threading.current_thread() is not self._thread or self._in_urgent:
            return
        while True:
            with self._ready:
                if not self._urgent:
                    return
                item = self._urgent.popleft()
            self._execute(item)

    def _finish(self, item: _Item, result: Any, exc: BaseException | None) -> None:
        item.done.set()
        with self._ready:
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
        with self._ready:
            self._normal.append(None)
            self._ready.notify()
