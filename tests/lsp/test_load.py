"""Load on the real server process over stdio: 50 completion requests in flight over five documents,
some cancelled by the client, most superseded by a newer request for their document. Every request
is answered exactly once (a result, or the error RequestCancelled), the newest of each document in
full, and the server is responsive after: a hover, the status and a last completion answer. The
scripted backend writes at a known pace (the model's arithmetic is all it replaces); the real-model
figures of the same load are benchmarks/runtime/load.py's."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsp_session import Session, run
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from timing import seconds

from qualm.lsp.params import plain

DOCS = [f"file:///tmp/qualm-load-test/m{i}.py" for i in range(5)]
TEXT = 'def f(x: int) -> int:\n    """Return x plus one."""\n    \n'
ANSWER = "return x + 1\n"


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"name": "scripted load", "completions": [ANSWER], "seconds_per_token": 0.02}))
    return path


def test_fifty_completions_in_flight_with_cancellations_are_each_answered_once(script):
    async def scenario(s: Session):
        await s.start({"model": {"backend": "scripted", "path": str(script)}})
        for uri in DOCS:
            s.open(TEXT, uri)
        answers: dict[int, int] = {}
        proto = s.client.protocol
        original = proto._handle_response

        def counted(msg_id, result=None, error=None):  # every answer the client receives, by id
            answers[msg_id] = answers.get(msg_id, 0) + 1
            return original(msg_id, result, error)

        proto._handle_response = counted
        futures, ids = [], []
        for i in range(50):
            params = {"textDocument": {"uri": DOCS[i % 5]}, "position": {"line": 2, "character": 4}}
            pending = set(proto._request_futures)
            futures.append(asyncio.wrap_future(proto.send_request("qualm/complete", params)))
            (sent,) = set(proto._request_futures) - pending  # this request's id
            ids.append(sent)
            if i % 7 == 3 and i < 45:  # the client gives up on some (typing on, the suggestion closed); not the last of a document
                proto.notify(t.CANCEL_REQUEST, t.CancelParams(id=ids[-1]))
        settled = await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), seconds(300))
        for i, outcome in enumerate(settled):
            assert not isinstance(outcome, Exception) or isinstance(outcome, (JsonRpcException, asyncio.CancelledError)), (i, outcome)
        assert sorted(answers) == sorted(ids) and set(answers.values()) == {1}, answers  # each answered exactly once
        newest = settled[-5:]  # the last request of each document: nothing newer cancelled it
        assert all(not isinstance(r, Exception) and r.text.strip() == ANSWER.strip() and r.stopReason != "cancelled" for r in newest), newest
        # responsive after the load
        await asyncio.wait_for(s.hover(1, 8, DOCS[0]), seconds(10))  # answered (no mark there: None)
        # the worker goes idle once the jobs it was running when their requests were answered have
        # stopped (on a loaded machine that can be a moment after the last answer)
        status = await s.eventually(lambda: _idle_status(s), "the worker to go idle")
        assert status["state"] in ("ready", "busy")
        again = await s.client.protocol.send_request_async("qualm/complete", {"textDocument": {"uri": DOCS[0]}, "position": {"line": 2, "character": 4}})
        assert again.text.strip() == ANSWER.strip()

    run(scenario)


async def _idle_status(s: Session) -> dict | None:
    status = plain(await s.command("qualm.status"))
    return None if status["busy"] else status
