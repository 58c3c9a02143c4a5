"""qualm as a user installs it (issue 57): a wheel and an sdist made with PyPA's build, the wheel
installed by the engine setup's own steps (scripts/engine_setup.py, as the extension runs them) into a
clean virtual environment outside the clone, then qualm's main jobs run from there with the real model:
`qualm model fetch`, `qualm generate` and `qualm serve` answering an LSP initialize and the handshake.

The llama-cpp-python wheel comes from qualm's cache (scripts/setup compiled it, with the same flags and
key), so this test does not compile llama.cpp again; PyPI (or the pip cache) provides the other
dependencies, at the versions of constraints.txt."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from lsp_session import Session
from timing import seconds

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)  # (no tomllib on 3.10)
pytestmark = pytest.mark.model


def clean_env() -> dict[str, str]:
    """No PYTHONPATH or virtual environment of the tests: only what the new environment installs."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    # an sdist, then the wheel built from it (not from the working tree's build/ folder); no isolation:
    # the tests' environment has the build backend (setuptools) at its locked version
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels, sdists = list(out.glob("qualm-*.whl")), list(out.glob("qualm-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_the_wheel_is_named_by_the_one_version_and_carries_what_runs(dist: dict[str, Path]) -> None:
    assert dist["wheel"].name == f"qualm-{VERSION}-py3-none-any.whl"
    assert dist["sdist"].name == f"qualm-{VERSION}.tar.gz"
    names = zipfile.ZipFile(dist["wheel"]).namelist()
    # the calibrations the assessment places a score against, the sandbox, the language server
    assert any(n.startswith("qualm/calibration/") and n.endswith(".json") for n in names)
    assert "qualm_sandbox/__init__.py" in names
    assert "qualm/lsp/server.py" in names
    assert not [n for n in names if n.startswith(("tests/", "results/", "benchmarks/"))]


@pytest.fixture(scope="module")
def engine(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment outside the clone, set up by the engine setup's steps in order."""
    home = tmp_path_factory.mktemp("user")
    env_dir = home / "engine"
    script = ROOT / "scripts" / "engine_setup.py"
    python = env_dir / "bin" / "python"
    steps = [
        [sys.executable, script, "venv", "--venv", env_dir],
        [python, script, "llama", "--venv", env_dir],
        [python, script, "qualm", "--venv", env_dir, "--wheel", dist["wheel"], "--constraints", ROOT / "constraints.txt"],
        [python, script, "model", "--venv", env_dir],
        [python, script, "check", "--venv", env_dir, "--version", VERSION],
    ]
    for cmd in steps:
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=home, env=clean_env())
        assert proc.returncode == 0, f"{cmd[2]}: " + (proc.stdout[-3000:] + proc.stderr[-3000:])
    return env_dir


def test_installed_qualm_is_the_wheel_not_the_clone(engine: Path) -> None:
    out = subprocess.run([str(engine / "bin" / "python"), "-c", "import qualm, qualm_sandbox; print(qualm.__version__); print(qualm.__file__); print(qualm_sandbox.__file__)"], capture_output=True, text=True, cwd=engine.parent, env=clean_env())
    assert out.returncode == 0, out.stderr
    version, *files = out.stdout.split()
    assert version == VERSION
    for f in files:
        assert Path(f).is_relative_to(engine) and not Path(f).is_relative_to(ROOT), f


def test_installed_qualm_generates_with_highlights(engine: Path) -> None:
    stub = engine.parent / "stub.py"
    stub.write_text((ROOT / "examples" / "stub.py").read_text())
    proc = subprocess.run([str(engine / "bin" / "qualm"), "generate", str(stub), "--max-tokens", "48", "--json"], capture_output=True, text=True, cwd=engine.parent, env=clean_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    tokens = out["trace"]["tokens"]
    assert tokens and all(tok["entropy"] >= 0 and tok["alternatives"] for tok in tokens)
    assert out["trace"]["text"].strip()
    assert out["lexical"]["code"]["top_k_entropy"] is not None


def test_installed_qualm_serves_the_handshake(engine: Path) -> None:
    async def go() -> None:
        s = Session()
        try:
            await s.start(python=str(engine / "bin" / "python"), cwd=str(engine.parent))
            assert s.init.server_info.name == "qualm" and s.init.server_info.version == VERSION
            answer = await asyncio.wait_for(s.client.protocol.send_request_async("qualm/handshake", {"clientVersion": VERSION, "protocol": 2}), seconds(60))
            assert answer.compatible and answer.serverVersion == VERSION
        finally:
            await s.stop()

    asyncio.run(go())
