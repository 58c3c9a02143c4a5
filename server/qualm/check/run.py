"""Check files: every function scored (or assessed) with the engine, and judged by the gate.

A file that cannot be read or parsed is noted and the others are still checked; the report's exit
code says whether everything passed (0), something failed the gate (1), or something could not be
checked (2: a gate that could not look must not pass).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import engine
from ..calibration_file import Calibration
from ..lang import FunctionSource, SourceError, language_for, language_named
from ..model import ModelBackend
from ..settings import Settings
from ..signals.suspicion import SuspectLine
from .gate import CHANCE, Gate, Verdict, lexical_scores
from .targets import Targets

# (functions done, functions in all, "path::function") before each function
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class FunctionCheck:
    path: str  # relative to the report's root
    function: str  # qualified: Class.method
    start_line: int  # 1-based, the definition (decorators not included)
    end_line: int
    tokens: int  # body tokens scored
    scores: dict[str, float | None]  # the body's lexical scores by name (qualm.check.gate.lexical_scores)
    value: float | None  # the gated metric's value
    verdict: Verdict
    reason: str  # the verdict in words, with the numbers
    chance: float | None = None  # with --assess: the calibrated chance of passing
    chance_note: str = ""
    axes: dict[str, dict] = field(default_factory=dict)  # with --assess: raw, percentile, available, note per axis
    ensemble: float | None = None
    seconds: float = 0.0
    # The line the model least expected (qualm.signals.suspicion) and that token in words
    suspect_line: int | None = None
    suspect_note: str = ""


def suspect_fields(suspects: tuple[SuspectLine, ...]) -> dict:
    """``suspect_line`` and ``suspect_note`` from an assessment's (or a scored pass's) suspects."""
    if not suspects:
        return {}
    return {"suspect_line": suspects[0].line, "suspect_note": f"the line the model least expected: {suspects[0].describe()}"}


@dataclass(frozen=True)
class FileCheck:
    path: str
    functions: int  # how many it has
    problem: str = ""  # why its functions were not checked (does not parse, not UTF-8); "" when they were


@dataclass(frozen=True)
class CheckReport:
    root: Path
    model: str
    gate: Gate
    files: tuple[FileCheck, ...]
    functions: tuple[FunctionCheck, ...]
    ignored: tuple[tuple[str, str], ...] = ()  # named paths that are not checked, and why
    seconds: float = 0.0

    @property
    def assessed(self) -> bool:
        return self.gate.metric == CHANCE

    def with_verdict(self, verdict: Verdict) -> list[FunctionCheck]:
        return [f for f in self.functions if f.verdict == verdict]

    @property
    def problems(self) -> list[FileCheck]:
        return [f for f in self.files if f.problem]

    @property
    def exit_code(self) -> int:
        """1 when a function failed the gate; else 2 when something could not be checked; else 0."""
        if self.with_verdict("fail"):
            return 1
        if self.with_verdict("unknown") or self.problems:
            return 2
        return 0

    def summary(self) -> dict[str, int]:
        counts = {v: len(self.with_verdict(v)) for v in ("pass", "fail", "unknown", "skipped")}
        return {"files": len(self.files), "files_not_checked": len(self.problems), "functions": len(self.functions), **counts}

    def to_dict(self) -> dict:
        """The report as JSON-ready data (``qualm check --json``)."""
        return {
            "root": str(self.root),
            "model": self.model,
            "assessed": self.assessed,
            "gate": self.gate.to_dict(),
            "exit_code": self.exit_code,
            "summary": self.summary(),
            "files": [asdict(f) for f in self.files],
            "ignored": [{"path": p, "why": why} for p, why in self.ignored],
            "functions": [asdict(f) for f in self.functions],
            "seconds": self.seconds,
        }


def read_functions(path: Path, name: str) -> tuple[list[FunctionSource], str]:
    """A file's functions, or none and why (the message names the file and, for a syntax error, the line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return [], f"{name}: not UTF-8 text ({exc.reason})"
    except OSError as exc:
        return [], f"{name}: cannot be read ({exc.strerror or exc})"
    try:
        return language_for(filename=path.name).runnable_functions(text, name), ""
    except SourceError as exc:
        return [], str(exc)


def check_files(
    backend: ModelBackend,
    targets: Targets,
    settings: Settings,
    gate: Gate,
    calibration: Calibration | None = None,
    progress: Progress | None = None,
) -> CheckReport:
    """Score every function of the targets (assess it when the gate reads the chance of passing) and judge it.

    Scored only, a backend that cannot score code it did not write raises
    :class:`~qualm.model.TeacherForcingUnavailable` at the first function: no lexical gate can run
    on it. An assessment leaves the lexical axis out instead (its note says why) and still gives the
    chance when the calibration has a pass model.
    """
    t_start = time.perf_counter()
    files: list[FileCheck] = []
    todo: list[tuple[str, FunctionSource]] = []
    for path in targets.files:
        name = targets.display(path)
        functions, problem = read_functions(path, name)
        files.append(FileCheck(name, len(functions), problem))
        todo.extend((name, fn) for fn in functions)
    results: list[FunctionCheck] = []
    for i, (name, fn) in enumerate(todo):
        if progress is not None:
            progress(i, len(todo), f"{name}::{fn.name}")
        results.append(assess_one(backend, name, fn, settings, gate, calibration) if gate.metric == CHANCE else score_one(backend, name, fn, settings, gate))
    return CheckReport(
        root=targets.root,
        model=backend.info.name,
        gate=gate,
        files=tuple(files),
        functions=tuple(results),
        ignored=targets.ignored,
        seconds=time.perf_counter() - t_start,
    )


def score_one(backend: ModelBackend, path: str, fn: FunctionSource, settings: Settings, gate: Gate) -> FunctionCheck:
    t0 = time.perf_counter()
    scored = engine.score_function(backend, fn, settings)
    lexical = scored.lexical.all
    scores = lexical_scores(lexical)
    value = scores.get(gate.metric)
    if lexical.n_tokens == 0:
        verdict, reason = "skipped", "no body tokens to score (a stub or a docstring only)"
    else:
        verdict, reason = gate.judge(value, "not computed")
    suspects = engine.suspects_of(fn, scored.trace)
    return FunctionCheck(path, fn.name, fn.line, fn.end_line, lexical.n_tokens, scores, value, verdict, reason, seconds=time.perf_counter() - t0, **suspect_fields(suspects))


def assess_one(backend: ModelBackend, path: str, fn: FunctionSource, settings: Settings, gate: Gate, calibration: Calibration | None) -> FunctionCheck:
    # the file's own modules import as they do when the project runs from here
    roots = engine.roots_for(language_named(fn.language), path, [Path.cwd()])
    a = engine.assess_function(backend, fn, settings, calibration, roots=roots)
    verdict, reason = gate.judge(a.chance_of_passing, a.chance_note)
    axes = {ax.name: {"raw": ax.raw, "percentile": ax.percentile, "available": ax.available, "note": ax.note} for ax in a.axes()}
    return FunctionCheck(
        path,
        fn.name,
        fn.line,
        fn.end_line,
        a.lexical_scores.all.n_tokens,
        lexical_scores(a.lexical_scores.all),
        a.chance_of_passing,
        verdict,
        reason,
        chance=a.chance_of_passing,
        chance_note=a.chance_note,
        axes=axes,
        ensemble=a.ensemble,
        seconds=a.seconds,
        **suspect_fields(a.suspects),
    )
