"""The in-sandbox test runner: one process per candidate, one fork per test. Standard library only.

Started by :mod:`qualm_sandbox.client` (inside bubblewrap where available) as
``python -I runner.py``; reads one JSON job on stdin and writes one JSON line per test on stdout,
which is the result channel and nothing else: each test child's stdout and stderr go to a capped
file, so a test that prints fake results only fills its own captured output.

A test passes only when the harness code in its child, after running the candidate and the test,
writes the child's status with the per-test nonce and the child then exits 0. A test that exits
early (``sys.exit``, ``os._exit``), crashes, times out or kills its harness never writes it.

``python -I runner.py --exec JOB`` is :func:`qualm_sandbox.run_program`'s launcher instead: it
confines itself with the same limits and user a test child gets, then becomes the program.
"""

from __future__ import annotations

import builtins
import json
import os
import resource
import select
import signal
import sys
import time

MESSAGE_CAP = 2000


def main() -> None:
    if sys.argv[1:2] == ["--exec"]:
        exec_program(json.loads(sys.argv[2]))
    job = json.loads(sys.stdin.read())
    sys.stdin.close()
    # The code's own folders first, as `python its_file.py` would have them (the runner runs with
    # -I, so nothing else is added); no bytecode written into them, whatever the isolation.
    sys.path[:0] = [str(p) for p in job.get("sys_path", [])]
    sys.dont_write_bytecode = True
    _make_undumpable()
    out = sys.stdout
    for index, code in job["tests"]:
        result = run_one(index, code, job)
        out.write(json.dumps(result) + "\n")
        out.flush()


def _make_undumpable() -> None:
    # A non-dumpable runner's /proc/<pid>/fd cannot be opened by same-uid test children, so they
    # cannot reach the result channel. Best effort: ctypes is stdlib, prctl is Linux-only.
    try:
        import ctypes  # noqa: PLC0415 - only here, and only where it loads

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except Exception:  # noqa: BLE001 - best effort
        pass


def run_one(index: int, code: str, job: dict) -> dict:
    timeout = float(job["timeout"])
    nonce = os.urandom(16).hex()
    out_path = f"out-{index}.txt"
    status_r, status_w = os.pipe()
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the test child: never returns
        try:
            os.close(status_r)
            _child_setup(out_fd, job)
            _child_run(job["preamble"], code, status_w, nonce, job.get("package") or None)
        finally:
            os._exit(70)
    os.close(status_w)
    os.close(out_fd)
    wait_status = _wait(pid, timeout)
    timed_out = wait_status is None
    if timed_out:
        _kill_group(pid)
        wait_status = os.waitpid(pid, 0)[1]
    _kill_group(pid)  # stray grandchildren in the test's process group
    seconds = time.monotonic() - started
    status = _read_status(status_r, nonce)
    output = _read_output(out_path, int(job["output_cap"]))
    result = {"index": index, "seconds": round(seconds, 4), "output": output}
    if timed_out:
        return {**result, "status": "timeout", "message": f"timed out after {timeout:g} s"}
    exit_code = os.waitstatus_to_exitcode(wait_status)
    if status is not None and exit_code == 0:
        return {**result, "status": status["status"], "message": status.get("message", "")}
    if exit_code < 0:
        sig = -exit_code
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        reason = {
            "SIGXCPU": "used more than its CPU time",
            "SIGXFSZ": "wrote more than the file size limit",
            "SIGKILL": "was killed",
            "SIGSEGV": "crashed (segmentation fault)",
        }.get(name, "was killed by a signal")
        return {**result, "status": "error", "message": f"the test {reason} ({name})"}
    return {**result, "status": "error", "message": f"the test exited early with code {exit_code}"}


def _child_setup(out_fd: int, job: dict) -> None:
    os.setsid()  # its own process group: the runner kills the whole group
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.close(devnull)
    os.close(out_fd)
    _confine(job["limits"], int(float(job["timeout"])) + 1, job.get("drop_to_uid"))


def exec_program(job: dict) -> None:
    """Confine this process, then replace it with ``job["argv"]``: exec keeps the limits, the
    dropped user and the session, so the program and everything it starts stay inside them."""
    _confine(job["limits"], int(job["cpu_seconds"]), job.get("drop_to_uid"))
    argv = job["argv"]
    try:
        os.execvpe(argv[0], argv, {**os.environ, **job.get("env", {})})
    except OSError as exc:
        sys.stderr.write(f"qualm sandbox: cannot run {argv[0]!r}: {exc}\n")
        sys.stderr.flush()
        os._exit(127)


def _confine(limits: dict, cpu_seconds: int, drop_to_uid: int | None) -> None:
    _limit(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)
    _limit(resource.RLIMIT_AS, limits["memory_bytes"])
    _limit(resource.RLIMIT_FSIZE, limits["file_bytes"])
    _limit(resource.RLIMIT_NOFILE, limits["open_files"])
    _limit(resource.RLIMIT_NPROC, limits["processes"])
    _limit(resource.RLIMIT_CORE, 0)
    if drop_to_uid is not None and os.getuid() == 0:
        # Root ignores RLIMIT_NPROC and could signal the runner: tests run as an unprivileged user.
        os.setgroups([])
        os.setgid(drop_to_uid)
        os.setuid(drop_to_uid)


def _limit(which: int, soft: int, hard: int | None = None) -> None:
    try:
        resource.setrlimit(which, (soft, soft if hard is None else hard))
    except (ValueError, OSError):
        pass


def _child_run(preamble: str, code: str, status_fd: int, nonce: str, package: str | None = None) -> None:
    # Everything the harness needs after untrusted code has run is bound here, before it runs:
    # a test that rebinds builtins or patches modules cannot change how its result is reported.
    write, exit_, str_, type_, len_ = os.write, os._exit, str, type, len
    encode = str.encode
    flushes = [sys.stdout.flush, sys.stderr.flush]

    def report(status: str, message: str = "") -> None:
        for flush in flushes:  # what the test printed belongs in its captured output
            try:
                flush()
            except BaseException:  # noqa: BLE001 - the test may have broken its streams
                pass
        try:
            message = message if type_(message) is str_ else "<unprintable>"
            if len_(message) > MESSAGE_CAP:
                message = message[:MESSAGE_CAP] + "…"
            payload = '\n{"nonce": "%s", "status": "%s", "message": %s}\n' % (nonce, status, _json_string(message))  # noqa: UP031 - braces of JSON
            write(status_fd, encode(payload, "utf-8", "replace"))
        finally:
            exit_(0)

    def describe(exc: BaseException) -> str:
        try:
            text = str_(exc)
        except BaseException:  # noqa: BLE001 - untrusted __str__
            text = "<exception that cannot be printed>"
        name = getattr(type_(exc), "__name__", "Exception")
        return f"{name}: {text}" if text else name

    namespace = {"__name__": "__qualm_test__", "__builtins__": dict(builtins.__dict__)}
    if package:  # the package the code's file is in: its relative imports (`from .util import f`) resolve there
        namespace["__package__"] = package
    try:
        exec(compile(preamble, "<candidate>", "exec"), namespace)
    except SystemExit:
        report("error", "the candidate called sys.exit() while loading")
    except BaseException as exc:  # noqa: BLE001 - any failure of untrusted code is a result
        report("error", "the candidate failed to load: " + describe(exc) + _imported_from(exc))
    try:
        exec(compile(code, "<test>", "exec"), namespace)
    except AssertionError as exc:
        report("failed", describe(exc) if exc.args else "AssertionError")
    except SystemExit:
        report("error", "the test called sys.exit()")
    except BaseException as exc:  # noqa: BLE001 - whatever a model-written test raises is its verdict
        report("error", describe(exc))
    report("passed")


def _imported_from(exc: BaseException) -> str:
    """Where loading the candidate raised, when that was in a module it imports (the project's
    `helpers.py` reading a file at import): " (while importing FILE, line N)"; "" when it was in the
    candidate's own text, or in the import machinery (a module not found)."""
    try:
        tb = exc.__traceback__
        tb = tb.tb_next if tb is not None else None  # past the runner's own frame, which ran exec
        while tb is not None:
            code = tb.tb_frame.f_code
            name = code.co_filename
            if isinstance(name, str) and name != "<candidate>" and not name.startswith("<frozen"):
                # the first frame past the candidate: a module's body is being imported, or a
                # function the candidate called at load is running (its own doing)
                return f" (while importing {name}, line {tb.tb_lineno})" if code.co_name == "<module>" else ""
            tb = tb.tb_next
    except BaseException:  # noqa: BLE001 - an exception may be anything
        pass
    return ""


def _json_string(text: str) -> str:
    # json.dumps would use the json module, which the test may have patched.
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _wait(pid: int, timeout: float) -> int | None:
    """The child's wait status if it exited within the timeout, else None (still running)."""
    deadline = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # before Linux 5.3: poll
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            time.sleep(0.002)
        return None
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    return os.waitpid(pid, 0)[1] if ready else None


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_status(fd: int, nonce: str) -> dict | None:
    """The harness's status line, found by its nonce among whatever else reached the pipe."""
    # The child wrote its status before exiting; a grandchild that kept the pipe open must not
    # make the runner wait, so read only what is there.
    os.set_blocking(fd, False)
    chunks = []
    try:
        while sum(map(len, chunks)) < 1 << 20:
            try:
                block = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not block:
                break
            chunks.append(block)
    finally:
        os.close(fd)
    for line in reversed(b"".join(chunks).decode("utf-8", "replace").splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("nonce") == nonce:
            return data
    return None


def _read_output(path: str, cap: int) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read(cap + 1)
        os.unlink(path)
    except OSError:
        return ""
    text = data[:cap].decode("utf-8", "replace")
    return text + ("\n[output truncated]" if len(data) > cap else "")


if __name__ == "__main__":
    main()
