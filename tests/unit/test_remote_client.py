"""The HTTP client against a real (stdlib) HTTP server on a local socket: a server too slow for the
read timeout, one that is starting (503, then up: retried), one that keeps failing (the retries end
with the status in words), and one that streams for a while then goes quiet past the timeout."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from qualm.model.remote.client import ClientConfig, RemoteClient, RemoteError


@contextlib.contextmanager
def serving(answer) -> Iterator[tuple[str, list[str]]]:
    """A server whose every request is answered by ``answer(handler, n)`` (n: the request's number)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            answer(self, len(seen))

        do_POST = do_GET

        def log_message(self, *args) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def send(handler: BaseHTTPRequestHandler, status: int, body: dict) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def test_a_slow_server_is_named_with_the_setting_to_raise():
    def slow(h, n):
        time.sleep(1.5)
        send(h, 200, {"data": []})

    with serving(slow) as (url, _):
        client = RemoteClient(ClientConfig(url, timeout_s=0.3, retries=0))
        with pytest.raises(RemoteError, match=r"did not answer within 0.3 s \(/v1/models\); raise qualm.model.timeout_s"):
            client.get_json("/v1/models")


def test_a_starting_server_is_retried_and_one_that_keeps_failing_is_said_in_words():
    def starting(h, n):
        send(h, 503, {"error": {"message": "Loading model"}}) if n < 3 else send(h, 200, {"data": [{"id": "m"}]})

    with serving(starting) as (url, seen):
        client = RemoteClient(ClientConfig(url, retries=2, backoff_s=0.01))
        assert client.get_json("/v1/models") == {"data": [{"id": "m"}]} and len(seen) == 3

    with serving(lambda h, n: send(h, 503, {"error": {"message": "Loading model"}})) as (url, seen):
        client = RemoteClient(ClientConfig(url, retries=1, backoff_s=0.01))
        with pytest.raises(RemoteError, match="503.*Loading model"):
            client.get_json("/v1/models")
        assert len(seen) == 2


def test_a_stream_that_goes_quiet_keeps_the_events_already_read():
    def quiet(h, n):
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.end_headers()
        h.wfile.write(b'data: {"choices": [{"index": 0, "text": "a"}]}\n\n')
        h.wfile.flush()
        time.sleep(1.5)

    with serving(quiet) as (url, _):
        client = RemoteClient(ClientConfig(url, timeout_s=0.3, retries=0))
        got = []
        with pytest.raises(RemoteError, match="did not answer within 0.3 s"):
            for event in client.stream_events("/v1/completions", {"stream": True}):
                got.append(event)
        assert got == [{"choices": [{"index": 0, "text": "a"}]}]
