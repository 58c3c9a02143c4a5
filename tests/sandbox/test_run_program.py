"""qualm_sandbox.run_program: one untrusted program under the sandbox's isolation and limits (what
Symbolic Clustering runs CrossHair with). Real subprocesses, inside bubblewrap where it is installed;
the bubblewrap-only checks are skipped without it."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
from timing import seconds

from qualm_sandbox import NOBODY, SandboxConfig, run_program

# Where the sandbox is missing or broken, conftest.py fails or skips every test here.

FAST = SandboxConfig(timeout=seconds(5.0), memory_mb=512)


def python(code: str, work: Path, config: SandboxConfig = FAST, **kw):
    return run_program([sys.executable, "-c", code], work, config, **kw)


def test_output_and_exit_code_are_captured(tmp_path: Path, isolation):
    result = python("import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)\nsys.exit(3)", tmp_path)
    assert (result.returncode, result.stdout, result.stderr, result.timed_out) == (3, "to stdout\n", "to stderr\n", False)
    assert result.isolation == isolation.name and 0 < result.seconds


def test_only_the_end_of_a_long_output_is_kept(tmp_path: Path):
    result = python("print('x' * 100000 + 'END')", tmp_path, SandboxConfig(timeout=seconds(5.0), output_cap=100))
    assert result.returncode == 0 and len(result.stdout) == 100 and result.stdout.endswith("END\n")


def test_the_time_limit_kills_the_program(tmp_path: Path):
    result = python("import time\ntime.sleep(60)", tmp_path, SandboxConfig(timeout=seconds(1.0)))
    assert result.timed_out and result.returncode is None
    assert result.seconds < seconds(5)  # killed at its limit of 1 s, not after the program's 60


def test_the_memory_limit_is_enforced(tmp_path: Path):
    result = python("x = bytearray(4 * 1024**3)\nprint('allocated')", tmp_path, SandboxConfig(timeout=seconds(5.0), memory_mb=256))
    assert result.returncode != 0 and "MemoryError" in result.stderr and "allocated" not in result.stdout


def test_the_working_folder_is_writable_and_the_environment_scrubbed(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("QUALM_TEST_SECRET", "do-not-leak")
    code = "import os\nopen('made.txt', 'w').write('inside')\nprint(os.environ.get('QUALM_TEST_SECRET'), os.environ.get('GIVEN'))"
    result = python(code, tmp_path, env={"GIVEN": "yes"})
    assert result.returncode == 0 and result.stdout == "None yes\n"
    assert (tmp_path / "made.txt").read_text() == "inside"


def test_a_missing_program_is_an_exit_code_not_an_exception(tmp_path: Path):
    result = run_program(["qualm-no-such-program"], tmp_path, FAST)
    assert result.returncode == 127 and "cannot run" in result.stderr


@pytest.mark.usefixtures("bubblewrap")
def test_the_network_is_blocked(tmp_path: Path):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(0.5)
    port = srv.getsockname()[1]
    try:
        code = (
            "import socket\nprint(sorted(name for _, name in socket.if_nameindex()))\n"
            f"socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'leaked')\nprint('connected')"
        )
        result = python(code, tmp_path)
        with pytest.raises(OSError):  # socket.timeout: nothing reached the host's loopback
            srv.accept()
    finally:
        srv.close()
    assert result.stdout.startswith("['lo']") and "connected" not in result.stdout
    assert result.returncode != 0


@pytest.mark.usefixtures("bubblewrap")
def test_files_outside_the_working_folder_are_out_of_reach(tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    work = tmp_path / "work"
    work.mkdir()
    result = python(f"print(open({str(outside)!r}).read())", work)
    assert result.returncode != 0 and "secret" not in result.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="qualm drops privileges only when it runs as root")
def test_as_root_the_program_runs_as_nobody(tmp_path: Path):
    result = python("import os\nprint(os.getuid(), os.getgid())", tmp_path)
    assert result.stdout == f"{NOBODY} {NOBODY}\n"
