"""Benchmark: hover latency of the language server while a completion streams, over stdio.

    .venv/bin/python -m benchmarks.completion.hover_latency [--hovers 300]

The server is started as an editor would start it (`python -m qualm serve`), a document is scored
so that hovers have marks to answer with, then a long completion is requested and, while its
tokens stream, hovers are sent one after another. Prints p50 / p95 / max latency for hovers while
streaming and, for comparison, while idle. Target: p95 <= 50 ms while streaming.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

from benchmarks.common.paths import ROOT

sys.path.insert(0, str(ROOT / "tests" / "lsp"))

from lsp_session import URI, Session


def summary(xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
    return f"n {len(xs)}, p50 {statistics.median(xs) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {xs[-1] * 1000:.1f} ms"


async def measure(hovers: int, gap: float) -> None:
    s = Session()
    await s.start({"editor": {"diagnostic_level": "low", "completion_max_tokens": 600}})  # long completions: the model stays busy
    try:
        s.open()
        await s.command("qualm.scoreDocument", URI)
        await s.wait_for(lambda: s.diagnostics.get(URI), "diagnostics")
        spots = [(d.range.start.line, d.range.start.character) for d in s.diagnostics[URI]]

        async def hover_round(n: int) -> list[float]:
            out = []
            for i in range(n):
                await asyncio.sleep(gap)  # spread the hovers over the stream, as a person would
                line, char = spots[i % len(spots)]
                t0 = time.perf_counter()
                h = await s.hover(line, char)
                out.append(time.perf_counter() - t0)
                assert h is not None
            return out

        idle = await hover_round(hovers)
        params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "partialResultToken": "partial", "options": {"maxTokens": 600, "temperature": 0.8}}
        completion = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/complete", params))
        await s.wait_for(lambda: len(s.partials) >= 3, "streaming to start")
        streaming = []
        tokens_before = len(s.partials)
        started = time.perf_counter()
        while len(streaming) < hovers:
            if completion.done():
                params["options"]["seed"] = len(streaming)  # keep the model busy
                completion = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/complete", params))
                await s.wait_for(lambda: len(s.partials) >= tokens_before + 3, "streaming to restart")
            streaming += await hover_round(10)
        window = time.perf_counter() - started
        tokens = len(s.partials) - tokens_before
        await completion
        print(f"hover while idle:      {summary(idle)}")
        print(f"hover while streaming: {summary(streaming)} ({tokens} tokens streamed during those {window:.1f} s)")
    finally:
        await s.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hovers", type=int, default=300)
    ap.add_argument("--gap", type=float, default=0.03, help="seconds between hovers")
    args = ap.parse_args()
    asyncio.run(measure(args.hovers, args.gap))


if __name__ == "__main__":
    main()
