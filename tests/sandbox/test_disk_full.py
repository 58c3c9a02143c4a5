"""The disk full where the sandbox makes its folders: TMPDIR a full size-limited tmpfs, and every
other temporary folder Python would fall back to (/tmp, /var/tmp, the working folder) unwritable, in
a private mount namespace (the tests run as root, as the readonly-cache test does). A run that cannot start must say so,
SandboxUnavailable with the reason, and never report the code's tests as failed; the docstring's
examples then count as unavailable, not as failed. The real sandbox and real mounts; nothing mocked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = r"""
import json
from qualm_sandbox import SandboxConfig, SandboxUnavailable, run_tests
from qualm.signals.examples import check_examples
out = {}
try:
    report = run_tests("def f(x):\n    return x + 1\n", ["assert f(1) == 2"], SandboxConfig(timeout=5))
    out["tests"] = [o.status for o in report.outcomes]
except SandboxUnavailable as exc:
    out["unavailable"] = str(exc)
ex = check_examples("def f(x):\n    return x + 1\n", ">>> f(1)\n2", "f", SandboxConfig(timeout=5))
out["examples_failed"], out["examples_note"] = ex.failed, ex.note
print(json.dumps(out))
"""

# TMPDIR is a full size-limited tmpfs; the system's temporary folders, where Python's tempfile falls
# back, are made read-only (bind mounts: what is under them, such as a checkout's virtual
# environment in /tmp, stays readable); the working folder is /proc.
FILL = """set -e
full=$(mktemp -d)
mount -t tmpfs -o size=16k,nr_inodes=4 qualm-full "$full"
for i in 1 2 3 4 5 6; do touch "$full/f$i" 2>/dev/null || true; done
for d in /tmp /var/tmp; do mount --bind "$d" "$d" && mount -o remount,ro,bind "$d"; done
export TMPDIR="$full"
cd /proc
exec "$@"
"""


@pytest.fixture
def full_disk():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("private mounts need root and unshare (the CI machine runs the tests as root)")
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", FILL, "sh"]


def test_a_full_disk_makes_the_sandbox_unavailable_not_the_tests_failed(full_disk):
    proc = subprocess.run([*full_disk, sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "tests" not in out, out  # no verdict on the code from a run that could not start
    assert "no temporary folder for the sandbox" in out["unavailable"] and "disk full" in out["unavailable"]
    assert out["examples_failed"] is None and out["examples_note"].startswith("unavailable: no temporary folder"), out
