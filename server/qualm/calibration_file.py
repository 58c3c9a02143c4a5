"""A model's calibration file: the reference distribution raw scores are placed against, and the
chance of passing; loaded by the server, written by ``qualm calibrate`` (``qualm.fitting``).

The paper rank-normalises each axis over the evaluation set. An editor has no evaluation set, so
each raw score is placed against a stored reference: the same axis's raw scores over a reference
problem set for this model (the calibration file, written by ``qualm calibrate``). The percentile
is the mid-rank of the raw score among the reference scores, in [0, 1]:

    percentile(u) = (#{r < u} + 0.5 * #{r = u}) / n

(``qualm.ensemble`` combines the axes' percentiles).
"""

from __future__ import annotations

import bisect
import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .chance import PassModel
from .model.identity import ModelIdentity

AXES = ("lexical", "algorithmic", "functional")
CALIBRATION_VERSION = 1
SHIPPED_DIR = Path(__file__).with_name("calibration")  # the shipped calibration files


class CalibrationError(ValueError):
    pass


@dataclass(frozen=True)
class Calibration:
    model: str
    model_sha256: str
    dataset: str  # which problems, e.g. "HumanEval/0-39"
    problems: int
    scores: dict[str, list[float]]  # axis -> sorted raw scores
    settings: dict = field(default_factory=dict)
    created: str = ""
    path: str = ""
    version: int = CALIBRATION_VERSION
    # The chance of passing (qualm.chance), where the file has one; older files have none.
    pass_model: PassModel | None = None

    def percentile(self, axis: str, raw: float) -> float | None:
        ref = self.scores.get(axis) or []
        if not ref:
            return None
        lo = bisect.bisect_left(ref, raw)
        hi = bisect.bisect_right(ref, raw)
        return (lo + 0.5 * (hi - lo)) / len(ref)

    @property
    def lexical_signal(self) -> str:
        """Which lexical score the reference holds: files made before the setting existed hold the
        paper's Top-K entropy."""
        return str(self.settings.get("lexical_signal", "top_k_entropy"))

    def differences(self, current: Mapping) -> list[str]:
        """The recorded settings that differ from ``current``, in words ("n_plans 10, now 5"); a key
        the file does not record (made before it existed) is not compared."""
        return [f"{k} {self.settings[k]}, now {v}" for k, v in current.items() if k in self.settings and self.settings[k] != v]

    def describe(self) -> str:
        sizes = ", ".join(f"{a} {len(self.scores.get(a, []))}" for a in AXES)
        return f"{self.dataset} ({sizes} reference scores)"

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = asdict(self)
        data.pop("path")
        if self.pass_model is None:
            data.pop("pass_model")
        else:
            data["pass_model"] = self.pass_model.to_dict()
        path.write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            data = json.loads(path.read_text())
            if data.get("version") != CALIBRATION_VERSION:
                raise CalibrationError(f"{path}: calibration format {data.get('version')} is not {CALIBRATION_VERSION}")
            scores = {a: sorted(float(x) for x in data["scores"].get(a, [])) for a in AXES}
            pass_model = PassModel.from_dict(data["pass_model"]) if data.get("pass_model") else None
            return cls(
                model=str(data["model"]),
                model_sha256=str(data["model_sha256"]),
                dataset=str(data["dataset"]),
                problems=int(data["problems"]),
                scores=scores,
                settings=dict(data.get("settings", {})),
                created=str(data.get("created", "")),
                path=str(path),
                pass_model=pass_model,
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"{path}: not a readable qualm calibration file ({exc})") from exc


def new_calibration(model: str, model_sha256: str, dataset: str, rows: list[dict[str, float | None]], settings: Mapping) -> Calibration:
    scores = {a: sorted(float(r[a]) for r in rows if r.get(a) is not None) for a in AXES}
    return Calibration(model, model_sha256, dataset, len(rows), scores, dict(settings), time.strftime("%Y-%m-%d"))


def find_calibration(model: ModelIdentity, explicit: str | None, user_dir: Path) -> Calibration | None:
    """An explicit file, else one made by `qualm calibrate` for this model, else a shipped one."""
    if explicit:
        return Calibration.load(Path(explicit).expanduser())
    for folder in (user_dir, SHIPPED_DIR):
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                cal = Calibration.load(path)
            except CalibrationError:
                continue
            if model.matches(cal.model_sha256):
                return cal
    return None
