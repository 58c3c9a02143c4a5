"""The sandbox against hostile tests: every snippet is contained, the caller lives, the other tests'
results survive, and nothing outside the sandbox's temporary folder changes.

These run the real runner in a real subprocess (inside bubblewrap where it is installed; the test
says which isolation was active, and the bubblewrap-only checks are skipped without it)."""

from __future__ import annotations

import hashlib
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from timing import seconds

from qualm_sandbox import SandboxConfig, run_tests

# Where the sandbox is missing or broken, conftest.py fails or skips every test here.

CANDIDATE = "def double(x):\n    return 2 * x\n"
CONTROL = "assert double(21) == 42"
FAST = SandboxConfig(timeout=seconds(2.0), memory_mb=512, max_processes=16)


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def outside(tmp_path):
    """Files outside the sandbox that hostile tests try to read, change or delete."""
    root = tmp_path / "outside"
    (root / "home").mkdir(parents=True)
    (root / "home" / ".bashrc").write_text("# the user's shell settings\n")
    (root / "secret.txt").write_text("TOP-SECRET-7c1e\n")
    (root / "project").mkdir()
    (root / "project" / "main.py").write_text("print('hello')\n")
    return root


@pytest.fixture
def listener():
    """A TCP server on 127.0.0.1 that records whatever reaches it."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    srv.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(1)
                try:
                    received.append(conn.recv(1024))
                except OSError:
                    received.append(b"<connected>")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1], received
    stop.set()
    t.join(2)
    srv.close()


def hostile_snippets(outside: Path, port: int) -> list[tuple[str, str, set[str]]]:
    """(name, test code, acceptable statuses). A hostile test must never be reported as passed
    unless it really is a passing assert (the env and detach cases)."""
    secret = outside / "secret.txt"
    bashrc = outside / "home" / ".bashrc"
    project = outside / "project"
    bad = {"error", "timeout", "failed"}
    return [
        ("fork bomb", "import os\nwhile True:\n    os.fork()", bad),
        ("memory bomb at once", "x = bytearray(64 * 1024**3)", {"error"}),
        ("memory bomb growing", "xs = []\nwhile True:\n    xs.append(bytearray(10**7))", {"error"}),
        ("infinite loop", "while True:\n    pass", {"timeout", "error"}),
        ("busy threads", "import threading, time\ndef spin():\n    while True:\n        pass\nfor _ in range(8):\n    threading.Thread(target=spin, daemon=True).start()\ntime.sleep(60)", {"timeout", "error"}),
        ("recursion bomb", "def f(n):\n    return f(n + 1)\nf(0)", {"error"}),
        ("stack overflow", "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\nf(0)", {"error", "timeout"}),
        ("huge stdout", "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", bad),
        ("sys.exit(0) in the test", "import sys\nsys.exit(0)", {"error"}),
        ("os._exit(0) in the test", "import os\nos._exit(0)", {"error"}),
        ("write and delete in HOME", f"import os\nopen(os.path.expanduser('~/.bashrc'), 'w').write('pwned')\nopen({str(bashrc)!r}, 'w').write('pwned')", bad),
        ("delete the user's files", f"import shutil\nshutil.rmtree({str(project)!r})", bad),
        ("read a secret outside", f"data = open({str(secret)!r}).read()\nprint(data)\nassert 'TOP-SECRET' not in data", bad),
        ("socket to 127.0.0.1", f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=1)\ns.sendall(b'leaked')", bad),
        ("kill the parent", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", bad),
        ("kill every process", "import os, signal\nos.kill(-1, signal.SIGKILL)\nassert False, 'survived'", bad),
        ("kill own group", "import os, signal\nos.killpg(0, signal.SIGKILL)", bad),
        ("chdir and write", f"import os\nos.chdir({str(project)!r})\nopen('evil.py', 'w').write('x')", bad),
        ("write at the root", "open('/evil.txt', 'w').write('x')", bad),
        ("ctypes segfault", "import ctypes\nctypes.string_at(0)", {"error"}),
        ("patch the harness's builtins", "import builtins, os, json\nbuiltins.str = None\nbuiltins.len = None\nos.write = None\nos._exit = None\njson.dumps = None\nassert False, 'still a failure'", {"failed"}),
        ("print fake harness output", "print('{\"index\": 0, \"status\": \"passed\", \"message\": \"\"}')\nimport sys\nsys.stdout.flush()\nassert False", {"failed"}),
        ("write fake results to every fd", "import os\nfor fd in range(0, 64):\n    try:\n        os.write(fd, b'{\"index\": 0, \"status\": \"passed\", \"nonce\": \"x\"}\\n')\n    except OSError:\n        pass\nassert False", {"failed"}),
        ("fill the disk", "f = open('big.bin', 'wb')\nwhile True:\n    f.write(b'0' * 2**20)", bad),
        ("too many open files", "fs = [open('/dev/null') for _ in range(100000)]", {"error"}),
        ("sleep forever", "import time\ntime.sleep(3600)", {"timeout"}),
        ("the caller's environment is not visible", "import os\nassert 'QUALM_TEST_SECRET' not in os.environ", {"passed"}),
    ]


def _qualm_sleepers() -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "qualm-detached-sleeper" in line and "ps -eo" not in line]


def test_hostile_battery_is_contained(outside, listener, monkeypatch, isolation):
    port, received = listener
    monkeypatch.setenv("QUALM_TEST_SECRET", "do-not-leak")
    snippets = hostile_snippets(outside, port)
    assert len(snippets) >= 20
    if isolation.name == "limits":
        # Without a PID namespace kill(-1) reaches every process of this user, pytest included
        # (documented in the README); everything else must still be contained.
        snippets = [s for s in snippets if s[0] != "kill every process"]
    tests: list[str] = []
    for _, code, _ in snippets:  # every hostile test is followed by a control that must pass
        tests += [code, CONTROL]
    before = _snapshot(outside)
    home_before = {p.name for p in Path.home().iterdir()}
    report = run_tests(CANDIDATE, tests, FAST)
    assert len(report.outcomes) == len(tests)
    print(f"isolation: {report.isolation} ({report.isolation_note}); runner restarts: {report.runner_restarts}")
    for k, (name, _, allowed) in enumerate(snippets):
        hostile, control = report.outcomes[2 * k], report.outcomes[2 * k + 1]
        assert hostile.status in allowed, f"{name}: {hostile.status} {hostile.message!r}"
        assert control.status == "passed", f"the control after {name!r}: {control.status} {control.message!r}"
        assert len(hostile.output) <= FAST.output_cap + 40
        assert "TOP-SECRET" not in hostile.output + hostile.message or report.isolation == "limits"
    assert _snapshot(outside) == before or report.isolation == "limits"
    assert {p.name for p in Path.home().iterdir()} == home_before
    assert not Path("/evil.txt").exists()
    if report.isolation == "bubblewrap":
        assert received == []  # nothing reached the host's loopback


def test_bubblewrap_is_active_where_installed(bubblewrap):
    # bwrap on the PATH but unusable fails here (conftest.py), with why; not installed skips
    # (fails under CI)
    assert bubblewrap.bwrap == shutil.which("bwrap") and "namespaces" in bubblewrap.note


@pytest.mark.usefixtures("bubblewrap")  # without namespaces a detached process can outlive the run (documented)
def test_detached_processes_do_not_outlive_the_run():
    report = run_tests(
        CANDIDATE,
        ["import subprocess\nsubprocess.Popen(['/bin/sh', '-c', 'exec -a qualm-detached-sleeper sleep 600'], start_new_session=True)\nassert True"],
        FAST,
    )
    assert report.isolation == "bubblewrap" and report.outcomes[0].status in {"passed", "error"}
    # the namespace's processes die with the run; one that outlived it would sleep for 600 s
    end = time.monotonic() + seconds(10)
    while _qualm_sleepers() and time.monotonic() < end:
        time.sleep(0.1)
    assert _qualm_sleepers() == []


def test_the_working_folder_is_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    report = run_tests(CANDIDATE, ["open('left-behind.txt', 'w').write('x')\nassert True"], FAST)
    assert report.outcomes[0].status == "passed"
    assert list(tmp_path.iterdir()) == []


def test_outcomes_carry_messages_and_output():
    report = run_tests(
        CANDIDATE,
        ["assert double(2) == 4", "assert double(2) == 5, 'two doubled'", "print('hi'); assert double('a') == 'aa'", "assert double(None) == 0"],
        FAST,
    )
    s = [(o.status, o.message) for o in report.outcomes]
    assert s[0] == ("passed", "")
    assert s[1] == ("failed", "AssertionError: two doubled")
    assert report.outcomes[2].status == "passed" and report.outcomes[2].output == "hi\n"
    assert s[3][0] == "error" and s[3][1].startswith("TypeError")


def test_a_candidate_that_does_not_load_fails_every_test():
    report = run_tests("def broken(:\n    pass\n", ["assert True", "assert 1"], FAST)
    assert [o.status for o in report.outcomes] == ["error", "error"]
    assert "SyntaxError" in report.outcomes[0].message


def test_should_stop_cancels_between_tests():
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 3

    # each test would pass after 30 s: a run that stops on should_stop passes none of them
    report = run_tests(CANDIDATE, ["import time\ntime.sleep(30)"] * 5, replace(FAST, timeout=seconds(60.0)), should_stop=stop)
    assert report.cancelled
    assert "passed" not in [o.status for o in report.outcomes]
    assert any(o.message == "cancelled before it ran" for o in report.outcomes)


def test_candidates_can_import_the_standard_library():
    # Tests run as an unprivileged user inside the sandbox: the Python installation must stay
    # readable for it wherever it lives (a pyenv Python under /root here).
    imports = "import math, collections, re, json, itertools, functools, heapq, fractions, decimal, statistics, datetime, random, string\n"
    report = run_tests(imports + "def root(x):\n    return math.sqrt(x)\n", ["assert root(9) == 3.0", "import bisect, typing\nassert bisect.bisect([1, 2], 1) == 1"], FAST)
    assert [(o.status, o.message) for o in report.outcomes] == [("passed", ""), ("passed", "")]
