"""Load on the real server over stdio with the default model (issue 56): many completions in flight,
a 5,000-line file, and two windows' servers on one shared model server. Prints figures; writes
``summary.json`` and ``summary.md`` under ``--out``.

    flock /tmp/qualm-model.lock .venv/bin/python -m benchmarks.runtime.load [--out results/load]
    .venv/bin/python -m benchmarks.runtime.load --only in-flight --model-script tests/fixtures/...json   # a smoke run

1. **In flight**: 50 ``qualm/complete`` requests sent at once over five documents, one in seven
   cancelled by the client (``$/cancelRequest``), the rest superseded by the next request for the
   same document (as typing does), hovers asked meanwhile. Reported: seconds until every request is
   answered, how many were answered and how (a result, a result cut short by a newer request,
   RequestCancelled), whether each was answered exactly once, the newest requests' latency, and the
   hovers' latency during the load.
2. **A 5,000-line file**: a Python module of 5,000 lines (functions written from a few templates,
   each different) opened; Score Document (seconds, marks), a completion in a function near its
   end (first token, total), hovers on marks (latency).
3. **Two windows, one model server**: one llama.cpp ``llama-server`` on the default model and two qualm
   servers (``model.backend: "openai"``) against it; a completion alone, then two at once, one from
   each window: both answered, and their latency against alone.

The real-model figures depend on this CPU (2 cores); the test that checks the same load's answers
with a scripted model is tests/lsp/test_load.py.
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
sys.path.insert(0, str(ROOT / "tests" / "remote"))
sys.path.insert(0, str(ROOT / "tests"))

from lsp_session import Session
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException

SMALL_DOC = 'def scale(values: list[float], factor: float) -> list[float]:\n    """Multiply every value by factor."""\n    \n'
TEMPLATES = (
    'def total_{i}(items: list[dict]) -> float:\n    """Sum price times quantity over the items ({i})."""\n    total = 0.0\n    for item in items:\n        total += item["price"] * item.get("qty", {q})\n    return total\n',
    'def clamp_{i}(x: int, low: int = {q}, high: int = {h}) -> int:\n    """Clamp x into [low, high]."""\n    if x < low:\n        return low\n    if x > high:\n        return high\n    return x\n',
    'class Counter{i}:\n    """Counts words longer than {q} letters."""\n\n    def __init__(self) -> None:\n        self.counts: dict[str, int] = {{}}\n\n    def add(self, text: str) -> None:\n        for word in text.split():\n            if len(word) > {q}:\n                self.counts[word] = self.counts.get(word, 0) + 1\n',
    'def window_{i}(xs: list[int], size: int = {q}) -> list[int]:\n    """Sums of each window of `size` consecutive values."""\n    return [sum(xs[j : j + size]) for j in range(len(xs) - size + 1)]\n',
)


def big_module(lines: int) -> str:
    parts, n, i = ["from __future__ import annotations\n\n\n"], 3, 0
    while n < lines:
        text = TEMPLATES[i % len(TEMPLATES)].format(i=i, q=2 + i % 5, h=50 + i % 40) + "\n\n"
        parts.append(text)
        n += text.count("\n")
        i += 1
    return "".join(parts)


def pct(xs: list[float], q: float) -> float | None:
    return None if not xs else statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1] if len(xs) > 1 else xs[0]


def ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1000:.0f} ms"


async def timed(coro) -> tuple[float, object]:
    t0 = time.perf_counter()
    try:
        out = await coro
    except (JsonRpcException, asyncio.CancelledError) as exc:
        out = exc
    return time.perf_counter() - t0, out


async def in_flight(options: dict, workspace: Path) -> dict:
    s = Session()
    await s.start(options)
    try:
        uris = []
        for i in range(5):
            path = workspace / f"m{i}.py"
            path.write_text(SMALL_DOC)
            uris.append(path.as_uri())
            s.open(SMALL_DOC, uris[-1])
        proto = s.client.protocol
        answers: dict[str, int] = {}
        original = proto._handle_response

        def counted(msg_id, result=None, error=None):
            answers[msg_id] = answers.get(msg_id, 0) + 1
            return original(msg_id, result, error)

        proto._handle_response = counted
        t0 = time.perf_counter()
        tasks, ids = [], []
        for i in range(50):
            params = {"textDocument": {"uri": uris[i % 5]}, "position": {"line": 2, "character": 4}}
            before = set(proto._request_futures)
            fut = asyncio.wrap_future(proto.send_request("qualm/complete", params))
            (sent,) = set(proto._request_futures) - before
            ids.append(sent)
            tasks.append(asyncio.ensure_future(timed(fut)))
            if i % 7 == 3 and i < 45:
                proto.notify(t.CANCEL_REQUEST, t.CancelParams(id=sent))
        hovers = []
        while not all(x.done() for x in tasks):
            dt, _ = await timed(s.hover(1, 8, uris[0]))
            hovers.append(dt)
            await asyncio.sleep(0.2)
        settled = time.perf_counter() - t0
        outcomes = [x.result() for x in tasks]
        kinds = {"result": 0, "result cut short by a newer request": 0, "RequestCancelled": 0}
        for _, out in outcomes:
            if isinstance(out, Exception):
                kinds["RequestCancelled"] += 1
            elif out.stopReason == "cancelled":
                kinds["result cut short by a newer request"] += 1
            else:
                kinds["result"] += 1
        newest = [dt for dt, out in outcomes[-5:] if not isinstance(out, Exception)]
        return {
            "requests": 50, "seconds_to_settle": round(settled, 2), "answers": kinds,
            "each_answered_once": all(answers.get(i) == 1 for i in ids) and set(answers.values()) == {1},
            "newest_latency_s": [round(x, 2) for x in newest],
            "hovers_during": len(hovers), "hover_p50_ms": round(pct(hovers, 50) * 1000, 1) if hovers else None,
            "hover_p95_ms": round(pct(hovers, 95) * 1000, 1) if hovers else None,
        }
    finally:
        await s.stop()


async def big_file(options: dict, workspace: Path, lines: int) -> dict:
    text = big_module(lines)
    path = workspace / "big.py"
    path.write_text(text)
    uri = path.as_uri()
    s = Session()
    await s.start(options)
    try:
        s.open(text, uri)
        dt_score, scored = await timed(s.command("qualm.scoreDocument", uri))
        marks = scored["marks"] if isinstance(scored, dict) else None
        await s.wait_for(lambda: s.marks.get(uri), "the scored document's marks")
        shown = [(m["range"]["start"]["line"], m["range"]["start"]["character"]) for m in s.marks[uri]["marks"]]
        lines_of = text.split("\n")
        # hovers on the highlighted marks, spread over the file (where none is highlighted, on `return`s)
        hover_at = shown or [(i, line.index("return")) for i, line in enumerate(lines_of) if "return" in line]
        hover_at = hover_at[:: max(1, len(hover_at) // 20)][:20]
        hovers = [(await timed(s.hover(line, char, uri)))[0] for line, char in hover_at]
        # a completion on a new line in the body of a function near the end
        target = max(i for i, line in enumerate(lines_of) if line.startswith("def total_"))
        at = target + 3  # "    total = 0.0": complete at its end, on a fresh line after it
        s.change(2, (at, len(lines_of[at])), (at, len(lines_of[at])), "\n    ", uri)
        params = {"textDocument": {"uri": uri}, "position": {"line": at + 1, "character": 4}, "partialResultToken": "big"}
        dt_complete, completion = await timed(s.client.protocol.send_request_async("qualm/complete", params))
        first = getattr(completion, "firstTokenSeconds", None)
        return {
            "lines": len(lines_of), "score_document_s": round(dt_score, 1), "marks": marks,
            "completion_s": round(dt_complete, 2), "completion_first_token_s": first, "completion_text": getattr(completion, "text", repr(completion))[:80],
            "highlighted_marks": len(shown), "hovers": len(hovers), "hover_p50_ms": round(pct(hovers, 50) * 1000, 1) if hovers else None, "hover_max_ms": round(max(hovers) * 1000, 1) if hovers else None,
        }
    finally:
        await s.stop()


async def shared_server(workspace: Path) -> dict:
    from remote_servers import llama_server

    path = workspace / "shared.py"
    path.write_text(SMALL_DOC)
    uri = path.as_uri()
    params = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 4}, "options": {"maxTokens": 24}}
    with llama_server() as url:  # llama.cpp's server: its slots serve two clients side by side
        options = {"model": {"backend": "openai", "endpoint": url, "retries": 0, "timeout_s": 300}}
        a, b = Session(), Session()
        try:
            await a.start(options)
            await b.start(options)
            for s in (a, b):
                s.open(SMALL_DOC, uri)
            alone_s, alone = await timed(a.client.protocol.send_request_async("qualm/complete", params))
            both = await asyncio.gather(*(timed(s.client.protocol.send_request_async("qualm/complete", params)) for s in (a, b)))
            return {
                "alone_s": round(alone_s, 2),
                "together_s": [round(dt, 2) for dt, _ in both],
                "both_answered": all(not isinstance(out, Exception) and out.text for _, out in both),
                "same_text_as_alone": all(not isinstance(out, Exception) and out.text == alone.text for _, out in both),
            }
        finally:
            await a.stop()
            await b.stop()


def markdown(summary: dict) -> str:
    out = ["# Load (issue 56)", ""]
    if "in_flight" in summary:
        f = summary["in_flight"]
        out += ["## 50 completions in flight", "", f"- every request answered: {f['seconds_to_settle']} s; {f['answers']}; each exactly once: {f['each_answered_once']}",
                f"- the newest request of each of the 5 documents: {f['newest_latency_s']} s",
                f"- hovers during the load: {f['hovers_during']}, p50 {f['hover_p50_ms']} ms, p95 {f['hover_p95_ms']} ms", ""]
    if "big_file" in summary:
        b = summary["big_file"]
        out += [f"## A {b['lines']}-line file", "", f"- Score Document: {b['score_document_s']} s, {b['marks']} marks",
                f"- a completion near its end: {b['completion_s']} s (first token {b['completion_first_token_s']} s): `{b['completion_text']!s}`",
                f"- hovers on {b['hovers']} places ({b['highlighted_marks']} highlighted marks): p50 {b['hover_p50_ms']} ms, max {b['hover_max_ms']} ms", ""]
    if "shared_server" in summary:
        sh = summary["shared_server"]
        out += ["## Two windows' servers on one model server", "", f"- a completion alone: {sh['alone_s']} s; one from each window at once: {sh['together_s']} s",
                f"- both answered: {sh['both_answered']}; the same text as alone: {sh['same_text_as_alone']}", ""]
    return "\n".join(out)


async def main_async(args: argparse.Namespace) -> dict:
    workspace = Path(tempfile.mkdtemp(prefix="qualm-load-"))
    options: dict = {"editor": {"diagnostic_level": "low", "highlight_level": "low"}}
    if args.model_script:
        options["model"] = {"backend": "scripted", "path": str(Path(args.model_script).resolve())}
    summary: dict = {}
    if args.only in (None, "in-flight"):
        summary["in_flight"] = await in_flight(options, workspace)
        print(json.dumps(summary["in_flight"]), flush=True)
    if args.only in (None, "big-file"):
        summary["big_file"] = await big_file(options, workspace, args.lines)
        print(json.dumps(summary["big_file"]), flush=True)
    if args.only in (None, "shared-server") and not args.model_script:
        summary["shared_server"] = await shared_server(workspace)
        print(json.dumps(summary["shared_server"]), flush=True)
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=("in-flight", "big-file", "shared-server"), default=None)
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--model-script", help="a scripted model (a smoke run); default: the default model")
    ap.add_argument("--out", default=str(ROOT / "results" / "load"))
    args = ap.parse_args()
    summary = asyncio.run(main_async(args))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "summary.md").write_text(markdown(summary))
    print(markdown(summary))


if __name__ == "__main__":
    main()
