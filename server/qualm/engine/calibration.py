"""Which reference distribution a model's scores are placed against."""

from __future__ import annotations

from pathlib import Path

from ..calibration_file import Calibration, find_calibration
from ..model.files import cache_dir
from ..model.identity import ModelIdentity
from ..settings import EnsembleSettings, Settings


def user_calibration_dir() -> Path:
    """Where ``qualm calibrate`` writes the files it makes."""
    return cache_dir() / "calibration"


def calibration_for(model: ModelIdentity, settings: EnsembleSettings) -> Calibration | None:
    """The configured calibration file, else one made by ``qualm calibrate`` for this model, else
    the one shipped for it; None when there is none (raw scores only). A configured file that
    cannot be read raises :class:`CalibrationError`."""
    return find_calibration(model, settings.calibration_file, user_calibration_dir())


def calibration_settings(settings: Settings) -> dict:
    """What a calibration file records of the settings its scores were made with: a score is only
    comparable with a reference made the same way (``Calibration.differences``)."""
    a = settings.algorithmic
    return {
        "seed": settings.generation.seed,
        "n_plans": a.n_plans,
        "plan_max_tokens": a.max_tokens,
        "stop_after_last_step": a.stop_after_last_step,
        "n_tests": settings.functional.n_tests,
        "n_solutions": settings.functional.n_solutions,
        "solution_temperature": settings.functional.solution_temperature,
        "solution_body_only": settings.functional.solution_body_only,
        "solutions_from_plans": settings.functional.solutions_from_plans,
        "candidate_plan": a.candidate_plan,  # one more sequence in the plans' batch
        "swap_positions": settings.functional.swap_positions,
        "swap_alternatives": settings.functional.swap_alternatives,
        "swap_floor": settings.functional.swap_floor,
        "docstring_examples": settings.functional.docstring_examples,
        "top_k": settings.lexical.top_k,
        "lexical_signal": settings.lexical.assess_signal,
        "score_batch": settings.model.score_batch,
    }
