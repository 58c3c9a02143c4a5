"""Soak: a working day in the editor, compressed, against the real server over stdio (issue 56).

    .venv/bin/python -m benchmarks.runtime.soak [--keystrokes 2000] [--seed 56] [--out results/soak]
    .venv/bin/python -m benchmarks.runtime.soak --keystrokes 120 --model-script tests/fixtures/...json  # a smoke run

The server is started as an editor starts it (`python -m qualm serve --stdio`, default settings, the
default model unless ``--model-script`` names a scripted one). Real files (the real-code benchmark's
documents: Python, JavaScript, TypeScript packages released after the model was trained) are copied
into a scratch workspace and edited as a person would: a statement line of a function is deleted and
typed again, one character at a time, each keystroke sending the change and asking for ghost text
(the previous request cancelled, as VS Code does); at the end of the line the ghost text is
sometimes accepted (inserted, `qualm/accepted`, the file saved). Mixed in: hovers, Score Document,
assessments (some cancelled), rewrites from a token through the code action (some applied), the likely
fix's code action where an assessment offers one, files closed and opened, a setting changed.

Recorded every ``--sample-s`` seconds: the server's RSS and thread count, its child processes (the
sandbox's) and the sandbox's temporary folders. Per request kind: latency p50/p95/p99, and hovers
apart while an assessment runs. At the end: every request answered exactly once, no error in the
log, the model loaded once, and every file on disk byte for byte as the accepted edits left it.
Writes ``samples.csv``, ``summary.json``, ``summary.md`` and ``soak.png`` (RSS and latency against
time) under ``--out``, and prints the summary with the targets: RSS after the first 10 % of the run
grows by less than 5 %; no sandbox process or temporary folder outlives its request; hover p95
<= 100 ms while an assessment runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks.common.paths import ROOT

sys.path.insert(0, str(ROOT / "tests" / "lsp"))
sys.path.insert(0, str(ROOT / "tests"))

from lsp_session import Session
from lsprotocol import types as t


class _UnknownResponses(logging.Handler):
    """pygls logs a response whose id it does not wait for (a second answer to one request)."""

    count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "unknown message id" in record.getMessage():
            type(self).count += 1


UNKNOWN_RESPONSES = _UnknownResponses()
logging.getLogger("pygls.protocol.json_rpc").addHandler(UNKNOWN_RESPONSES)

SLOW_CALLBACK = re.compile(r"Executing (.*?) took (\d+(?:\.\d+)?) seconds")


class _SlowCallbacks(logging.Handler):
    """asyncio's debug mode logs each callback that held the event loop longer than
    ``slow_callback_duration`` (``--loop-debug``): what blocked the driver's own loop."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[float, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if m := SLOW_CALLBACK.search(record.getMessage()):
            self.seen.append((float(m.group(2)), m.group(1)))


class _MessageLog:
    """``--message-log``: each message the driver reads from the server, its size and the time
    pygls takes to parse and structure it (``json.loads`` with its object hook, in pygls's reader)."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, int, str]] = []  # seconds, bytes, method (or "response")

    def install(self) -> None:
        import pygls.io_ as io_

        original = io_.json.loads
        seen = self.seen

        class TimedJson:
            def __getattr__(self, name: str):
                return getattr(json, name)

            @staticmethod
            def loads(data, **kw):
                t0 = time.perf_counter()
                out = original(data, **kw)
                method = data[:400].decode(errors="replace") if isinstance(data, bytes) else str(data)[:400]
                m = re.search(r'"method"\s*:\s*"([^"]+)"', method)
                seen.append((time.perf_counter() - t0, len(data), m.group(1) if m else "response"))
                return out

        io_.json = TimedJson()

    def summary(self) -> dict:
        by: dict[str, list[tuple[float, int]]] = defaultdict(list)
        for sec, size, method in self.seen:
            by[method].append((sec, size))
        return {
            method: {"n": len(xs), "bytes_max": max(b for _, b in xs), "bytes_total": sum(b for _, b in xs), "parse_s_max": round(max(s for s, _ in xs), 3), "parse_s_total": round(sum(s for s, _ in xs), 3)}
            for method, xs in sorted(by.items(), key=lambda kv: -sum(s for s, _ in kv[1]))
        }


def loop_blocks(seen: list[tuple[float, str]]) -> dict:
    """How often and how long a loop was held, and by what (the five longest)."""
    seen = sorted(seen, reverse=True)
    return {"count": len(seen), "seconds": round(sum(s for s, _ in seen), 3), "longest": [{"seconds": s, "callback": c[:300]} for s, c in seen[:5]]}

TASKS = Path.home() / ".cache" / "qualm" / "realcode" / "tasks.jsonl"
LANGUAGE_ID = {"python": "python", "javascript": "javascript", "typescript": "typescript"}
SUFFIX = {"python": ".py", "javascript": ".js", "typescript": ".ts"}


@dataclass
class Sample:
    seconds: float
    keystrokes: int
    rss_mb: float
    rss_anon_mb: float
    rss_file_mb: float
    threads: int
    children: int
    temp_dirs: int
    assessing: bool


@dataclass
class OpenFile:
    uri: str
    path: Path
    language: str
    text: str  # the editor's text: the file on disk once saved
    version: int = 1


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    when: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # seconds into the run, per latency
    outcomes: Counter = field(default_factory=Counter)
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # the first few, per kind
    sent: int = 0


# -- the server process, from /proc ---------------------------------------------------------------


def proc_status(pid: int) -> tuple[float, float, float, int]:
    """RSS in MB, split into anonymous memory (heap, buffers) and file pages (the memory-mapped model)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)

    def mb(key: str) -> float:
        return int(fields[key].split()[0]) / 1024

    return mb("VmRSS"), mb("RssAnon"), mb("RssFile"), int(fields["Threads"])


def descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        frontier += kids
    return out


def temp_dirs(tmp: Path) -> int:
    return sum(1 for d in tmp.iterdir() if d.name.startswith(("qualm-sandbox-", "qualm-program-", "qualm-probe-")))


# -- the files ------------------------------------------------------------------------------------


def real_files(n: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """(name, language, text) of ``n`` real files, both languages, that have a function to edit."""
    if not TASKS.exists():
        raise SystemExit(f"{TASKS} is missing: python -m benchmarks.completion.realcode fetch && ... build")
    seen, out = set(), []
    rows = [json.loads(line) for line in TASKS.read_text().splitlines() if line.strip()]
    rng.shuffle(rows)
    for lang in ("python", "typescript", "javascript", "python", "typescript", "python"):
        for r in rows:
            if r["language"] == lang and r["path"] not in seen and 40 <= r["document"].count("\n") <= 600:
                seen.add(r["path"])
                out.append((f"{len(out):02d}-{Path(r['path']).stem}{SUFFIX[lang]}", lang, r["document"]))
                break
        if len(out) >= n:
            break
    return out


def statement_lines(text: str) -> list[int]:
    """Indented lines of code worth typing again (0-based)."""
    lines = text.split("\n")
    return [i for i, line in enumerate(lines) if line.startswith(("    ", "\t")) and 12 <= len(line.strip()) <= 70 and not line.strip().startswith(("#", "//", "*", "/*", '"""', "'''"))]


def offset_of(text: str, pos: t.Position) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: pos.line]) + pos.character


def position_of(text: str, offset: int) -> t.Position:
    before = text[:offset]
    return t.Position(line=before.count("\n"), character=offset - (before.rfind("\n") + 1))


# -- the run --------------------------------------------------------------------------------------


class Soak:
    def __init__(self, s: Session, workspace: Path, tmp: Path, args: argparse.Namespace) -> None:
        self.s, self.workspace, self.tmp, self.args = s, workspace, tmp, args
        self.rng = random.Random(args.seed)
        self.tally = Tally()
        self.samples: list[Sample] = []
        self.files: dict[str, OpenFile] = {}
        self.closed: list[OpenFile] = []
        self.keystrokes = 0
        self.assessing = 0
        self.t0 = time.monotonic()
        self.pending: dict[str, asyncio.Future] = {}
        self.stderr = b""
        self.slow: _SlowCallbacks | None = None  # --loop-debug
        self.messages: _MessageLog | None = None  # --message-log
        self.ids = 0

    # requests, timed and counted; a cancelled one is still answered (with an error), as in VS Code
    async def request(self, kind: str, method: str, params, msg_id: str | None = None):
        self.tally.sent += 1
        msg_id = msg_id or self.next_id()
        t0 = time.perf_counter()
        fut = asyncio.wrap_future(self.s.client.protocol.send_request(method, params, msg_id=msg_id))
        self.pending[msg_id] = fut
        try:
            result = await fut
            self.tally.latencies[kind].append(time.perf_counter() - t0)
            self.tally.when[kind].append(time.monotonic() - self.t0)
            self.tally.outcomes[f"{kind}: answered"] += 1
            return result
        except Exception as exc:  # noqa: BLE001 - a cancelled request is answered with an error
            self.tally.outcomes[f"{kind}: {type(exc).__name__}"] += 1
            if "Cancelled" not in type(exc).__name__ and len(self.tally.errors[kind]) < 5:
                self.tally.errors[kind].append(f"{type(exc).__name__}: {exc}"[:300])
            return None

    def next_id(self) -> str:
        self.ids += 1
        return f"soak-{self.ids}"

    def cancel(self, msg_id: str) -> None:
        """``$/cancelRequest``, as the editor sends it for a request it no longer wants."""
        if msg_id in self.pending and not self.pending[msg_id].done():
            self.s.client.protocol.notify("$/cancelRequest", {"id": msg_id})

    def send_change(self, f: OpenFile, start: int, end: int, new: str) -> None:
        rng = t.Range(start=position_of(f.text, start), end=position_of(f.text, end))
        f.text = f.text[:start] + new + f.text[end:]
        f.version += 1
        self.s.client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=f.uri, version=f.version),
            content_changes=[t.TextDocumentContentChangePartial(range=rng, text=new)],
        ))

    def save(self, f: OpenFile) -> None:
        f.path.write_text(f.text)
        self.s.client.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=f.uri)))

    def open(self, f: OpenFile) -> None:
        self.files[f.uri] = f
        self.s.client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(uri=f.uri, language_id=LANGUAGE_ID[f.language], version=f.version, text=f.text)))

    def close(self, f: OpenFile) -> None:
        del self.files[f.uri]
        self.closed.append(f)
        self.s.client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=f.uri)))

    async def sampler(self, pid: int) -> None:
        while True:
            try:
                rss, anon, file_pages, threads = proc_status(pid)
            except OSError:
                return
            kids = descendants(pid)
            self.samples.append(Sample(round(time.monotonic() - self.t0, 2), self.keystrokes, round(rss, 1), round(anon, 1), round(file_pages, 1), threads, len(kids), temp_dirs(self.tmp), self.assessing > 0))
            await asyncio.sleep(self.args.sample_s)

    async def type_line(self, f: OpenFile) -> None:
        """Delete one statement line of ``f`` and type it again; ghost text asked at each keystroke."""
        lines = statement_lines(f.text)
        if not lines:
            return
        n = self.rng.choice(lines)
        line = f.text.split("\n")[n]
        indent = len(line) - len(line.lstrip())
        start = offset_of(f.text, t.Position(line=n, character=indent))
        self.send_change(f, start, start + len(line) - indent, "")
        latest: asyncio.Task | None = None
        latest_id = ""
        for i, ch in enumerate(line[indent:]):
            self.send_change(f, start + i, start + i, ch)
            self.keystrokes += 1
            self.cancel(latest_id)  # the next keystroke: VS Code cancels the request in flight
            p = position_of(f.text, start + i + 1)
            params = {"textDocument": {"uri": f.uri}, "position": {"line": p.line, "character": p.character}, "partialResultToken": "partial"}
            latest_id = self.next_id()
            latest = asyncio.ensure_future(self.request("completion", "qualm/complete", params, latest_id))
            await asyncio.sleep(self.rng.uniform(0.06, 0.2))  # typing
            if self.keystrokes % 37 == 0:
                await self.hovers(f, 3)
        # at the line's end the user waits for the ghost text, and sometimes takes it
        result = await latest if latest is not None else None
        end = start + len(line) - indent
        if result is not None and result.text.strip() and self.rng.random() < self.args.accept:
            text = result.text
            self.send_change(f, end, end, text)
            a, b = position_of(f.text, end), position_of(f.text, end + len(text))
            rng = {"start": {"line": a.line, "character": a.character}, "end": {"line": b.line, "character": b.character}}
            self.s.client.protocol.notify("qualm/accepted", {"textDocument": {"uri": f.uri}, "range": rng, "text": text})
            self.tally.outcomes["completion: accepted"] += 1
        self.save(f)

    async def hovers(self, f: OpenFile, n: int) -> None:
        spots = [d.range.start for d in self.s.diagnostics.get(f.uri, [])] or [position_of(f.text, self.rng.randrange(max(1, len(f.text))))]
        for _ in range(n):
            p = self.rng.choice(spots)
            kind = "hover while assessing" if self.assessing else "hover"
            await self.request(kind, t.TEXT_DOCUMENT_HOVER, t.HoverParams(text_document=t.TextDocumentIdentifier(uri=f.uri), position=p))

    async def assess(self, f: OpenFile) -> None:
        lines = statement_lines(f.text)
        if not lines:
            return
        line = self.rng.choice(lines)
        self.assessing += 1
        try:
            params = {"textDocument": {"uri": f.uri}, "position": {"line": line, "character": 8}}
            msg_id = self.next_id()
            task = asyncio.ensure_future(self.request("assessment", "qualm/assess", params, msg_id))
            if self.rng.random() < 1 / 3:
                await asyncio.sleep(self.rng.uniform(1, 8))
                self.cancel(msg_id)  # the progress notification's Cancel button
                self.tally.outcomes["assessment: cancelled by the user"] += 1
                await task
                return
            # the user goes on typing meanwhile: the completion must not wait for the assessment
            await self.type_line(f)
            if not task.done():  # and reads a hover or two: every run measures hovers while assessing
                await self.hovers(f, 3)
            await task
            await self.fix(f, line)
        finally:
            self.assessing -= 1

    async def fix(self, f: OpenFile, line: int) -> None:
        """The likely fix's code action, where there is one: applied as the preview's Apply would."""
        r = t.Range(start=t.Position(line=0, character=0), end=position_of(f.text, len(f.text)))
        actions = await self.request("code action", t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=f.uri), range=r, context=t.CodeActionContext(diagnostics=[])))
        for a in actions or []:
            if a.title.startswith("qualm: apply the likely fix") and a.edit is not None and self.rng.random() < 0.5:
                self.apply(f, a.edit)
                self.tally.outcomes["likely fix: applied"] += 1
                return

    async def rewrite(self, f: OpenFile) -> None:
        marks = [d for d in self.s.diagnostics.get(f.uri, []) if d.source == "qualm" and d.code != "suspect"]
        if not marks:
            return
        d = self.rng.choice(marks)
        actions = await self.request("code action", t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri=f.uri), range=d.range, context=t.CodeActionContext(diagnostics=[d])))
        ours = [a for a in actions or [] if a.title.startswith("qualm: ") and a.data is not None]
        if not ours:
            return
        resolved = await self.request("rewrite", t.CODE_ACTION_RESOLVE, self.rng.choice(ours))
        if resolved is not None and resolved.edit is not None and self.rng.random() < 0.5:
            self.apply(f, resolved.edit)
            self.tally.outcomes["rewrite: applied"] += 1

    def apply(self, f: OpenFile, edit: t.WorkspaceEdit) -> None:
        """A workspace edit the user accepted, applied and saved (only this file's; last edit first)."""
        edits = [e for change in edit.document_changes or [] if isinstance(change, t.TextDocumentEdit) and change.text_document.uri == f.uri for e in change.edits]
        edits += list((edit.changes or {}).get(f.uri, []))
        for e in sorted(edits, key=lambda e: offset_of(f.text, e.range.start), reverse=True):
            self.send_change(f, offset_of(f.text, e.range.start), offset_of(f.text, e.range.end), e.new_text)
        self.save(f)

    async def run(self) -> None:
        for _ in range(min(3, len(self.closed))):
            self.open(self.closed.pop(0))
        step = 0
        while self.keystrokes < self.args.keystrokes:
            step += 1
            f = self.rng.choice(list(self.files.values()))
            await self.type_line(f)
            if step % 4 == 0:
                await self.request("score document", t.WORKSPACE_EXECUTE_COMMAND, t.ExecuteCommandParams(command="qualm.scoreDocument", arguments=[f.uri]))
            if step % 9 == 0:
                await self.assess(f)
            if step % 6 == 0:
                await self.rewrite(f)
            if step % 7 == 0 and self.closed:
                self.close(f)
                self.open(self.closed.pop(0))
            if step % 15 == 0:
                level = self.rng.choice(["low", "medium"])
                self.s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"qualm": {**self.args.options, "editor": {**self.args.options.get("editor", {}), "highlight_level": level}}}))
                self.tally.outcomes[f"setting: highlight_level {level}"] += 1
            print(f"{time.monotonic() - self.t0:.0f} s: {self.keystrokes} keystrokes, {self.samples[-1].rss_mb if self.samples else 0:.0f} MB", file=sys.stderr, flush=True)


def pct(xs: list[float], q: float) -> float | None:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] * 1000, 1) if xs else None


def summarize(soak: Soak, s: Session, workspace: Path, seconds: float, settled: bool) -> dict:
    samples = soak.samples
    after = [x.rss_mb for x in samples if x.seconds >= 0.1 * seconds]
    base = after[0] if after else None
    first = next((x for x in samples if x.seconds >= 0.1 * seconds), None)
    on_disk = {f.uri: f.path.read_text() == f.text for f in [*soak.files.values(), *soak.closed]}
    log_errors = [m for m in s.messages if "Traceback" in m or m.lower().startswith(("error", "qualm: error"))]
    stderr = b"".join(s.stderr).decode(errors="replace")
    return {
        "keystrokes": soak.keystrokes,
        "seconds": round(seconds, 1),
        "requests_sent": soak.tally.sent,
        "outcomes": dict(soak.tally.outcomes),
        "errors": dict(soak.tally.errors),
        "latency_ms": {k: {"n": len(v), "p50": pct(v, 0.5), "p95": pct(v, 0.95), "p99": pct(v, 0.99)} for k, v in soak.tally.latencies.items()},
        "rss_mb": {"start": samples[0].rss_mb if samples else None, "at_10_percent": base, "end": samples[-1].rss_mb if samples else None, "max": max((x.rss_mb for x in samples), default=None)},
        "rss_growth_after_10_percent": round(after[-1] / base - 1, 4) if base else None,
        # Which part grows: the heap and buffers, or pages of the memory-mapped model read for the first time.
        "rss_split_mb": {part: {"at_10_percent": getattr(first, part), "end": getattr(samples[-1], part)} for part in ("rss_anon_mb", "rss_file_mb")} if first else None,
        "threads": {"start": samples[0].threads if samples else None, "end": samples[-1].threads if samples else None, "max": max((x.threads for x in samples), default=None)},
        "children_at_end": samples[-1].children if samples else None,
        "temp_dirs_at_end": samples[-1].temp_dirs if samples else None,
        "every_request_settled": settled,
        "unanswered_requests": sum(1 for f in soak.pending.values() if not f.done()),
        "responses_to_unknown_ids": UNKNOWN_RESPONSES.count,
        "model_loads": sum(1 for x in s.statuses if x.get("state") == "loading"),
        "log_errors": log_errors[:20],
        "stderr_tracebacks": stderr.count("Traceback"),
        "files_as_edited": all(on_disk.values()),
        "files_changed_otherwise": [u for u, ok in on_disk.items() if not ok],
        # --loop-debug: callbacks that held an event loop >= 0.1 s, the server's (from its stderr) and the driver's
        **({"loop_blocked": {"server": loop_blocks([(float(m.group(2)), m.group(1)) for m in SLOW_CALLBACK.finditer(stderr)]), "driver": loop_blocks(soak.slow.seen)}} if soak.slow else {}),
        **({"messages_read": soak.messages.summary()} if soak.messages else {}),
    }


def write(out: Path, soak: Soak, summary: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "samples.csv").open("w") as f:
        f.write(",".join(Sample.__dataclass_fields__) + "\n")
        for x in soak.samples:
            f.write(",".join(str(v) for v in asdict(x).values()) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "server-stderr.log").write_bytes(soak.stderr)
    growth = summary["rss_growth_after_10_percent"]
    hover = summary["latency_ms"].get("hover while assessing", {}).get("p95")
    lines = [
        f"# Soak: {summary['keystrokes']} keystrokes in {summary['seconds'] / 60:.1f} min, {summary['requests_sent']} requests",
        "",
        "| target | measured | met |",
        "|---|---|---|",
        f"| RSS after the first 10 % grows < 5 % | {growth:+.1%} ({summary['rss_mb']['at_10_percent']} → {summary['rss_mb']['end']} MB) | {growth is not None and growth < 0.05} |" if growth is not None else "| RSS | no samples | False |",
        *([f"| (of which anonymous / file pages) | {split['rss_anon_mb']['at_10_percent']} → {split['rss_anon_mb']['end']} MB / {split['rss_file_mb']['at_10_percent']} → {split['rss_file_mb']['end']} MB | |"] if (split := summary["rss_split_mb"]) else []),
        f"| no sandbox process or temp folder outlives its request | {summary['children_at_end']} processes, {summary['temp_dirs_at_end']} folders at the end | {summary['children_at_end'] == 0 and summary['temp_dirs_at_end'] == 0} |",
        f"| hover p95 ≤ 100 ms while an assessment runs | {hover} ms | {hover is not None and hover <= 100} |",
        f"| every request answered exactly once | {summary['unanswered_requests']} unanswered, {summary['responses_to_unknown_ids']} answers to no waiting request | {summary['every_request_settled'] and summary['unanswered_requests'] == 0 and summary['responses_to_unknown_ids'] == 0} |",
        f"| no error in the log | {len(summary['log_errors'])} log errors, {summary['stderr_tracebacks']} tracebacks | {not summary['log_errors'] and not summary['stderr_tracebacks']} |",
        f"| the model loaded once | {summary['model_loads']} | {summary['model_loads'] == 1} |",
        f"| every file as the accepted edits left it | {summary['files_as_edited']} | {summary['files_as_edited']} |",
        "",
        "| request | n | p50 ms | p95 ms | p99 ms |",
        "|---|---|---|---|---|",
        *(f"| {k} | {v['n']} | {v['p50']} | {v['p95']} | {v['p99']} |" for k, v in sorted(summary["latency_ms"].items())),
        "",
        "Outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items())) + ".",
        *(
            ["", "Event loops held for 0.1 s or more (asyncio debug mode, `--loop-debug`; it slows both processes a little):", ""]
            + [f"- {who}: {b['count']} times, {b['seconds']} s in all" + "".join(f"\n  - {x['seconds']} s: `{x['callback']}`" for x in b["longest"]) for who, b in blocked.items()]
            if (blocked := summary.get("loop_blocked"))
            else []
        ),
        *(
            ["", "Messages the driver read, by the time pygls took to parse them (`--message-log`):", "", "| method | n | largest bytes | all bytes | longest parse s | all parse s |", "|---|---|---|---|---|---|"]
            + [f"| {m} | {v['n']} | {v['bytes_max']} | {v['bytes_total']} | {v['parse_s_max']} | {v['parse_s_total']} |" for m, v in list(read.items())[:8]]
            if (read := summary.get("messages_read"))
            else []
        ),
    ]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    plot(out, soak)


def plot(out: Path, soak: Soak) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    minutes = [x.seconds / 60 for x in soak.samples]
    a.plot(minutes, [x.rss_mb for x in soak.samples], label="RSS")
    a.plot(minutes, [x.rss_anon_mb for x in soak.samples], label="anonymous (heap, buffers)")
    a.plot(minutes, [x.rss_file_mb for x in soak.samples], label="file pages (the mapped model)")
    a.set_ylabel("server memory (MB)")
    a.legend(fontsize=7)
    for kind, xs in sorted(soak.tally.latencies.items()):
        if kind.startswith(("completion", "hover")) and xs:
            b.plot([w / 60 for w in soak.tally.when[kind]], [x * 1000 for x in xs], ".", markersize=2, label=kind)
    b.set_yscale("log")
    b.set_ylabel("latency (ms)")
    b.set_xlabel("minutes into the run")
    b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "soak.png", dpi=110)


async def main_async(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    workspace = Path(tempfile.mkdtemp(prefix="qualm-soak-workspace-", dir=args.scratch))
    tmp = Path(tempfile.mkdtemp(prefix="qualm-soak-tmp-", dir=args.scratch))
    os.environ["TMPDIR"] = str(tmp)  # the server's sandbox folders go here, to be counted
    slow = None
    if args.loop_debug:
        # the server inherits the variable (its loop logs slow callbacks to stderr); the driver's
        # loop already runs, so it is switched on here and its log caught
        os.environ["PYTHONASYNCIODEBUG"] = "1"
        loop = asyncio.get_running_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = 0.1
        slow = _SlowCallbacks()
        logging.getLogger("asyncio").addHandler(slow)
    s = Session()
    await s.start(args.options)
    soak = Soak(s, workspace, tmp, args)
    soak.slow = slow
    if args.message_log:
        soak.messages = _MessageLog()
        soak.messages.install()
    for name, lang, text in real_files(args.files, rng):
        path = workspace / name
        path.write_text(text)
        soak.closed.append(OpenFile(path.as_uri(), path, lang, text))
    sampler = asyncio.ensure_future(soak.sampler(s.client._server.pid))
    t0 = time.monotonic()
    try:
        await soak.run()
        # settle: every request answered (a cancelled one with an error), within a bound
        end = time.monotonic() + args.settle_s
        while any(not f.done() for f in soak.pending.values()) and time.monotonic() < end:
            await asyncio.sleep(0.1)
        settled = all(f.done() for f in soak.pending.values())
        await asyncio.sleep(2 * args.sample_s)  # one more sample after the last request
        soak.stderr = b"".join(s.stderr)  # the server's own output, tracebacks included, for reading
        return summarize(soak, s, workspace, time.monotonic() - t0, settled) | {"_soak": soak}
    finally:
        sampler.cancel()
        await s.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keystrokes", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=56)
    ap.add_argument("--files", type=int, default=6)
    ap.add_argument("--accept", type=float, default=0.3, help="the share of line ends where the ghost text is accepted")
    ap.add_argument("--sample-s", type=float, default=2.0)
    ap.add_argument("--settle-s", type=float, default=300.0)
    ap.add_argument("--model-script", help="a scripted model (a smoke run of the driver); default: the default model")
    ap.add_argument("--scratch", default=None, help="where the workspace and the server's TMPDIR go (default: the system's)")
    ap.add_argument("--loop-debug", action="store_true", help="asyncio debug mode in the server and the driver: list the callbacks that held either event loop >= 0.1 s")
    ap.add_argument("--message-log", action="store_true", help="each message the driver reads: its method, size and parse time (summary.json's messages_read)")
    ap.add_argument("--out", default=str(ROOT / "results" / "soak"))
    args = ap.parse_args()
    args.options = {"editor": {"diagnostic_level": "low", "highlight_level": "low"}}
    if args.model_script:
        args.options["model"] = {"backend": "scripted", "path": str(Path(args.model_script).resolve())}
    summary = asyncio.run(main_async(args))
    soak = summary.pop("_soak")
    write(Path(args.out), soak, summary)
    print((Path(args.out) / "summary.md").read_text())


if __name__ == "__main__":
    main()
