"""The engine setup's script (scripts/engine_setup.py) and the one version (issue 57): what it pins and
computes agrees with pyproject.toml, package.json and scripts/setup."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = (ROOT / "pyproject.toml").read_text()  # read with re: no tomllib on Python 3.10


def load_script():
    spec = importlib.util.spec_from_file_location("engine_setup", ROOT / "scripts" / "engine_setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_version_for_the_server_the_extension_and_the_import() -> None:
    import qualm

    version = re.search(r'^version = "([^"]+)"', PYPROJECT, re.M).group(1)
    assert json.loads((ROOT / "package.json").read_text())["version"] == version
    assert qualm.__version__ == version


def test_the_script_builds_the_llama_cpp_python_that_qualm_pins() -> None:
    main_dependencies = PYPROJECT.split("[project.optional-dependencies]")[0]
    assert re.findall(r'"llama-cpp-python==([^"]+)"', main_dependencies) == [load_script().LLAMA_VERSION]


def test_scripts_setup_keeps_no_copy_of_the_build_flags() -> None:
    setup = (ROOT / "scripts" / "setup").read_text()
    assert "engine_setup.py llama" in setup
    assert not re.search(r"-DGGML_\w+=", setup)


def test_flags_and_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    m = load_script()
    monkeypatch.delenv("QUALM_CMAKE_ARGS", raising=False)
    assert "GGML_NATIVE=OFF" in m.cmake_flags("cpu") and "AMX" not in m.cmake_flags("cpu")
    assert m.cmake_flags("cuda", "90").startswith("-DGGML_CUDA=on ") and m.cmake_flags("cuda", "90").endswith("-DCMAKE_CUDA_ARCHITECTURES=90")
    with pytest.raises(m.StepFailed):
        m.cmake_flags("rocm")
    # another flag set is another wheel; the key is what scripts/setup has always written
    assert m.wheel_key(m.cmake_flags("cpu")) != m.wheel_key(m.cmake_flags("cuda"))
    assert re.fullmatch(r"[0-9a-f]{16}", m.wheel_key(m.CPU_FLAGS))
    monkeypatch.setenv("QUALM_CMAKE_ARGS", "-DGGML_BLAS=ON")
    assert m.cmake_flags("cpu") == "-DGGML_BLAS=ON"


def test_cache_folder_as_the_server_computes_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from qualm.model.files import cache_dir

    m = load_script()
    monkeypatch.delenv("QUALM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert m.cache_dir() == cache_dir() == tmp_path / "qualm"
    monkeypatch.setenv("QUALM_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert m.cache_dir() == cache_dir() == tmp_path / "elsewhere"
    # and the model's file is where qualm model fetch puts it
    from qualm.model.files import default_model_path

    assert m.cache_dir() / "models" / m.DEFAULT_MODEL_FILE == default_model_path()


def test_a_failed_step_says_why_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = load_script()
    assert m.main(["qualm", "--venv", str(tmp_path / "env"), "--wheel", str(tmp_path / "missing.whl")]) == 1
    assert "[engine] failed: qualm's wheel" in capsys.readouterr().err
    # the llama step refuses to install into another environment than the one whose Python runs it
    assert m.main(["llama", "--venv", str(tmp_path / "env")]) == 1
    assert "with the environment's own Python" in capsys.readouterr().err


def test_the_model_step_links_a_prepared_cache_and_never_writes_there(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    m = load_script()
    prepared = tmp_path / "prepared"
    (prepared / "models").mkdir(parents=True)
    model = prepared / "models" / m.DEFAULT_MODEL_FILE
    model.write_bytes(b"GGUF")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in prepared.rglob("*"))
    monkeypatch.setenv("QUALM_PREPARED_CACHE", str(prepared))
    monkeypatch.setenv("QUALM_CACHE_DIR", str(tmp_path / "cache"))
    ran: list[list[str]] = []
    monkeypatch.setattr(m, "run", lambda cmd, **kw: ran.append(cmd))  # `qualm model fetch` itself: tests/packaging
    m.step_model(tmp_path / "env")
    linked = tmp_path / "cache" / "models" / m.DEFAULT_MODEL_FILE
    assert linked.is_symlink() and linked.resolve() == model.resolve()
    assert ran == [[str(tmp_path / "env" / "bin" / "qualm"), "model", "fetch"]]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in prepared.rglob("*")) == before


def test_the_version_is_this_install_s_even_beside_another_qualm_egg_info(tmp_path: Path) -> None:
    """A checkout's qualm.egg-info in the current folder must not answer for the installed qualm (the
    engine's check once read 0.1.0 there for an engine of 0.1.1)."""
    import subprocess
    import sys

    import qualm

    (tmp_path / "qualm.egg-info").mkdir()
    (tmp_path / "qualm.egg-info" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: qualm\nVersion: 9.9.9\n")
    for args in (["-c", "import qualm; print(qualm.__version__)"], ["-c", "import runpy, sys; sys.path.insert(0, ''); import qualm; print(qualm.__version__)"]):
        out = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path)
        assert out.stdout.strip() == qualm.__version__ != "9.9.9", out.stderr
