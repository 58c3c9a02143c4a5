"""``qualm eval``: data sets → cached pipeline → methods → runs for the report.

The model work of every problem goes through the on-disk cache (``pipeline``), so a run can be
stopped at any time and started again with the same command; methods are then recomputed from the
cache in seconds. Labels come only from the official hidden tests.

:func:`load_inputs` reads the data sets and the calibration source and checks the splits before
any model is loaded; :func:`run_evaluation` then does the model work and computes every method.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..model import CancelToken, ModelBackend
from ..model.identity import ModelIdentity
from ..settings import Settings
from . import datasets
from .groups import ALL_GROUPS, GROUPS
from .methods import (
    ProblemData,
    calibrated_probability,
    consistency_methods,
    core_methods,
    multi_candidate_method,
    symbolic_method,
    total_seconds,
)
from .pipeline import STEPS, PipelineOptions, ProblemCache, problem_dir, run_problem, settings_key
from .problems import Problem
from .report import load_runs
from .results import ALGO, AXES, FUNC, P_PASS, EvalRun, MethodResult
from .symbolic import SymbolicConfig

Progress = Callable[[int, int, str, str], None]  # (done, total, task id, step)
# A stage of the run begins: (title, how many problems) -> where its progress goes, if anywhere.
StageProgress = Callable[[str, int], "Progress | None"]
MethodsOf = Callable[[list[ProblemData]], list[MethodResult]]
SYMBOLIC_STAGE = "symbolic clustering (CrossHair)"


@dataclass(frozen=True)
class EvalPlan:
    groups: tuple[str, ...] = ALL_GROUPS
    options: PipelineOptions = field(default_factory=PipelineOptions)
    symbolic: SymbolicConfig = field(default_factory=SymbolicConfig)
    symbolic_jobs: int = 0  # problems clustered at once; 0: one per core (the model is idle by then)
    in_flight: int = 1  # problems whose model work runs at once (more than 1 pays with a server)

    def __post_init__(self) -> None:
        unknown = [g for g in self.groups if g not in GROUPS]
        if unknown:
            raise ValueError(f"unknown method group(s) {', '.join(unknown)}; known: {', '.join(ALL_GROUPS)}")

    def steps(self) -> tuple[str, ...]:
        needed = {s for g in self.groups for s in GROUPS[g]}
        return tuple(s for s in STEPS if s in needed)


def collect(
    backend: ModelBackend,
    problems: list[Problem],
    settings: Settings,
    plan: EvalPlan,
    cache_root: Path,
    identity: ModelIdentity,
    on_progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> list[ProblemData]:
    """Run (or read from the cache) every needed step of every problem, ``plan.in_flight`` problems
    at once (an inference server works on several; each problem has its own cache folder). The
    first error stops the problems not yet begun and is raised; finished problems stay cached."""
    options = PipelineOptions(**{**plan.options.__dict__, "steps": plan.steps()})
    key = settings_key(settings, options)
    stop = CancelToken(cancel)  # the caller's, or this run's after an error
    finished = [0]
    lock = threading.Lock()

    def one(problem: Problem) -> ProblemData:
        cache = ProblemCache(problem_dir(cache_root, identity.key, key, problem))
        on_step = (lambda step: on_progress(finished[0], len(problems), problem.task_id, step)) if on_progress else None
        steps = run_problem(backend, problem, settings, options, cache, stop, on_step=on_step)
        label = steps.get("label", {})
        with lock:
            finished[0] += 1
            done = finished[0]
        if on_progress is not None:
            on_progress(done, len(problems), problem.task_id, "done")
        return ProblemData(problem.task_id, bool(label.get("passed")), steps, problem.entry_point, cache)

    if plan.in_flight <= 1:
        return [one(p) for p in problems]
    with ThreadPoolExecutor(max_workers=plan.in_flight, thread_name_prefix="qualm-eval") as pool:
        futures = [pool.submit(one, p) for p in problems]
        try:
            return [f.result() for f in futures]
        except BaseException:
            stop.cancel()
            for f in futures:
                f.cancel()
            raise


@dataclass(frozen=True)
class CalibrationSplit:
    """What P(pass) is fitted on: a calibration split's three raw axes and official labels."""

    name: str
    task_ids: list[str]
    labels: list[bool]
    axes: tuple[list[float | None], list[float | None], list[float | None]]  # LEX, ALGO, FUNC

    @classmethod
    def from_problems(cls, name: str, data: list[ProblemData], settings: Settings) -> CalibrationSplit:
        return cls._of(name, [p.task_id for p in data], [p.label for p in data], core_methods(data, settings))

    @classmethod
    def from_run(cls, name: str, run: EvalRun) -> CalibrationSplit:
        """From a report (results.json) of the calibration split: no model and no cache needed."""
        return cls._of(name, list(run.task_ids), list(run.labels), run.methods)

    @classmethod
    def _of(cls, name: str, task_ids: list[str], labels: list[bool], methods: list[MethodResult]) -> CalibrationSplit:
        found = {m.name: m for m in methods}
        missing = [a for a in AXES if a not in found]
        if missing:
            raise ValueError(f"{name}: the calibration run has no {', '.join(missing)} (run it with the three axes)")
        return cls(name, task_ids, labels, tuple(found[a].uncertainty for a in AXES))


@dataclass(frozen=True)
class EvalInputs:
    """What an evaluation runs on, loaded and checked before any model work."""

    datasets: list[tuple[str, list[Problem]]]  # (the name as given, its problems)
    split: str | None = None
    calibration: str | None = None  # the calibration source as given (DATASET[:SPLIT[:LIMIT]] or a results.json)
    calibration_problems: list[Problem] | None = None  # a calibration split the pipeline runs first
    calibration_split: CalibrationSplit | None = None  # or one read from a results.json


def load_inputs(names: Sequence[str], *, split: str | None = None, limit: int | None = None, calibration: str | None = None) -> EvalInputs:
    """The data sets (``split`` applies to MBPP and APPS) and the calibration source, read and checked.

    Raises ValueError (:class:`DatasetError` included) with a message for the user, also when the
    calibration problems overlap the evaluated ones: a wrong fit is worse than none.
    """
    sets = [(name, datasets.load(name, split=split if name.startswith(("mbpp", "apps")) else None, limit=limit)) for name in names]
    cal_problems, cal_split = calibration_source(calibration) if calibration else (None, None)
    cal_ids = set(cal_split.task_ids) if cal_split else {p.task_id for p in cal_problems or ()}
    if any(cal_ids & {p.task_id for p in problems} for _, problems in sets):
        raise ValueError("the calibration problems overlap the evaluated ones: fit P(pass) on another split")
    return EvalInputs(sets, split, calibration, cal_problems, cal_split)


def calibration_source(spec: str) -> tuple[list[Problem] | None, CalibrationSplit | None]:
    """(problems to run the pipeline on, None) for DATASET[:SPLIT[:LIMIT]]; (None, the split) for a
    results.json. MBPP's test split is refused: it is what gets reported."""
    if spec.endswith(".json"):
        if not Path(spec).is_file():
            raise ValueError(f"--calibration {spec}: no such file")
        runs = load_runs(Path(spec))
        if len(runs) != 1:
            raise ValueError(f"--calibration {spec}: holds {len(runs)} runs; give the report of the calibration split alone")
        return None, CalibrationSplit.from_run(spec, runs[0])
    name, _, rest = spec.partition(":")
    split, _, lim = rest.partition(":")
    if name.startswith("mbpp") and (split or "test") == "test":
        raise ValueError("P(pass) may not be fitted on MBPP's test split: use mbpp:calibration")
    return datasets.load(name, split=split or None, limit=int(lim) if lim else None), None


# The paper's plans as the evaluation samples them (its results in results/ were made with these):
# N = 10 plans of at most 512 tokens, never stopped before the model's end of turn. The editor's
# assessment uses fewer, shorter plans by default (settings.AlgorithmicSettings).
PAPER_PLANS = {"n_plans": 10, "max_tokens": 512}


def paper_plans(settings: Settings) -> Settings:
    return settings.with_overrides(algorithmic=PAPER_PLANS)


def run_evaluation(
    backend: ModelBackend,
    inputs: EvalInputs,
    settings: Settings,
    plan: EvalPlan,
    cache_root: Path,
    command: str,
    on_stage: StageProgress | None = None,
) -> list[EvalRun]:
    """Every data set through the cached pipeline (the calibration split first, when there is one),
    then every method of the plan; one run per data set. The cache folder is the backend's
    model identity's; ``on_stage`` is told when each stage begins (a data set, the calibration
    split, Symbolic Clustering) and returns where that stage's progress goes."""
    stage: StageProgress = on_stage or (lambda title, total: None)
    settings = paper_plans(settings)
    identity = backend.info.identity
    calibration = inputs.calibration_split
    if inputs.calibration_problems is not None:
        problems = inputs.calibration_problems
        progress = stage(f"calibration split ({inputs.calibration})", len(problems))
        data = collect(backend, problems, settings, plan, cache_root, identity, on_progress=progress)
        calibration = CalibrationSplit.from_problems(str(inputs.calibration), data, settings)
    extra = _extra_methods(plan, stage)
    runs = []
    for name, problems in inputs.datasets:
        progress = stage(name, len(problems))
        data = collect(backend, problems, settings, plan, cache_root, identity, on_progress=progress)
        if progress is not None:
            progress(len(problems), len(problems), name, "methods")
        methods = methods_for(data, settings, plan, calibration, extra)
        runs.append(build_run(dataset_label(name, inputs.split), backend.info.name, data, methods, command))
    return runs


def _extra_methods(plan: EvalPlan, stage: StageProgress) -> tuple[MethodsOf, ...]:
    """The multi-sample methods the plan's groups ask for, beyond the core ones."""
    extra: list[MethodsOf] = []
    if "consistency" in plan.groups:
        extra.append(consistency_methods)
    if "symbolic" in plan.groups:

        def symbolic(data: list[ProblemData]) -> list[MethodResult]:
            # hours of CrossHair on a full data set: a stage of its own, with a step per problem
            progress = stage(SYMBOLIC_STAGE, len(data))
            jobs = plan.symbolic_jobs or os.cpu_count() or 1
            return [symbolic_method(data, plan.symbolic, on_progress=progress, jobs=jobs)]

        extra.append(symbolic)
    if "multi" in plan.groups:
        extra.append(lambda data: [multi_candidate_method(data)])
    return tuple(extra)


def methods_for(
    data: list[ProblemData],
    settings: Settings,
    plan: EvalPlan,
    calibration: CalibrationSplit | None = None,
    extra: tuple[MethodsOf, ...] = (),
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
    return MethodResult(P_PASS, "beyond the paper", values, total_seconds(test[a].seconds for a in AXES))


def build_run(dataset: str, model: str, data: list[ProblemData], methods: list[MethodResult], command: str) -> EvalRun:
    return EvalRun(dataset=dataset, model=model, task_ids=[p.task_id for p in data], labels=[p.label for p in data], methods=methods, command=command)


def dataset_label(name: str, split: str | None) -> str:
    """How a data set is named in the report: "HumanEval", "MBPP (calibration)", a file's stem."""
    labels = {"humaneval": "HumanEval", "mbpp": "MBPP", "mbpp-sanitized": "MBPP (sanitized)", "apps": "APPS"}
    label = labels.get(name, Path(name).stem if Path(name).suffix else name)
    return f"{label} ({split})" if split and name.startswith("mbpp") and split != "test" else label
