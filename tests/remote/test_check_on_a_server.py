"""`qualm check --backend openai --endpoint URL` against real servers on the default model:
llama-cpp-python's server scores code in the file, so the score-only gate runs on it and finds what
the in-process model finds; llama.cpp's llama-server cannot (no prompt log-probabilities), so the
score-only gate refuses in one line with exit code 2 instead of passing anything."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from remote_servers import llama_cpp_python_server, llama_server
from timing import seconds

pytestmark = pytest.mark.model

CODE = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b


def is_even(n: int) -> bool:
    """Return True when n is even."""
    return n % 2 == 1
'''


def check(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qualm", "check", *args], cwd=cwd, capture_output=True, text=True, timeout=seconds(300))


def test_the_score_only_gate_runs_on_a_server_that_scores_code_and_agrees_with_the_local_model(tmp_path):
    (tmp_path / "code.py").write_text(CODE)
    local = check("code.py", "--max-score", "100", "--json", "-", cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    with llama_cpp_python_server(logits_all=True) as url:
        served = check("code.py", "--backend", "openai", "--endpoint", url, "--max-score", "100", "--json", "-", cwd=tmp_path)
    assert served.returncode == 0, served.stderr
    here = {f["function"]: f["scores"]["max_surprisal"] for f in json.loads(local.stdout)["functions"]}
    there = {f["function"]: f["scores"]["max_surprisal"] for f in json.loads(served.stdout)["functions"]}
    assert there["is_even"] > there["add"] + 2  # the wrong body stands out on the server too
    assert there == pytest.approx(here, abs=0.5), (here, there)


def test_the_score_only_gate_refuses_a_server_that_cannot_score_code(tmp_path):
    (tmp_path / "code.py").write_text(CODE)
    with llama_server() as url:
        proc = check("code.py", "--backend", "openai", "--endpoint", url, "--sarif", "out.sarif", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot score code in the file" in proc.stderr and "log-probabilities of the prompt" in proc.stderr and "--assess" in proc.stderr
    assert not (tmp_path / "out.sarif").exists()  # no report that could read as a pass
