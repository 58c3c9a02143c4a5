"""The fitting tests under each OpenBLAS kernel this CPU can run, so that a fit that depends on the
machine's BLAS fails here and not on a user's machine (the chance's L-BFGS-B fit once ended
"ABNORMAL" under the Haswell and Zen kernels and converged under Prescott).

Each kernel runs the fitting tests in a subprocess with ``OPENBLAS_CORETYPE`` set, after checking
through threadpoolctl that both of numpy's and SciPy's OpenBLAS really run that kernel (OpenBLAS
reports some kernels by the name of the family they share: Prescott as Katmai, Zen as Haswell).
Real fits, no model: about 10 s a kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from timing import seconds

ROOT = Path(__file__).resolve().parents[2]
FITTING_TESTS = ["tests/unit/test_fit_inputs.py", "tests/unit/test_doubt_logistic.py", "tests/unit/test_chance.py"]
# OPENBLAS_CORETYPE -> the names OpenBLAS may report for it, and the CPU flag it needs.
KERNELS = {
    "Prescott": ({"Prescott", "Katmai"}, "pni"),  # /proc/cpuinfo names SSE3 "pni"
    "Sandybridge": ({"Sandybridge"}, "avx"),
    "Haswell": ({"Haswell"}, "avx2"),
    "Zen": ({"Zen", "Haswell"}, "avx2"),
    "SkylakeX": ({"SkylakeX"}, "avx512f"),
}
REPORT = "import numpy, scipy.linalg, json; from threadpoolctl import threadpool_info; print(json.dumps([i.get('architecture') for i in threadpool_info() if i['internal_api'] == 'openblas']))"


def cpu_flags() -> set[str]:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def test_every_fitting_test_file_exists():
    assert all((ROOT / path).is_file() for path in FITTING_TESTS)


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_the_fits_pass_under_the_kernel(kernel):
    names, flag = KERNELS[kernel]
    if flag not in cpu_flags():
        pytest.skip(f"this CPU lacks the {flag} flag, which OpenBLAS's {kernel} kernel needs")
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
    reported = json.loads(subprocess.run([sys.executable, "-c", REPORT], env=env, capture_output=True, text=True, check=True, timeout=seconds(60)).stdout)
    assert len(reported) >= 2 and set(reported) <= names, f"OPENBLAS_CORETYPE={kernel} ran {reported}"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *FITTING_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=seconds(300),
    )
    assert run.returncode == 0, f"under OPENBLAS_CORETYPE={kernel}:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
