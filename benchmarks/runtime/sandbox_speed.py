"""Benchmark: 10 tests against a trivial function in qualm's sandbox (one interpreter per candidate,
a fork per test) against a naive runner that starts a fresh interpreter per test.

    .venv/bin/python -m benchmarks.runtime.sandbox_speed [--reps 10]

Target: the 10 tests in at most 0.15 s wall. Both runners get the same isolation (bubblewrap when
installed) so the difference is the process model alone.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from qualm_sandbox import choose_isolation, run_tests
from qualm_sandbox.client import RUNNER

PREAMBLE = "def add(a, b):\n    return a + b\n"
TESTS = [f"assert add({i}, {i}) == {2 * i}" for i in range(10)]


def naive(isolation) -> float:
    """A fresh sandboxed interpreter for every test (the simple design qualm avoids)."""
    t0 = time.perf_counter()
    for test in TESTS:
        with tempfile.TemporaryDirectory() as tmp:
            cmd, cwd, env = isolation.command(sys.executable, RUNNER, Path(tmp))
            cmd = cmd[:-2] + ["-c", PREAMBLE + test]
            subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=10, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    iso = choose_isolation("auto")
    print(f"isolation: {iso.name} ({iso.note})")
    ours, theirs = [], []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        report = run_tests(PREAMBLE, TESTS)
        ours.append(time.perf_counter() - t0)
        assert report.passed == 10, report
        theirs.append(naive(iso))
    print(f"10 tests, qualm's runner (one interpreter, a fork per test): median {statistics.median(ours) * 1000:.0f} ms, best {min(ours) * 1000:.0f} ms")
    print(f"10 tests, naive (an interpreter per test):                  median {statistics.median(theirs) * 1000:.0f} ms, best {min(theirs) * 1000:.0f} ms")
    print(f"speed-up {statistics.median(theirs) / statistics.median(ours):.1f}x; target <= 150 ms: {'met' if statistics.median(ours) <= 0.15 else 'NOT met'}")


if __name__ == "__main__":
    main()
