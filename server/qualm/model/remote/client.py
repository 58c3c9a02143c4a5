"""HTTP to an inference server: JSON requests, server-sent-event streams, retries and clear errors.

httpx (connection pooling, separate connect and read timeouts, streaming) does the transport; this
module only adds what every engine needs alike: the API key from an environment variable, a retry
with back-off for a server that is starting or overloaded (connect errors, 429, 5xx) before any
byte of an answer arrived, and one error type whose message says what went wrong in a user's words.
A stream that breaks after tokens arrived is not retried: what was shown stays, and the caller says
the answer was cut.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from ..backend import ModelUnreachable

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})


class RemoteError(ModelUnreachable):
    """A request to the server failed; the message is meant for the status bar and the CLI (both
    show a ModelRuntimeError's message as it is, without a traceback)."""


@dataclass(frozen=True)
class ClientConfig:
    endpoint: str
    api_key_env: str = "QUALM_API_KEY"
    timeout_s: float = 120.0
    retries: int = 2
    connect_timeout_s: float = 10.0
    backoff_s: float = 0.5


def base_urls(endpoint: str) -> tuple[str, str]:
    """(server root, OpenAI root): ``http://h:8000/v1`` and ``http://h:8000`` both name the same
    server; native routes (``/props``, ``/completion``, ``/generate``) live at the root."""
    url = endpoint.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise RemoteError(f"qualm.model.endpoint must be an http(s) URL, got {endpoint!r}")
    root = url[: -len("/v1")] if url.endswith("/v1") else url
    return root, root + "/v1"


class RemoteClient:
    def __init__(self, config: ClientConfig, transport: httpx.BaseTransport | None = None):
        self.config = config
        self.root, self.v1 = base_urls(config.endpoint)
        key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        timeout = httpx.Timeout(config.timeout_s, connect=config.connect_timeout_s)
        self._http = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    # -- requests ----------------------------------------------------------------------------

    def get_json(self, path: str, *, quiet: bool = False) -> Any:
        """GET a JSON document; ``quiet``: None on 404/405 or a non-JSON answer (probing a route
        this engine does not have) instead of an error."""
        response = self._send("GET", path, None)
        if quiet and (response.status_code in (404, 405, 501) or not _is_json(response)):
            return None
        return self._json(response, path)

    def post_json(self, path: str, body: dict) -> Any:
        return self._json(self._send("POST", path, body), path)

    def stream_events(self, path: str, body: dict) -> Iterator[dict]:
        """POST with ``stream``; yields each server-sent event's JSON object until ``[DONE]``.
        Closing the generator closes the connection: the server stops decoding (cancellation)."""
        response = self._send("POST", path, body, stream=True)
        try:
            if response.status_code >= 400:
                response.read()
                raise RemoteError(_status_message(response, path))
            yield from _events(response, path)
        except httpx.TimeoutException as exc:
            raise self._too_slow(path) from exc
        except httpx.HTTPError as exc:  # the stream broke after it began: never retried
            raise RemoteError(f"the connection to {self.root} broke during {path}: {exc}") from exc
        finally:
            response.close()

    def close(self) -> None:
        self._http.close()

    # -- internals ---------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return path if path.startswith("http") else (self.v1 + path[3:] if path.startswith("/v1/") else self.root + path)

    def _send(self, method: str, path: str, body: dict | None, stream: bool = False) -> httpx.Response:
        """The response, after retrying (with back-off) a server that could not be reached or
        answered 429/5xx; ``stream``: its body is read by the caller, who closes it."""
        url = self._url(path)
        for attempt in range(self.config.retries + 1):
            last = attempt == self.config.retries
            try:
                response = self._http.send(self._http.build_request(method, url, json=body), stream=stream)
            except httpx.TimeoutException as exc:
                raise self._too_slow(path) from exc
            except httpx.ConnectError as exc:
                if last:
                    raise RemoteError(f"cannot reach the model server at {self.root}: {exc}; is it running? (qualm.model.endpoint)") from exc
            except httpx.HTTPError as exc:
                raise RemoteError(f"request to {url} failed: {exc}") from exc
            else:
                if response.status_code not in RETRY_STATUS or last:
                    return response
                response.close()
            time.sleep(self.config.backoff_s * 2**attempt)
        raise AssertionError("unreachable")

    def _too_slow(self, path: str) -> RemoteError:
        return RemoteError(f"{self.root} did not answer within {self.config.timeout_s:g} s ({path}); raise qualm.model.timeout_s or check the server")

    def _json(self, response: httpx.Response, path: str) -> Any:
        if response.status_code >= 400:
            raise RemoteError(_status_message(response, path))
        try:
            return response.json()
        except ValueError as exc:
            raise RemoteError(f"{self.root}{path} answered with something that is not JSON: {response.text[:200]!r}") from exc


def _is_json(response: httpx.Response) -> bool:
    try:
        response.json()
    except ValueError:
        return False
    return True


def _status_message(response: httpx.Response, path: str) -> str:
    detail = ""
    try:
        data = response.json()
        err = data.get("error", data) if isinstance(data, dict) else data
        detail = err.get("message", "") if isinstance(err, dict) else str(err)
        detail = detail or (str(data.get("detail", "")) if isinstance(data, dict) else "")
    except ValueError:
        detail = response.text[:300]
    if response.status_code in (401, 403):
        return f"the model server refused the request ({response.status_code}): set the API key's environment variable named by qualm.model.api_key_env"
    return f"the model server answered {response.status_code} to {path}" + (f": {detail}" if detail else "")


def _events(response: httpx.Response, path: str) -> Iterator[dict]:
    """Server-sent events: ``data: {...}`` lines, ``data: [DONE]`` at the end (OpenAI, vLLM,
    llama.cpp); an ``error`` object inside the stream is raised."""
    for line in response.iter_lines():
        if not line or line.startswith(":"):
            continue
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            event = json.loads(payload)
        except ValueError as exc:
            raise RemoteError(f"the model server sent a malformed event during {path}: {payload[:200]!r}") from exc
        if isinstance(event, dict) and "error" in event and not event.get("choices"):
            err = event["error"]
            raise RemoteError(f"the model server failed during {path}: {err.get('message', err) if isinstance(err, dict) else err}")
        yield event
