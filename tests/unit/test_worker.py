import asyncio
import threading

import pytest

from qualm.lsp.worker import ModelWorker


def test_idle_is_reported_once_the_queue_is_empty_even_when_the_last_job_was_cancelled_before_it_started():
    async def main():
        idle: list[int] = []
        worker = ModelWorker(on_idle=lambda: idle.append(1))
        gate = threading.Event()
        first, _ = worker.submit(lambda cancel: gate.wait(5))
        second, token = worker.submit(lambda cancel: "never runs")
        token.cancel()  # the user typed on: the queued completion is dropped before it starts
        gate.set()
        assert await first is True
        with pytest.raises(asyncio.CancelledError):
            await second
        await asyncio.sleep(0.05)
        assert idle == [1]  # not after the first job (another was waiting), once after the dropped one
        worker.stop()

    asyncio.run(main())


def test_a_newer_job_with_the_same_key_cancels_the_older():
    async def main():
        worker = ModelWorker()
        started = threading.Event()

        def slow(cancel):
            started.set()
            while not cancel.cancelled:
                pass
            return "stopped"

        older, _ = worker.submit(slow, key="complete:a")
        started.wait(5)
        newer, _ = worker.submit(lambda cancel: "done", key="complete:a")
        assert await older == "stopped" and await newer == "done"
        worker.stop()

    asyncio.run(main())
