"""How the runner is isolated: bubblewrap namespaces where available, resource limits always.

bubblewrap (Debian package ``bubblewrap``) gives the runner its own PID, network, IPC and UTS
namespaces, an empty /tmp, a read-only view of the Python installation that runs the tests (its
virtual environment and import folders), of the system libraries and of the code's own folders
(what its imports resolve against), nothing else of the file system, and one writable folder (the
per-run working folder, mounted at /qualm-sandbox/work). As root, bubblewrap runs without a user namespace and the runner drops each test to the
``nobody`` user: root ignores RLIMIT_NPROC (so a fork bomb would be unbounded) and could signal
the runner. As a normal user, bubblewrap adds a user namespace, in which the process limit counts
only the sandbox's processes.

Without bubblewrap, qualm falls back to limits alone and says so: resource limits, a scrubbed
environment, a temporary working folder and HOME; no network or file-system isolation.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

_INSIDE = "/qualm-sandbox"  # where the runner and the working folder appear inside the sandbox
_SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin")
_BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


class SandboxUnavailable(RuntimeError):
    """The requested isolation mode cannot run on this machine."""


# What a full disk or an exhausted quota raises where the sandbox makes its folders.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder for one run, removed after it. Where none can be made (every temporary
    folder full, or none writable), SandboxUnavailable says so: a run that cannot start says
    nothing about the code it would have tested."""
    try:
        root = Path(tempfile.mkdtemp(prefix=prefix))
    except OSError as exc:
        raise SandboxUnavailable(f"no temporary folder for the sandbox ({exc.strerror or exc}): is the disk full? TMPDIR names where it goes") from exc
    try:
        yield root
    except OSError as exc:
        if exc.errno in NO_SPACE:
            raise SandboxUnavailable(f"no space left for the sandbox's files in {root.parent}: {exc.strerror}") from exc
        raise
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class Isolation:
    name: str  # "bubblewrap" | "limits"
    note: str
    drop_privileges: bool
    bwrap: str | None = None
    user_namespace: bool = False

    def command(self, python: str, runner: Path, work: Path, import_paths: Sequence[str] = ()) -> tuple[list[str], str, dict[str, str]]:
        """The command line, working folder and environment that start the runner under ``python``;
        ``import_paths`` (the code's own folders, which its imports resolve against) are mounted
        read-only where they are."""
        found = interpreter(python)  # cached: asked once per interpreter
        python = found.path
        if self.bwrap is None:
            env = {**_BASE_ENV, "HOME": str(work / "home"), "TMPDIR": str(work)}
            return [python, "-I", str(runner)], str(work), env
        cmd = [self.bwrap, "--die-with-parent", "--new-session"]
        cmd += ["--unshare-all"] if self.user_namespace else ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        for d in _SYSTEM_DIRS:
            cmd += ["--ro-bind-try", d, d]
        # An empty /tmp first: a Python installed under /tmp (a clone's venv) is mounted on top of it.
        cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        mounts = _outermost([*found.dirs, *import_paths])
        # Parents that bubblewrap would create for the mounts (say /root for a pyenv Python)
        # must be traversable by the unprivileged test user, or imports fail inside.
        parents = sorted({str(p) for d in mounts for p in Path(d).parents if str(p) not in ("/", "/tmp") and not str(p).startswith(_SYSTEM_DIRS)})
        for parent in parents:
            cmd += ["--perms", "0755", "--dir", parent]
        for d in mounts:
            cmd += ["--ro-bind", d, d]
        # bubblewrap would make this folder root-only; a program dropped to nobody that names its
        # working folder by absolute path (Python's importer does) must be able to traverse it.
        cmd += ["--perms", "0755", "--dir", _INSIDE]
        cmd += ["--ro-bind", str(runner), f"{_INSIDE}/runner.py"]
        cmd += ["--bind", str(work), f"{_INSIDE}/work"]
        cmd += ["--clearenv", "--chdir", f"{_INSIDE}/work"]
        for k, v in {**_BASE_ENV, "HOME": f"{_INSIDE}/work/home", "TMPDIR": "/tmp"}.items():
            cmd += ["--setenv", k, v]
        cmd += [python, "-I", f"{_INSIDE}/runner.py"]
        return cmd, str(work), {"PATH": _BASE_ENV["PATH"]}


MIN_PYTHON = (3, 9)  # the runner's own needs (os.waitstatus_to_exitcode)

# Asked of the interpreter that will run the tests: its version and every folder it imports from
# (installation, virtual environment, site-packages, and folders .pth files add, such as an
# editable install's source), all of which the sandbox mounts read-only.
_FACTS = (
    "import json, sys; print(json.dumps({'version': list(sys.version_info[:2]), "
    "'dirs': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path]}))"
)


@dataclass(frozen=True)
class Interpreter:
    """The Python that runs the tests: qualm's own, or the project's (``SandboxConfig.python``)."""

    path: str  # absolute, as found on PATH or from the working folder (symlinks kept: a venv's python is one)
    version: tuple[int, int]
    dirs: tuple[str, ...]  # outside the system folders, which are mounted anyway


@functools.lru_cache(maxsize=8)
def interpreter(python: str) -> Interpreter:
    """What the sandbox needs to know of ``python``; :class:`SandboxUnavailable` when it cannot run
    the tests (not found, does not start, older than 3.9)."""
    # The sandbox starts it from another working folder and PATH: a name or a relative path is
    # made absolute here.
    located = os.path.abspath(python) if os.sep in python else shutil.which(python)
    if located is None:
        raise SandboxUnavailable(f"the Python that runs the tests ({python}) is not on the PATH")
    try:
        proc = subprocess.run([located, "-I", "-c", _FACTS], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        facts = json.loads(proc.stdout.decode("utf-8", "replace").strip().splitlines()[-1]) if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        raise SandboxUnavailable(f"the Python that runs the tests ({python}) cannot be started: {exc}") from exc
    if facts is None:
        last = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise SandboxUnavailable(f"the Python that runs the tests ({python}) cannot be started: {last}")
    version = (int(facts["version"][0]), int(facts["version"][1]))
    if version < MIN_PYTHON:
        raise SandboxUnavailable(f"the Python that runs the tests ({python}) is {version[0]}.{version[1]}; the sandbox needs 3.9 or newer")
    exe = Path(located)
    found = [*facts["dirs"], str(exe.resolve().parent.parent)]
    hop = exe
    for _ in range(40):  # every link on the way to the binary must resolve inside too
        found.append(str(hop.parent))
        if not hop.is_symlink():
            break
        hop = hop.parent / os.readlink(hop)
    dirs = [d for d in found if isinstance(d, str) and d.startswith("/") and Path(d).exists() and not d.startswith(_SYSTEM_DIRS)]
    return Interpreter(located, version, tuple(_outermost(dirs)))


def _outermost(paths: Sequence[str]) -> list[str]:
    """The paths without those inside another one on the list (and without "/"), sorted."""
    keep = sorted({p.rstrip("/") for p in paths if p.rstrip("/")})
    return [d for d in keep if not any(d != o and d.startswith(o + "/") for o in keep)]


@functools.lru_cache(maxsize=4)
def choose_isolation(mode: str = "auto") -> Isolation:
    if mode not in ("auto", "bubblewrap", "limits"):
        raise SandboxUnavailable(f"unknown sandbox mode '{mode}' (auto, bubblewrap or limits)")
    root = os.geteuid() == 0
    unusable = ""  # why an installed bubblewrap was not used, said in what follows
    if mode in ("auto", "bubblewrap"):
        bwrap = shutil.which("bwrap")
        problem = "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
        if bwrap:
            candidate = Isolation(
                name="bubblewrap",
                note=(
                    "bubblewrap: own PID, network, IPC and UTS namespaces; read-only system and Python; "
                    "only the working folder writable (mounted at /qualm-sandbox/work); tests run as nobody"
                    if root
                    else "bubblewrap: own user, PID, network, IPC and UTS namespaces; read-only system and Python; "
                    "only the working folder writable"
                ),
                drop_privileges=root,
                bwrap=bwrap,
                user_namespace=not root,
            )
            problem = _probe(candidate)
            if problem is None:
                return candidate
            unusable = f"bubblewrap ({bwrap}) is installed but cannot run here: {problem}"
        if mode == "bubblewrap":
            raise SandboxUnavailable(f"bubblewrap cannot run here: {problem}")
    if root:
        # Without namespaces, model-written code running as root could kill every process on the
        # machine (kill(-1)), fork without bound (root ignores RLIMIT_NPROC) and write anywhere.
        raise SandboxUnavailable(
            f"refusing to run model-written tests as root without a working bubblewrap ({unusable}), or run qualm as a normal user"
            if unusable
            else "refusing to run model-written tests as root without bubblewrap (install it: apt-get install bubblewrap), or run qualm as a normal user"
        )
    note = (
        "limits only (no namespaces): resource limits, scrubbed environment, temporary HOME and working folder; "
        "network and files are not isolated, and a test could signal your other processes"
    )
    if unusable:
        note += f" ({unusable})"
    return Isolation(name="limits", note=note, drop_privileges=False)


def _probe(isolation: Isolation) -> str | None:
    """Start the sandbox once with a trivial command; None when it works."""
    with scratch_folder("qualm-probe-") as tmp:  # no folder: SandboxUnavailable, not a verdict on the mode
        cmd, cwd, env = isolation.command(sys.executable, Path(__file__), tmp)
        cmd = cmd[:-2] + ["-c", "pass"]  # the interpreter, not the runner
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(exc)
        if proc.returncode != 0:
            return (proc.stderr.decode(errors="replace").strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
    return None
