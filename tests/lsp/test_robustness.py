"""The server under abuse: 1000+ random and malformed messages, a 1 MB document, a storm of edits.
Afterwards a normal hover must still answer correctly."""

from __future__ import annotations

import asyncio
import json
import random
import time

import pytest
from lsp_session import DOC, URI, Session, run
from lsprotocol import types as t

pytestmark = pytest.mark.model

METHODS = [
    "textDocument/hover", "textDocument/codeLens", "codeLens/resolve", "workspace/executeCommand",
    "qualm/complete", "textDocument/inlineCompletion", "textDocument/definition", "no/such/method",
    "textDocument/completion", "$/qualm/unknown",
]
NOTIFICATIONS = ["textDocument/didChange", "textDocument/didOpen", "textDocument/didClose", "qualm/accepted", "workspace/didChangeConfiguration", "no/such/notification"]


def junk(rng: random.Random, depth: int = 0):
    kinds = ["int", "str", "none", "bool", "list", "dict", "float", "huge"]
    k = rng.choice(kinds if depth < 3 else kinds[:4])
    if k == "int":
        return rng.randint(-5, 50)
    if k == "huge":
        return rng.choice([2**63, -(2**40), 10**20])
    if k == "float":
        return rng.choice([0.5, float("1e308"), -1.5])
    if k == "str":
        return rng.choice(["", URI, "file:///nope.py", "x" * 1000, "\u0000\ud7ff", "qualm.assessFunction", "qualm.scoreDocument"])
    if k == "none":
        return None
    if k == "bool":
        return rng.random() < 0.5
    if k == "list":
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = ["textDocument", "position", "uri", "line", "character", "command", "arguments", "range", "start", "end", "text", "contentChanges", "options", "maxTokens", "traceId", "settings", "data"]
    return {rng.choice(keys): junk(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def plausible(rng: random.Random):
    """Well-formed on the surface, wrong underneath (positions past the end, unknown documents...)."""
    pos = {"line": rng.choice([0, 3, 10_000, -1]), "character": rng.choice([0, 5, 10_000, -3])}
    doc = {"uri": rng.choice([URI, "file:///unknown.py"])}
    return rng.choice([
        {"textDocument": doc, "position": pos},
        {"textDocument": doc, "position": pos, "options": {"maxTokens": rng.choice([0, 1, -5, "many"])}},
        {"command": rng.choice(["qualm.assessFunction", "qualm.clear", "qualm.status", "qualm.nope"]), "arguments": [junk(rng) for _ in range(rng.randint(0, 3))]},
        {"textDocument": doc, "text": rng.choice(["", "nope", "return", 7]), "range": {"start": pos, "end": pos}},
    ])


MALFORMED = [
    b"{not json",
    b"[]",
    b"{}",
    b'{"jsonrpc": "2.0"}',
    b'{"jsonrpc": "1.0", "id": 1, "method": "textDocument/hover"}',
    b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover", "params": {}}',
    b'{"jsonrpc": "2.0", "id": 7, "method": 42, "params": []}',
    b'{"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": "just a string"}',
    b'[{"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover"}]',
    b'"\\ud800"',
    b"null",
]


def send_raw(s: Session, body: bytes) -> None:
    """Bytes straight onto the server's stdin, framed but otherwise unchecked (the client's own
    send path would refuse to serialise most of these)."""
    res = s.client.protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if asyncio.iscoroutine(res):
        asyncio.ensure_future(res)


def test_fuzz_then_a_normal_hover_still_answers():
    async def scenario(s: Session):
        await s.start({"editor": {"completion_max_tokens": 4}, "algorithmic": {"n_plans": 2, "max_tokens": 16}, "functional": {"n_tests": 2, "max_tokens": 32, "n_solutions": 1, "solution_max_tokens": 32}})
        s.open()
        await s.command("qualm.scoreDocument", URI)
        await s.wait_for(lambda: s.diagnostics.get(URI), "diagnostics")
        target = s.diagnostics[URI][0]
        expected = (await s.hover(target.range.start.line, target.range.start.character)).contents.value
        rng = random.Random(1234)
        for i in range(1200):
            roll = rng.random()
            if roll < 0.1:
                body = rng.choice(MALFORMED)
            else:
                params = junk(rng) if rng.random() < 0.6 else plausible(rng)
                if roll < 0.4:
                    method = rng.choice(NOTIFICATIONS)
                    if method.startswith("textDocument/did") and isinstance(params, dict):
                        params["textDocument"] = {"uri": "file:///fuzz.py", "version": 1}  # never the real document
                    message = {"jsonrpc": "2.0", "method": method, "params": params}
                else:
                    message = {"jsonrpc": "2.0", "id": 100_000 + i, "method": rng.choice(METHODS), "params": params}
                body = json.dumps(message).encode()
            send_raw(s, body)
            if i % 100 == 99:
                await asyncio.sleep(0.05)  # let the pipe drain
        # the fuzz may legitimately have cleared the marks (qualm.clear is among the commands it
        # sends); scoring is deterministic, so scoring again must give the very same hover
        await asyncio.wait_for(s.command("qualm.scoreDocument", URI), 300)
        hover = await asyncio.wait_for(s.hover(target.range.start.line, target.range.start.character), 60)
        assert hover is not None and hover.contents.value == expected
        assert len(await s.lenses()) == 2
        status = await s.command("qualm.status")
        assert status["state"] in ("ready", "busy")

    run(scenario)


def test_a_one_megabyte_document_and_a_storm_of_edits():
    big = "".join(f"def f{i}(x):\n    \"\"\"Function {i}.\"\"\"\n    return x + {i}\n\n\n" for i in range(22_000))
    assert len(big) > 1_000_000

    async def scenario(s: Session):
        await s.start()
        big_uri = "file:///tmp/qualm-lsp-test/big.py"
        s.open(big, big_uri)
        started = time.monotonic()
        lenses = await s.client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=big_uri)))
        assert len(lenses) == 22_000
        assert time.monotonic() - started < 30
        assert await s.hover(100, 4, big_uri) is None
        # the small document, scored, then 500 edits in a burst: marks must stay on their text
        s.open()
        await s.command("qualm.scoreDocument", URI)
        await s.wait_for(lambda: s.diagnostics.get(URI), "diagnostics")
        text = DOC
        rng = random.Random(7)
        version = 1
        for _ in range(500):
            version += 1
            line = rng.randint(0, 11)
            lines = text.split("\n")
            col = rng.randint(0, len(lines[line]))
            insert = rng.choice(["", "x", " ", "\n", "# c\n"])
            delete = rng.randint(0, 2) if col + 2 <= len(lines[line]) else 0
            s.change(version, (line, col), (line, col + delete), insert)
            offset = sum(len(x) + 1 for x in lines[:line]) + col
            text = text[:offset] + insert + text[offset + delete :]
        await s.wait_for(lambda: s.diagnostic_versions.get(URI) == version, "the diagnostics of the last version")
        lines = text.split("\n")
        for d in s.diagnostics[URI]:
            word = lines[d.range.start.line][d.range.start.character : d.range.end.character]
            assert word and word.strip() and f"'{word.strip()}'" in d.message  # every mark is on its own token

    run(scenario)
