"""Which reference distribution a model's scores are placed against."""

from __future__ import annotations

from pathlib import Path

from ..ensemble import Calibration, find_calibration
from ..model.files import cache_dir
from ..model.identity import ModelIdentity
from ..settings import EnsembleSettings


def user_calibration_dir() -> Path:
    """Where ``qualm calibrate`` writes the files it makes."""
    return cache_dir() / "calibration"


def calibration_for(model: ModelIdentity, settings: EnsembleSettings) -> Calibration | None:
    """The configured calibration file, else one made by ``qualm calibrate`` for this model, else
    the one shipped for it; None when there is none (raw scores only). A configured file that
    cannot be read raises :class:`CalibrationError`."""
    return find_calibration(model, settings.calibration_file, user_calibration_dir())
