"""Real inference servers started by the tests on the default model, and stopped after them."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from timing import seconds

from qualm.model.files import cache_dir, resolve_model_path
from qualm.settings import default_threads


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerURL(str):
    """The server's base URL; ``stop()`` kills the process (a server that dies mid-answer)."""

    process: subprocess.Popen

    def stop(self) -> None:
        self.process.kill()


def _wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url + "/v1/models", timeout=seconds(2)).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server did not start within {timeout:g} s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def _running(command: list[str], port: int) -> Iterator[ServerURL]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        with log.open("w") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        url = ServerURL(f"http://127.0.0.1:{port}")
        url.process = process
        try:
            _wait_until_up(url, process, log)
            yield url
        finally:
            process.kill()
            process.wait(timeout=seconds(30))


@contextlib.contextmanager
def llama_cpp_python_server(logits_all: bool, port: int | None = None) -> Iterator[ServerURL]:
    """``python -m llama_cpp.server`` on the default model; ``logits_all`` is what its logprobs need."""
    model, _ = resolve_model_path(None)
    port = port or free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port)]
    command += ["--n_ctx", "4096", "--n_threads", str(default_threads()), "--n_threads_batch", str(default_threads()), "--logits_all", str(logits_all).lower()]
    with _running(command, port) as url:
        yield url


BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build-llama-server"


def llama_server_binary() -> str:
    """The llama-server built from the pinned llama.cpp: scripts/build-llama-server records its path
    in qualm's cache folder; QUALM_LLAMA_SERVER overrides. The one way the tests find it. Missing is
    an error, not a skip: pytest builds it before the tests that start it (build_llama_server, called
    from tests/remote/conftest.py), so CI cannot pass without this server."""
    path = os.environ.get("QUALM_LLAMA_SERVER")
    record = cache_dir() / "llama-server"
    if not path and record.is_file():
        path = record.read_text().strip()
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(f"no llama-server binary ({path or record} missing): run scripts/build-llama-server")
    return path


def build_llama_server() -> str:
    """Runs scripts/build-llama-server (the CPU build, as the tests use) and returns the binary's path,
    through llama_server_binary. Instant when qualm's cache holds it, else a compile (about 5 minutes
    on 2 cores); the script's progress, and its last line (built in N s, or cached), go to stderr.
    With QUALM_LLAMA_SERVER set, that binary is used and nothing is built. Raises RuntimeError saying
    why when there is no binary after it."""
    if os.environ.get("QUALM_LLAMA_SERVER"):
        path = llama_server_binary()
        print(f"[llama-server] QUALM_LLAMA_SERVER: {path} (nothing built)", file=sys.stderr)
        return path
    done = subprocess.run([str(BUILD_SCRIPT)], stdout=subprocess.DEVNULL, env={**os.environ, "QUALM_GPU": "cpu"})
    if done.returncode != 0:
        raise RuntimeError(f"llama-server could not be built: scripts/build-llama-server exited with {done.returncode} (its output is where the test session starts)")
    return llama_server_binary()


@contextlib.contextmanager
def llama_server(binary: str | None = None) -> Iterator[ServerURL]:
    """llama.cpp's ``llama-server`` (a binary built from the pinned llama.cpp) on the default model."""
    model, _ = resolve_model_path(None)
    port = free_port()
    command = [binary or llama_server_binary(), "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-t", str(default_threads()), "-c", "4096"]
    with _running(command, port) as url:
        yield url
