"""``qualm check``'s engine, without the command line: choose the files (named, or changed against a
git ref), score or assess their functions, judge each by the gate, and write the report as JSON or
SARIF 2.1.0 (GitHub code scanning).

    targets = choose_targets(paths, changed_ref, Path.cwd())
    report = check_files(backend, targets, settings, gate_for(settings.check, assess), calibration)
    report.exit_code, report.to_dict(), sarif_log(report)
"""

from __future__ import annotations

from .gate import CHANCE, Gate, Verdict, gate_for, lexical_scores
from .run import CheckReport, FileCheck, FunctionCheck, check_files, read_functions
from .sarif import SARIF_SCHEMA, SARIF_VERSION, sarif_log
from .targets import TargetError, Targets, changed_files, choose_targets, files_under, handled

__all__ = [
    "CHANCE",
    "SARIF_SCHEMA",
    "SARIF_VERSION",
    "CheckReport",
    "FileCheck",
    "FunctionCheck",
    "Gate",
    "TargetError",
    "Targets",
    "Verdict",
    "changed_files",
    "check_files",
    "choose_targets",
    "files_under",
    "gate_for",
    "handled",
    "lexical_scores",
    "read_functions",
    "sarif_log",
]
