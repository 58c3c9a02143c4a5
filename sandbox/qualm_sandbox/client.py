"""Run untrusted test code against a candidate in an isolated process. Standard library only.

``run_tests(preamble, tests, config)`` starts one runner process per candidate (inside
bubblewrap when it is installed and works), sends it the job on stdin and reads one JSON line per
test. If a test kills the runner, that test is reported as an error and a fresh runner takes the
remaining tests, so one test can never erase the others' results. The temporary working folder
is removed afterwards, whatever happened.

``run_program(argv, cwd, config)`` runs one whole program (a checker such as CrossHair) under the
same isolation, limits and user, with its output captured and its process group killed at the
time limit.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .isolation import Isolation, choose_isolation, interpreter, scratch_folder

Status = Literal["passed", "failed", "error", "timeout"]
RUNNER = Path(__file__).with_name("runner.py")
NOBODY = 65534  # the unprivileged user a root-run sandbox drops to


@dataclass(frozen=True)
class SandboxConfig:
    timeout: float = 4.0  # per test, wall clock (the paper's 4 s)
    memory_mb: int = 1024  # address space per test process
    max_processes: int = 32
    max_file_mb: int = 16  # largest file a test may write (also caps its captured output file)
    max_open_files: int = 64
    output_cap: int = 4096  # characters of each test's stdout+stderr kept for display
    mode: str = "auto"  # "auto" | "bubblewrap" | "limits"
    # The Python that runs the tests: "" for the one running qualm; a project's own interpreter
    # finds the packages the code imports (its virtual environment is mounted read-only).
    python: str = ""
    # Where the code lives: folders put first on the tests' sys.path (mounted read-only), and the
    # package its file is in (relative imports resolve there). Empty for code with no file.
    import_paths: tuple[str, ...] = ()
    package: str = ""

    @property
    def interpreter(self) -> str:
        return self.python or sys.executable


@dataclass(frozen=True)
class TestOutcome:
    index: int
    code: str
    status: Status
    message: str = ""
    output: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass(frozen=True)
class SandboxReport:
    outcomes: list[TestOutcome]
    isolation: str  # "bubblewrap" or "limits"
    isolation_note: str  # what is and is not enforced, in words
    seconds: float
    runner_restarts: int = 0
    cancelled: bool = False
    details: dict = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)


def run_tests(
    preamble: str,
    tests: list[str],
    config: SandboxConfig | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SandboxReport:
    """Run each test against the preamble (the candidate's imports and source).

    ``should_stop`` is polled between results; when it answers True the runner is killed and the
    tests not yet run are reported as errors ("cancelled"), with ``cancelled`` set on the report.
    Raises :class:`SandboxUnavailable` when the isolation mode or the interpreter
    (``config.python``) cannot run here.
    """
    config = config or SandboxConfig()
    should_stop = should_stop or (lambda: False)
    cancelled = False
    isolation = choose_isolation(config.mode)
    interpreter(config.interpreter)  # SandboxUnavailable, with the reason, before any test runs
    started = time.monotonic()
    outcomes: dict[int, TestOutcome] = {}
    restarts = 0
    with scratch_folder("qualm-sandbox-") as root:
        pending = list(range(len(tests)))
        while pending:
            got, culprit = _one_runner(root, isolation, preamble, tests, pending, config, should_stop)
            outcomes.update(got)
            if should_stop():
                cancelled = True
                for i in pending:
                    if i not in outcomes:
                        outcomes[i] = TestOutcome(i, tests[i], "error", "cancelled before it ran")
                break
            pending = [i for i in pending if i not in outcomes]
            if culprit is not None and culprit in pending:
                outcomes[culprit] = TestOutcome(culprit, tests[culprit], "error", "the test killed or hung the test runner")
                pending.remove(culprit)
            if pending:
                restarts += 1
    return SandboxReport(
        outcomes=[outcomes[i] for i in range(len(tests))],
        isolation=isolation.name,
        isolation_note=isolation.note,
        seconds=time.monotonic() - started,
        runner_restarts=restarts,
        cancelled=cancelled,
    )


def _one_runner(
    root: Path,
    isolation: Isolation,
    preamble: str,
    tests: list[str],
    indices: list[int],
    config: SandboxConfig,
    should_stop: Callable[[], bool],
) -> tuple[dict[int, TestOutcome], int | None]:
    """Run the given tests in one runner; returns the outcomes it reported and, if it died or
    hung early, the index of the test that was running."""
    work = root / f"work-{indices[0]}"
    (work / "home").mkdir(parents=True)
    os.chmod(work, 0o777)  # the tests may run as an unprivileged user
    os.chmod(work / "home", 0o777)
    job = {
        "preamble": preamble,
        "tests": [[i, tests[i]] for i in indices],
        "timeout": config.timeout,
        "output_cap": config.output_cap,
        "limits": _limits(config),
        "drop_to_uid": NOBODY if isolation.drop_privileges else None,
        "sys_path": list(config.import_paths),
        "package": config.package,
    }
    cmd, cwd, env = isolation.command(config.interpreter, RUNNER, work, config.import_paths)
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    results: dict[int, TestOutcome] = {}
    # Every test has its own timeout inside the runner; this bound only catches a stuck runner.
    deadline = time.monotonic() + len(indices) * (config.timeout + 2.0) + 10.0
    try:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(job).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buffer = b""
        while len(results) < len(indices):
            left = deadline - time.monotonic()
            if left <= 0 or should_stop():
                break
            if not sel.select(timeout=min(left, 0.05)):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                outcome = _parse(line, tests, indices)
                if outcome is not None:
                    results[outcome.index] = outcome
        sel.close()
    finally:
        kill_process_group(proc)
    running = next((i for i in indices if i not in results), None)
    return results, running


def _limits(config: SandboxConfig) -> dict[str, int]:
    """The resource limits the runner applies to each confined process."""
    return {
        "memory_bytes": config.memory_mb * 2**20,
        "file_bytes": config.max_file_mb * 2**20,
        "open_files": config.max_open_files,
        "processes": config.max_processes,
    }


def _parse(line: bytes, tests: list[str], indices: list[int]) -> TestOutcome | None:
    try:
        data = json.loads(line)
        index = int(data["index"])
        status = data["status"]
    except (ValueError, KeyError, TypeError):
        return None
    if index not in indices or status not in ("passed", "failed", "error", "timeout"):
        return None
    return TestOutcome(index, tests[index], status, str(data.get("message", "")), str(data.get("output", "")), float(data.get("seconds", 0.0)))


def kill_process_group(proc: subprocess.Popen) -> None:
    """Kill a sandboxed process that leads its own session, with everything it started; reap it
    and close the pipes it had."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    for stream in (proc.stdout, proc.stdin):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


@dataclass(frozen=True)
class ProgramResult:
    returncode: int | None  # None: killed at the time limit
    stdout: str  # the last ``output_cap`` characters of each stream (verdicts and errors come last)
    stderr: str
    timed_out: bool
    seconds: float
    isolation: str  # "bubblewrap" or "limits"


def run_program(
    argv: Sequence[str],
    cwd: Path,
    config: SandboxConfig | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> ProgramResult:
    """Run ``argv`` in the sandbox with ``cwd`` as its working folder, the only one it can write.

    The program gets what a test gets: the isolation of ``config.mode``, the scrubbed environment
    (plus ``env``), a HOME folder made inside ``cwd``, ``config``'s memory, process, open-file and
    file-size limits, ``config.timeout`` seconds of CPU (plus one) and of wall clock for the whole
    run, after which its whole process group is killed, and, when qualm runs as root, the
    ``nobody`` user. Under bubblewrap ``cwd`` appears as /qualm-sandbox/work, so paths inside the
    program are relative to its working folder. stdin is empty; stdout and stderr go to files
    outside ``cwd``, capped by the file-size limit. Raises :class:`SandboxUnavailable` when the
    mode cannot run here.
    """
    config = config or SandboxConfig()
    isolation = choose_isolation(config.mode)
    work = Path(cwd)
    (work / "home").mkdir(parents=True, exist_ok=True)
    os.chmod(work, 0o777)  # the program may run as an unprivileged user
    os.chmod(work / "home", 0o777)
    job = {
        "argv": list(argv),
        "env": dict(env or {}),
        "limits": _limits(config),
        "cpu_seconds": int(max(config.timeout, 1.0)) + 1,
        "drop_to_uid": NOBODY if isolation.drop_privileges else None,
    }
    cmd, run_cwd, run_env = isolation.command(sys.executable, RUNNER, work)
    with scratch_folder("qualm-program-") as tmp:
        out_path, err_path = tmp / "stdout", tmp / "stderr"
        started = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                cmd + ["--exec", json.dumps(job)], cwd=run_cwd, env=run_env, stdin=subprocess.DEVNULL,
                stdout=out, stderr=err, start_new_session=True,
            )
            try:
                code: int | None = proc.wait(timeout=max(config.timeout, 0.1))
            except subprocess.TimeoutExpired:
                code = None
            finally:
                kill_process_group(proc)
        seconds = time.monotonic() - started
        return ProgramResult(
            returncode=code,
            stdout=_tail(out_path, config.output_cap),
            stderr=_tail(err_path, config.output_cap),
            timed_out=code is None,
            seconds=seconds,
            isolation=isolation.name,
        )


def _tail(path: Path, chars: int) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 4 * chars))  # UTF-8: at most 4 bytes a character
        return f.read().decode("utf-8", "replace")[-chars:]
