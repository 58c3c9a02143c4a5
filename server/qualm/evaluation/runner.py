"""``qualm eval``: data sets → cached pipeline → methods → metrics and report.

The model work of every problem goes through the on-disk cache (``pipeline``), so a run can be
stopped at any time and started again with the same command; methods are then recomputed from the
cache in seconds. Labels come only from the official hidden tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..model import CancelToken, ModelBackend
from ..settings import Settings
from .datasets import Problem
from .methods import ALGO, AXES, FUNC, ProblemData, calibrated_probability, core_methods, total_seconds
from .pipeline import STEPS, PipelineOptions, ProblemCache, problem_dir, run_problem, settings_key
from .report import EvalRun, MethodResult

# Method groups a user can pick (--methods), and the pipeline steps each needs.
GROUPS: dict[str, tuple[str, ...]] = {
    "lexical": ("greedy", "label"),
    "algorithmic": ("greedy", "label", "plans"),
    "functional": ("greedy", "label", "tests", "selftests"),
    "consistency": ("greedy", "label", "samples"),
    "symbolic": ("greedy", "label", "samples"),
    "multi": ("greedy", "label", "samples", "tests", "sampletests"),
}
ALL_GROUPS = tuple(GROUPS)

Progress = Callable[[int, int, str, str], None]  # (done, total, task id, step)


@dataclass(frozen=True)
class EvalPlan:
    groups: tuple[str, ...] = ALL_GROUPS
    options: PipelineOptions = field(default_factory=PipelineOptions)

    def steps(self) -> tuple[str, ...]:
        needed = {s for g in self.groups for s in GROUPS[g]}
        return tuple(s for s in STEPS if s in needed)


def collect(
    backend: ModelBackend,
    problems: list[Problem],
    settings: Settings,
    plan: EvalPlan,
    cache_root: Path,
    model_sha256: str,
    on_progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> list[ProblemData]:
    """Run (or read from the cache) every needed step of every problem."""
    options = PipelineOptions(**{**plan.options.__dict__, "steps": plan.steps()})
    key = settings_key(settings, options)
    out: list[ProblemData] = []
    for i, problem in enumerate(problems):
        cache = ProblemCache(problem_dir(cache_root, model_sha256, key, problem))
        steps = run_problem(
            backend, problem, settings, options, cache, cancel,
            on_step=(lambda step, i=i, tid=problem.task_id: on_progress(i, len(problems), tid, step)) if on_progress else None,
        )
        label = steps.get("label", {})
        out.append(ProblemData(problem.task_id, bool(label.get("passed")), steps, problem.entry_point, cache))
        if on_progress is not None:
            on_progress(i + 1, len(problems), problem.task_id, "done")
    return out


@dataclass(frozen=True)
class CalibrationSplit:
    """What P(pass) is fitted on: a calibration split's three raw axes and official labels."""

    name: str
    task_ids: list[str]
    labels: list[bool]
    axes: tuple[list[float | None], list[float | None], list[float | None]]  # LEX, ALGO, FUNC

    @classmethod
    def from_problems(cls, name: str, data: list[ProblemData], settings: Settings) -> "CalibrationSplit":
        return cls._of(name, [p.task_id for p in data], [p.label for p in data], core_methods(data, settings))

    @classmethod
    def from_run(cls, name: str, run: EvalRun) -> "CalibrationSplit":
        """From a report (results.json) of the calibration split: no model and no cache needed."""
        return cls._of(name, list(run.task_ids), list(run.labels), run.methods)

    @classmethod
    def _of(cls, name: str, task_ids: list[str], labels: list[bool], methods: list[MethodResult]) -> "CalibrationSplit":
        found = {m.name: m for m in methods}
        missing = [a for a in AXES if a not in found]
        if missing:
            raise ValueError(f"{name}: the calibration run has no {', '.join(missing)} (run it with the three axes)")
        return cls(name, task_ids, labels, tuple(found[a].uncertainty for a in AXES))


def methods_for(
    data: list[ProblemData],
    settings: Settings,
    plan: EvalPlan,
    calibration: CalibrationSplit | None = None,
    extra: tuple[Callable[[list[ProblemData]], list[MethodResult]], ...] = (),
) -> list[MethodResult]:
    methods = core_methods(data, settings, extra)
    wanted = set(plan.groups)
    if "algorithmic" not in wanted or "functional" not in wanted:
        # an axis that was not run is unavailable everywhere: drop it and the ensembles that need it
        drop = ({ALGO} if "algorithmic" not in wanted else set()) | ({FUNC} if "functional" not in wanted else set())
        methods = [m for m in methods if m.name not in drop and not m.name.startswith("Ensemble")]
    if calibration is not None and {"algorithmic", "functional"} <= wanted:
        methods.append(calibrated_method(calibration, {m.name: m for m in methods}))
    return methods


def calibrated_method(calibration: CalibrationSplit, test: dict[str, MethodResult]) -> MethodResult:
    """P(pass) fitted on the calibration split's three axes and labels, applied to this run's axes."""
    values = calibrated_probability(list(calibration.axes), calibration.labels, [test[a].uncertainty for a in AXES])
    return MethodResult("P(pass), calibrated", "beyond the paper", values, total_seconds(test[a].seconds for a in AXES))


def build_run(dataset: str, model: str, data: list[ProblemData], methods: list[MethodResult], command: str) -> EvalRun:
    return EvalRun(dataset=dataset, model=model, task_ids=[p.task_id for p in data], labels=[p.label for p in data], methods=methods, command=command)
