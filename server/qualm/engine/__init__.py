"""qualm's engine: one function per editor action, in the document's own coordinates.

    complete(backend, document, offset, settings)      the model continues the document at a cursor
    score_document(backend, document, settings)        teacher-forced scores of every function
    assess(backend, document, function, settings, calibration)   the three axes, the chance of passing, the ensemble
    calibration_for(identity, settings.ensemble)       the model's reference distribution
    roots_for(language, path, workspace)               where a file's imports resolve when its tests run

Each returns plain dataclasses (tokens already placed at document offsets); the CLI and the
language server only render them. Nothing here knows about terminals or LSP.
"""

from __future__ import annotations

from ..signals.lexical import LexicalReport, lexical_report
from .assessment import Assessment, AssessmentCancelled, AxisResult, assess, assess_function, suspects_of
from .calibration import calibration_for, user_calibration_dir
from .completion import Completion, CompletionOptions, complete
from .document import Document
from .generation import generate_solution, greedy_options
from .placement import PlacedToken
from .samples import SampleCache
from .sandboxing import roots_for
from .scoring import DocumentScore, FunctionScore, score_document, score_function

__all__ = [
    "Assessment",
    "AssessmentCancelled",
    "AxisResult",
    "Completion",
    "CompletionOptions",
    "Document",
    "DocumentScore",
    "FunctionScore",
    "LexicalReport",
    "PlacedToken",
    "SampleCache",
    "assess",
    "assess_function",
    "calibration_for",
    "complete",
    "generate_solution",
    "greedy_options",
    "lexical_report",
    "roots_for",
    "score_document",
    "score_function",
    "suspects_of",
    "user_calibration_dir",
]
