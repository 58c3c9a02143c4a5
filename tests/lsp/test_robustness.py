"""The server under abuse: 1000+ random and malformed messages, a 1 MB document, a storm of edits.
Every request of the fuzz gets exactly one reply, and afterwards a normal hover still answers
correctly."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter

import pytest
from lsp_session import DOC, URI, Session, run
from lsprotocol import types as t
from timing import seconds

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


FUZZ_IDS = 100_000  # the fuzz's requests have ids from here on; the client's own are strings


def count_replies(s: Session) -> Counter:
    """The replies (results and errors) to the fuzz's requests, by id, as they arrive: the client
    knows nothing of these ids and would only log and drop them."""
    replies: Counter = Counter()
    protocol = s.client.protocol
    handle = protocol._handle_response

    def counted(msg_id, result=None, error=None):
        if isinstance(msg_id, int) and msg_id >= FUZZ_IDS:
            replies[msg_id] += 1
        else:
            handle(msg_id, result, error)

    protocol._handle_response = counted
    return replies


class UnansweredRequests(AssertionError):
    """Requests of the fuzz that never got a reply (a client would wait for them forever)."""


def test_fuzz_then_a_normal_hover_still_answers():
    async def scenario(s: Session):
        await s.start({"editor": {"completion_max_tokens": 4}, "algorithmic": {"n_plans": 2, "max_tokens": 16}, "functional": {"n_tests": 2, "max_tokens": 32, "n_solutions": 1, "solution_max_tokens": 32}})
        replies = count_replies(s)
        requests: dict[int, str] = {}  # id: the request, for the message of a failure
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
                    message = {"jsonrpc": "2.0", "id": FUZZ_IDS + i, "method": rng.choice(METHODS), "params": params}
                    requests[FUZZ_IDS + i] = json.dumps(message)[:200]
                body = json.dumps(message).encode()
            send_raw(s, body)
            if i % 100 == 99:
                await s.client.protocol.writer.drain()  # the server's stdin (an asyncio StreamWriter): wait until the pipe has room
        # the fuzz may legitimately have cleared the marks (qualm.clear is among the commands it
        # sends); scoring is deterministic, so scoring again must give the very same hover. The
        # model's one queue runs jobs in order: once this scoring is done, so is every model job a
        # fuzz request started before it (the bound is generous, so a hang fails rather than waits)
        await asyncio.wait_for(s.command("qualm.scoreDocument", URI), seconds(300))
        hover = await asyncio.wait_for(s.hover(target.range.start.line, target.range.start.character), seconds(60))
        assert hover is not None and hover.contents.value == expected
        assert len(await s.lenses()) == 2
        status = await s.command("qualm.status")
        assert status["state"] in ("ready", "busy")
        # every request of the fuzz is answered, with a result or an error, exactly once
        end = time.monotonic() + seconds(10)  # stragglers: no model work is left
        while (unanswered := [i for i in requests if not replies[i]]) and time.monotonic() < end:
            await asyncio.sleep(0.1)
        assert len(requests) > 500 and {i: n for i, n in replies.items() if n != 1} == {}, "a request answered more than once"
        assert set(replies) <= set(requests)
        if unanswered:
            raise UnansweredRequests(f"{len(unanswered)} of {len(requests)} fuzz requests got no reply, e.g.:\n" + "\n".join(requests[i] for i in unanswered[:10]))

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
        assert time.monotonic() - started < seconds(30)  # no work that grows faster than the document
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
