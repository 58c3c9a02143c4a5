"""The language server with ``model.backend: "openai"``, driven over stdio as an editor drives it,
against a real llama-cpp-python server that the test stops and starts again: the status says the
server failed after start-up, the failed request gets an error (not a silent empty answer), and the
first request that gets through again brings the status back to ready."""

from __future__ import annotations

import asyncio

import pytest
from lsp_session import SMALL, URI, run
from remote_servers import free_port, llama_cpp_python_server, llama_server

pytestmark = pytest.mark.model

DOC = 'def inc(x: int) -> int:\n    """Return x plus one."""\n'


def test_a_server_that_fails_after_start_up_shows_in_the_status_and_recovers():
    port = free_port()
    options = {**SMALL, "model": {"backend": "openai", "endpoint": f"http://127.0.0.1:{port}", "retries": 0, "timeout_s": 60}}
    params = {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 0}, "options": {"maxTokens": 8}}

    async def scenario(s):
        with llama_cpp_python_server(logits_all=True, port=port) as server:
            await s.start(options)
            ready = next(x for x in s.statuses if x["state"] == "ready")
            assert "entropy bounds" in ready["message"] and "on a server" in ready["message"]
            s.open(DOC)
            first = await s.client.protocol.send_request_async("qualm/complete", params)
            assert first.text and first.tokens
            server.stop()
        with pytest.raises(Exception, match="cannot reach the model server"):
            await s.client.protocol.send_request_async("qualm/complete", params)
        await s.wait_for(lambda: s.statuses[-1]["state"] == "unreachable", "the unreachable status")
        assert f"127.0.0.1:{port}" in s.statuses[-1]["message"]
        with llama_cpp_python_server(logits_all=True, port=port):
            again = await s.client.protocol.send_request_async("qualm/complete", params)
            assert again.text == first.text  # greedy: the same answer from the restarted server
            await s.wait_for(lambda: s.statuses[-1]["state"] == "ready", "ready once a request gets through")

    run(scenario)


def test_a_server_that_goes_down_mid_stream_fails_the_request_and_recovers():
    # The server is stopped while a completion streams: the request ends with an error that names the
    # server (not a hang, not the partial text passed off as the answer); once it is back, the next
    # completion works and the status is ready again.
    port = free_port()
    options = {**SMALL, "model": {"backend": "openai", "endpoint": f"http://127.0.0.1:{port}", "retries": 0, "timeout_s": 60}}
    long = {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 0}, "partialResultToken": "partial", "options": {"maxTokens": 400, "temperature": 0.8}}
    short = {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 0}, "options": {"maxTokens": 8}}

    async def scenario(s):
        with llama_cpp_python_server(logits_all=True, port=port) as server:
            await s.start(options)
            s.open(DOC)
            streaming = asyncio.ensure_future(s.client.protocol.send_request_async("qualm/complete", long))
            await s.wait_for(lambda: len(s.partials) >= 3 or streaming.done(), "the completion to stream")
            assert not streaming.done(), "the completion ended before the server could be stopped"
            server.stop()
        with pytest.raises(Exception, match=rf"the connection to http://127\.0\.0\.1:{port} broke"):
            await streaming
        await s.wait_for(lambda: s.statuses[-1]["state"] == "unreachable", "the unreachable status")
        with llama_cpp_python_server(logits_all=True, port=port):
            again = await s.client.protocol.send_request_async("qualm/complete", short)
            assert again.text and again.tokens
            await s.wait_for(lambda: s.statuses[-1]["state"] == "ready", "ready once a request gets through")

    run(scenario)


def test_two_windows_servers_share_one_model_server_and_both_answer():
    # Two VS Code windows: two qualm processes against one shared llama.cpp llama-server (its slots
    # serve clients side by side; llama-cpp-python's server by default interrupts a request when
    # another arrives, which qualm reports as an answer cut short). Completions from both at once are
    # each answered in full, each the greedy answer it gives alone, and both servers stay ready.
    from lsp_session import Session
    from pygls.exceptions import JsonRpcRequestCancelled
    from timing import seconds

    params = {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 0}, "options": {"maxTokens": 12}}

    async def main():
        with llama_server() as url:
            options = {**SMALL, "model": {"backend": "openai", "endpoint": url, "retries": 0, "timeout_s": 120}}
            a, b = Session(), Session()
            try:
                await a.start(options)
                await b.start(options)
                for s in (a, b):
                    s.open(DOC)
                alone = await a.client.protocol.send_request_async("qualm/complete", params)
                requests = [s.client.protocol.send_request_async("qualm/complete", params) for s in (a, b, a, b)]
                both = await asyncio.wait_for(asyncio.gather(*requests, return_exceptions=True), seconds(300))
                # the latest request of each window answers in full; its earlier one for the same
                # document is answered too: in full, cut short by the newer (one per document), or
                # RequestCancelled if the newer came before it started
                assert alone.text and [getattr(r, "text", r) for r in both[2:]] == [alone.text, alone.text], both
                assert all(isinstance(r, JsonRpcRequestCancelled) or r.text == alone.text or r.stopReason == "cancelled" for r in both[:2]), both
                for s in (a, b):
                    await s.wait_for(lambda s=s: s.statuses[-1]["state"] == "ready", "ready after the shared completions")
            finally:
                await a.stop()
                await b.stop()

    asyncio.run(asyncio.wait_for(main(), 900))
