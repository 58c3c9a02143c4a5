"""Benchmark: hover latency right after a burst of keystrokes in a scored document, over stdio.

    .venv/bin/python -m benchmarks.runtime.hover_after_typing [--functions 300] [--bursts 20] [--burst 10]

Issue 56's soak saw about 20 of 321 hovers take 0.2-1.5 s. One suspect was the server's work on
each keystroke in a document with many marks: the marks are moved and published again (diagnostics
and `qualm/marks`) after every change. This measures that alone: a scripted model (its arithmetic
is all it replaces) scores a generated document of FUNCTIONS functions, then BURSTS times BURST
one-character changes are sent at once and a hover right after them; the hover's answer waits for
every change before it. Prints the document's size, the marks and hover p50 / max.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common.paths import ROOT

sys.path.insert(0, str(ROOT / "tests" / "lsp"))
sys.path.insert(0, str(ROOT / "tests"))

from lsp_session import Session

URI = "file:///tmp/qualm-hover-typing/big.py"


def document(functions: int) -> str:
    lines = ["import math", ""]
    for i in range(functions):
        lines += [f"def f{i}(x: float, y: float) -> float:", f'    """Function {i}."""', f"    z = math.sqrt(x * x + y * y) + {i}", "    return z * 2", "", ""]
    return "\n".join(lines) + "\n"


async def measure(functions: int, bursts: int, burst: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        # every token above the lowest level, so that each one is a mark
        script.write_text(json.dumps({"name": "scripted", "completions": ["pass"], "fim": True, "entropy": {"default": 2.0}}))
        s = Session()
        await s.start({"model": {"backend": "scripted", "path": str(script)}, "editor": {"diagnostic_level": "low", "highlight_level": "low"}})
        try:
            text = document(functions)
            s.open(text, URI)
            await s.command("qualm.scoreDocument", URI)
            await s.wait_for(lambda: s.marks.get(URI, {}).get("marks"), "marks")
            marks = len(s.marks[URI]["marks"])
            version, latencies = 1, []
            line = 2 + 6 * (functions // 2) + 2  # a body line in the middle
            for _ in range(bursts):
                for _ in range(burst):
                    version += 1
                    s.change(version, (line, 4), (line, 4), "a")
                t0 = time.perf_counter()
                await s.hover(line, 10)
                latencies.append(time.perf_counter() - t0)
                await asyncio.sleep(0.2)
        finally:
            await s.stop()
    latencies.sort()
    print(f"{functions} functions, {len(text.splitlines())} lines, {marks} marks; hover after {burst} keystrokes, {bursts} times: p50 {statistics.median(latencies) * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--functions", type=int, default=300)
    ap.add_argument("--bursts", type=int, default=20)
    ap.add_argument("--burst", type=int, default=10)
    args = ap.parse_args()
    asyncio.run(measure(args.functions, args.bursts, args.burst))


if __name__ == "__main__":
    main()
