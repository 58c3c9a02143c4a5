"""Which model produced a score: the one key that calibration lookup and the evaluation cache use.

A local GGUF is its file's SHA-256 (the same bytes give the same outputs, wherever the file lies);
a served model will be its endpoint, the served model's name and a fingerprint of its answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

IdentityKind = Literal["gguf", "endpoint", "scripted"]


@dataclass(frozen=True)
class ModelIdentity:
    kind: IdentityKind
    digest: str  # gguf: the file's SHA-256 (hex); otherwise a stable fingerprint (hex)
    name: str  # for people: "Qwen2.5-Coder-0.5B-Instruct Q4_K_M"
    locator: str = ""  # where it came from: a file path, or endpoint + served name

    @property
    def key(self) -> str:
        """Short and filesystem-safe: the evaluation cache's folder name. For a GGUF the first 16
        hex digits of its SHA-256, as caches and archives made before this type was named."""
        prefix = "" if self.kind == "gguf" else f"{self.kind}-"
        return prefix + self.digest[:16]

    def matches(self, recorded_digest: str) -> bool:
        """Whether a digest stored with a result (a calibration file's ``model_sha256``) is this model."""
        return bool(recorded_digest) and recorded_digest == self.digest

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "digest": self.digest, "name": self.name, "locator": self.locator, "key": self.key}


def gguf_identity(path: Path, name: str) -> ModelIdentity:
    from .files import cached_sha256  # noqa: PLC0415 - files imports platformdirs; identity stays light

    return ModelIdentity("gguf", cached_sha256(path), name, str(path))
