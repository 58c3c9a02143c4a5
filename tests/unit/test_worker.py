import asyncio
import threading

import pytest
from timing import seconds

from qualm.lsp.worker import ModelWorker


async def _stopped(worker: ModelWorker) -> None:
    """Stop the worker, wait for its thread to end, then run what it handed to the loop: after
    this, every on_idle it will ever report has been reported (no sleep that a slow machine could
    outlast)."""
    worker.stop()
    thread = worker._thread
    await asyncio.to_thread(thread.join, seconds(30))
    assert not thread.is_alive(), "the worker's thread did not end"
    loop = asyncio.get_running_loop()
    settled = loop.create_future()
    loop.call_soon(settled.set_result, None)  # after the callbacks the thread queued before it ended
    await settled


def test_idle_is_reported_once_the_queue_is_empty_even_when_the_last_job_was_cancelled_before_it_started():
    async def main():
        idle: list[int] = []
        worker = ModelWorker(on_idle=lambda: idle.append(1))
        gate = threading.Event()
        first, _ = worker.submit(lambda cancel: gate.wait())
        second, token = worker.submit(lambda cancel: "never runs")
        token.cancel()  # the user typed on: the queued completion is dropped before it starts
        gate.set()
        assert await first is True
        with pytest.raises(asyncio.CancelledError):
            await second
        # the worker reports idle after it settled the dropped job: wait for it (stopping the worker
        # first would put the stop in the queue, which then is not empty), then for anything more
        end = asyncio.get_running_loop().time() + seconds(30)
        while not idle and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(0.01)
        await _stopped(worker)
        assert idle == [1]  # not after the first job (another was waiting), once after the dropped one

    asyncio.run(asyncio.wait_for(main(), seconds(60)))


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
        # the older job must be running, not queued, when the newer arrives (queued, it would be
        # dropped before it started: the first test's case)
        assert await asyncio.to_thread(started.wait, seconds(30))
        newer, _ = worker.submit(lambda cancel: "done", key="complete:a")
        assert await older == "stopped" and await newer == "done"
        await _stopped(worker)

    asyncio.run(asyncio.wait_for(main(), seconds(60)))


def test_an_urgent_job_runs_at_a_long_jobs_checkpoint_and_the_long_job_goes_on():
    async def main():
        worker = ModelWorker()
        order: list[str] = []
        started, urgent_queued = threading.Event(), threading.Event()

        def long(cancel):
            order.append("long: start")
            started.set()
            assert urgent_queued.wait(seconds(30))
            cancel.checkpoint()  # where a backend lets waiting work in: between a batch's steps
            order.append("long: end")
            return "assessed"

        def completion(cancel):
            cancel.checkpoint()  # an urgent job is never interrupted itself
            order.append("completion")
            return "ghost text"

        assessment, _ = worker.submit(long, key="assess")
        await asyncio.to_thread(started.wait, seconds(30))
        ghost, _ = worker.submit(completion, key="complete", urgent=True)
        urgent_queued.set()
        assert await ghost == "ghost text"
        assert await assessment == "assessed"
        assert order == ["long: start", "completion", "long: end"]
        await _stopped(worker)

    asyncio.run(asyncio.wait_for(main(), seconds(60)))


def test_an_urgent_job_goes_before_queued_ones_and_a_checkpoint_off_the_worker_thread_runs_nothing():
    async def main():
        worker = ModelWorker()
        order: list[str] = []
        started, gate, helper_done = threading.Event(), threading.Event(), threading.Event()

        def first(cancel):
            started.set()
            assert gate.wait(seconds(30))
            # a sandbox's helper thread polling the token: the urgent job must not run there
            threading.Thread(target=lambda: (cancel.checkpoint(), helper_done.set())).start()
            assert helper_done.wait(seconds(30))
            order.append("first")

        a, _ = worker.submit(first)
        await asyncio.to_thread(started.wait, seconds(30))  # running, not queued
        b, _ = worker.submit(lambda cancel: order.append("queued"))
        c, _ = worker.submit(lambda cancel: order.append("urgent"), urgent=True)
        gate.set()
        await asyncio.gather(a, b, c)
        assert order == ["first", "urgent", "queued"]
        await _stopped(worker)

    asyncio.run(asyncio.wait_for(main(), seconds(60)))


def test_an_urgent_job_that_fails_at_a_checkpoint_fails_alone():
    async def main():
        worker = ModelWorker()
        started, queued = threading.Event(), threading.Event()

        def long(cancel):
            started.set()
            assert queued.wait(seconds(30))
            cancel.checkpoint()
            return "assessed"

        def broken(cancel):
            raise ValueError("bad prompt")

        assessment, _ = worker.submit(long)
        await asyncio.to_thread(started.wait, seconds(30))
        failing, _ = worker.submit(broken, urgent=True)
        queued.set()
        with pytest.raises(ValueError, match="bad prompt"):
            await failing
        assert await assessment == "assessed"
        assert not worker.busy or worker.waiting == 0
        await _stopped(worker)

    asyncio.run(asyncio.wait_for(main(), seconds(60)))
