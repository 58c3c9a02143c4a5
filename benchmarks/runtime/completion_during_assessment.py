"""Benchmark: a completion asked for while an assessment runs, over stdio, with the default model.

    .venv/bin/python -m benchmarks.runtime.completion_during_assessment [--offsets 3 8 14 20] [--repeats 3]

The server is started as an editor starts it (`python -m qualm serve`). First the completion alone,
``--repeats`` times, each after the file is scored (so that its prompt is not in the model's cache,
as during an assessment): seconds to its first streamed token and to its end. Then, for each offset, an
assessment of a 12-line function is started (its docstring changed a little each time, so that it
samples afresh) and, that many seconds into it, the same completion is
asked for; hovers are sent every 50 ms while the assessment runs. Prints, per offset, the
completion's first-token time and its delay over the median alone, what the assessment was doing
then (its last progress message), and the hovers' p50/p95.

Targets (issue 56): the completion starts within one token's time of when it would start alone
(the worker runs it at the assessment's next checkpoint: between a batch's decoding steps, before
a model call, between steps; not in the middle of a sandbox run); hover p95 <= 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

from benchmarks.common.paths import ROOT

sys.path.insert(0, str(ROOT / "tests" / "lsp"))
sys.path.insert(0, str(ROOT / "tests"))

from lsp_session import Session
from lsprotocol import types as t

URI = "file:///tmp/qualm-bench/orders.py"
DOC = '''def total_due(orders, discount):
    """Sum price * quantity over the orders (ledger {n}), then take the discount (a fraction) off.

    >>> total_due([{"price": 2.0, "quantity": 3}], 0.5)
    3.0
    """
    total = 0.0
    for order in orders:
        if order["quantity"] <= 0:
            continue
        total += order["price"] * order["quantity"]
    return round(total * (1 - discount), 2)


def count_words(text):
    """Return a dict from each word of text, lower-cased, to how often it occurs."""
    counts = {}
''' + "    \n"
CURSOR = {"line": 17, "character": 4}  # inside count_words, after its indentation


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


async def one_completion(s: Session) -> tuple[float, float, int]:
    """(seconds to the first streamed token, seconds to the answer, tokens)."""
    s.partials.clear()
    params = {"textDocument": {"uri": URI}, "position": CURSOR, "partialResultToken": "partial"}
    t0 = time.perf_counter()
    task = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/complete", params))
    first = None
    while not task.done():
        if first is None and any(p.get("tokens") for p in s.partials):
            first = time.perf_counter() - t0
        await asyncio.sleep(0.005)
    result = task.result()
    total = time.perf_counter() - t0
    return (first if first is not None else total), total, len(result.tokens)


async def measure(offsets: list[float], repeats: int) -> None:
    s = Session()
    await s.start({"editor": {"diagnostic_level": "low"}})
    try:
        @s.client.feature("workspace/codeLens/refresh")
        def on_refresh(ls, params):  # the server asks after an assessment; an editor asks for lenses again
            return None

        s.open(DOC.replace("{n}", "0"), URI)
        version = 1
        alone = []
        for _ in range(repeats):
            # scoring the file first fills the model's cache with something else, as an assessment
            # does: each completion alone starts as cold as the ones during an assessment
            await s.command("qualm.scoreDocument", URI)
            alone.append(await one_completion(s))
        first_alone = statistics.median(a[0] for a in alone)
        per_token = statistics.median((a[1] - a[0]) / max(1, a[2] - 1) for a in alone)
        print(f"alone: first token {', '.join(f'{a[0]:.2f}' for a in alone)} s (median {first_alone:.2f}); one token {per_token:.3f} s; {alone[0][2]} tokens")
        for n, offset in enumerate(offsets, start=1):
            # another problem text each time: the server keeps a problem's samples, and an assessment
            # that reuses them decodes nothing (the completion would find nothing to wait for)
            version += 1
            s.client.text_document_did_change(t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=URI, version=version),
                content_changes=[t.TextDocumentContentChangeWholeDocument(text=DOC.replace("{n}", str(n)))],
            ))
            s.progress.clear()
            started = time.perf_counter()
            assessing = asyncio.ensure_future(s.command("qualm.assessFunction", URI, "total_due"))
            hovers: list[float] = []
            while time.perf_counter() - started < offset and not assessing.done():
                t0 = time.perf_counter()
                await s.hover(6, 6)
                hovers.append(time.perf_counter() - t0)
                await asyncio.sleep(0.05)
            doing = next((str(p.get("message") if isinstance(p, dict) else getattr(p, "message", "")) for p in reversed(s.progress) if (p.get("message") if isinstance(p, dict) else getattr(p, "message", None))), "?")
            first, total, n = await one_completion(s)
            still = not assessing.done()
            while not assessing.done():
                t0 = time.perf_counter()
                await s.hover(6, 6)
                hovers.append(time.perf_counter() - t0)
                await asyncio.sleep(0.05)
            a = assessing.result()
            print(
                f"{offset:.0f} s into the assessment ({doing}): first token {first:.2f} s, delay {first - first_alone:+.2f} s "
                f"({(first - first_alone) / per_token:+.1f} tokens' time), answer {total:.2f} s, {n} tokens; "
                f"the assessment {'still ran' if still else 'had ended'} then and took {time.perf_counter() - started:.0f} s ({a['summary'][:60]}); "
                f"hovers n {len(hovers)}, p50 {statistics.median(hovers) * 1000:.1f} ms, p95 {pct(hovers, 0.95) * 1000:.1f} ms"
            )
    finally:
        await s.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--offsets", type=float, nargs="+", default=[3.0, 8.0, 14.0, 20.0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    asyncio.run(measure(args.offsets, args.repeats))


if __name__ == "__main__":
    main()
