"""Assess one function on the paper's three axes, and combine them against a calibration.

``assess`` (a function of a document) and ``assess_function`` (a function already found) are the
engine's entry points for the CLI (``qualm assess``), the language server and calibration. They take
a progress callback and a cancellation token, checked between tokens (model work) and between
tests (sandbox).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

from .. import prompts
from ..answer_ends import plan_end, tests_end
from ..chance import LEXICAL_SIGNAL_WORDS, MISSING_WHY, signals_of
from ..ensemble import Calibration, ensemble
from ..lang import FunctionSource, ImportRoots, Language, language_named
from ..model import CancelToken, GenerationOptions, ModelBackend, TeacherForcingUnavailable
from ..settings import Settings
from ..signals.algorithmic import StepRouge, algorithmic_uncertainty, candidate_distance
from ..signals.examples import ExamplesResult, check_examples
from ..signals.functional import calling_only, functional_uncertainty, parse_tests
from ..signals.lexical import LexicalReport, lexical_report
from ..signals.swaps import SwapResult
from ..trace import Trace
from .calibration import calibration_settings
from .document import Document
from .plan_programs import checked_programs, programs_among, solutions_of
from .samples import Job, SampleCache, decode_with_cache
from .sandboxing import sandbox_config, unimportable
from .scoring import score_function
from .solutions import SolutionsResult, check_against_solutions, decode_together
from .swaps import check_swaps

Progress = Callable[[str, str], None]  # (axis or stage, message)


class AssessmentCancelled(Exception):
    pass


@dataclass(frozen=True)
class AxisResult:
    name: str
    raw: float | None
    percentile: float | None
    available: bool
    note: str  # why unavailable, or what the number rests on
    seconds: float


@dataclass(frozen=True)
class PlanResult:
    text: str
    steps: list[str]
    tokens: int
    stop_reason: str


@dataclass(frozen=True)
class TestResult:
    code: str
    status: str  # passed | failed | error | timeout
    message: str
    output: str
    seconds: float


OFF_NOTE = "off: its ensemble weight is 0 (settings: ensemble.weights)"


@dataclass(frozen=True)
class Assessment:
    function: str
    line: int
    model: str
    problem: str
    candidate: str
    lexical: AxisResult
    algorithmic: AxisResult
    functional: AxisResult
    ensemble: float | None
    # The headline: P(pass) from the calibration file's pass model (qualm.chance), and what it rests on.
    chance_of_passing: float | None
    chance_note: str
    weights: dict[str, float]  # as configured
    weights_used: dict[str, float]  # renormalised over the available axes
    calibration: str | None  # what the percentiles rest on
    calibration_note: str
    lexical_scores: LexicalReport
    plans: list[PlanResult]
    plan_similarity: list[tuple[int, int, float]]
    # The code's own plan and its distance from the sampled plans (1 - mean similarity): reported
    # beside the paper's dispersion; the ensemble still uses the dispersion (issue 23 measures which).
    candidate_plan: PlanResult | None
    candidate_distance: float | None
    tests: list[TestResult]
    dropped_tests: list[tuple[str, str]]
    tests_raw: str  # the model's answer to the test prompt
    sandbox: str  # the isolation that was active
    seconds: float
    seed: int
    extra: dict = field(default_factory=dict)
    # The model's own solutions run on the tests (qualm.engine.solutions): the functional axis with
    # each test weighted by the solutions that pass it, and how often the code answers as they do.
    solutions: SolutionsResult | None = None
    # The model's likelier token at the code's least likely places, run on the tests (qualm.signals.swaps).
    swaps: SwapResult | None = None
    # The sampled plans implemented and run on the tests (qualm.engine.plan_programs; algorithmic.plan_programs).
    plan_programs: SolutionsResult | None = None
    # The docstring's own examples run as tests (qualm.signals.examples): the author's specification.
    examples: ExamplesResult | None = None

    def axes(self) -> list[AxisResult]:
        return [self.lexical, self.algorithmic, self.functional]

    def failed_tests(self) -> int | None:
        """How many self-tests did not pass; None where none ran."""
        return sum(t.status != "passed" for t in self.tests) if self.tests else None

    def to_dict(self) -> dict:
        return asdict(self)


def _no_progress(stage: str, message: str) -> None:
    pass


def assess(
    backend: ModelBackend,
    document: Document,
    function: str | int,
    settings: Settings,
    calibration: Calibration | None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    samples: SampleCache | None = None,
    roots: ImportRoots | None = None,
) -> Assessment:
    """Assess the function of ``document`` named ``function`` (or holding that 1-based line)."""
    return assess_function(backend, document.function(function), settings, calibration, progress, cancel, samples, roots)


def assess_function(
    backend: ModelBackend,
    fn: FunctionSource,
    settings: Settings,
    calibration: Calibration | None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    samples: SampleCache | None = None,
    roots: ImportRoots | None = None,
) -> Assessment:
    """``samples`` keeps the plans, tests, solutions and plans' programs, which depend on the problem
    alone, between calls: a second assessment of the same problem (the function edited, or another
    version of it) decodes nothing new but the code's own plan, where that is on. ``roots``: where
    the file's imports resolve when its tests run (``Language.import_roots``; None: installed
    packages only)."""
    progress = progress or _no_progress
    cancel = cancel or CancelToken()
    # within one call too: the plans' programs, when they are the solutions, are read back from it
    samples = samples if samples is not None else SampleCache()
    t_start = time.perf_counter()
    problem = fn.problem_description
    seed = settings.generation.seed

    # Lexical: teacher-forced scoring of the body.
    progress("lexical", "scoring the function's tokens")
    t0 = time.perf_counter()
    signal = settings.lexical.assess_signal
    scored_trace: Trace | None = None
    try:
        scored = score_function(backend, fn, settings, cancel=cancel)
        lexical_scores, scored_trace = scored.lexical, scored.trace
        lex_raw = getattr(lexical_scores.all, signal)
        lex_note = f"{LEXICAL_SIGNAL_WORDS[signal].format(k=settings.lexical.top_k)} over {lexical_scores.all.n_tokens} body tokens" if lex_raw is not None else "the function has no body tokens"
    except TeacherForcingUnavailable as exc:
        # a served engine that cannot score code it did not write: the other axes still run
        lexical_scores = lexical_report(Trace(text="", tokens=(), model=backend.info.name, mode="scored"), settings.lexical.top_k)
        lex_raw, lex_note = None, f"unavailable: {exc}"
    _check(cancel)
    lexical = AxisResult("lexical", lex_raw, None, lex_raw is not None, lex_note, time.perf_counter() - t0)

    # Algorithmic and functional samples decode together: N plans and one test list in one batch.
    # An axis whose ensemble weight is 0 is not computed: its samples are most of the cost.
    weights = settings.ensemble.weights.as_dict()
    language = language_named(fn.language)
    want_algo, want_func = weights["algorithmic"] > 0, weights["functional"] > 0 and language.runs_tests
    a, f = settings.algorithmic, settings.functional
    owner, _, method_name = fn.probe_name.partition(".")
    method = (owner, method_name, fn.test_example) if fn.owner else None  # a method's tests build its object
    plan_jobs, test_jobs = sampling_jobs(problem, fn.source, settings, language, want_algo, want_func, method)
    want_own = want_algo and a.candidate_plan  # the code's own plan is the last plan job
    t0 = time.perf_counter()
    traces: list[Trace] = []
    reused: list[bool] = []
    if plan_jobs or test_jobs:
        stage = "algorithmic" if plan_jobs else "functional"
        what = " and ".join(x for x in ((f"{a.n_plans} plans and the code's own" if want_own else f"{a.n_plans} plans") if plan_jobs else "", f"{f.n_tests} tests" if test_jobs else "") if x)
        progress(stage, f"sampling {what}")
        jobs = plan_jobs + test_jobs
        # Everything but the code's own plan depends on the problem alone.
        cacheable = [True] * len(jobs)
        if want_own:
            cacheable[len(plan_jobs) - 1] = False
        traces, reused = decode_with_cache(
            jobs,
            cacheable,
            backend.info.identity.digest,
            samples,
            lambda todo: backend.generate_batch(todo, on_progress=lambda n: progress(stage, f"sampling: {n} tokens"), cancel=cancel),
        )
        _check(cancel)
    sampling_seconds = time.perf_counter() - t0
    plan_traces, test_trace = traces[: len(plan_jobs)], (traces[-1] if test_jobs else None)
    # The batch's time is split by the share of the tokens decoded now (reused samples cost nothing).
    fresh = [len(t.tokens) if not r else 0 for t, r in zip(traces, reused)]
    plan_share = sum(fresh[: len(plan_traces)]) / max(1, sum(fresh))
    own_trace = plan_traces.pop() if want_own else None

    t0 = time.perf_counter()
    rouge = StepRouge()
    algo = algorithmic_uncertainty([t.text for t in plan_traces], rouge)
    plans = [PlanResult(t.text, steps, len(t.tokens), t.stop_reason) for t, steps in zip(plan_traces, algo.steps)]
    own = candidate_distance(own_trace.text, [t.text for t in plan_traces], rouge) if own_trace is not None else None
    own_plan = PlanResult(own_trace.text, own.steps, len(own_trace.tokens), own_trace.stop_reason) if own_trace is not None and own is not None else None
    if not want_algo:
        algo_note = OFF_NOTE
    elif algo.uncertainty is not None:
        algo_note = f"{algo.plans_used} of {len(plans)} plans had steps"
        if own is not None and own.distance is not None:
            algo_note += f"; the code's own plan is {own.distance:.2f} from them"
    else:
        algo_note = f"unavailable: only {algo.plans_used} plan(s) had numbered steps"
    algo_seconds = sampling_seconds * plan_share + (time.perf_counter() - t0)

    # Functional: the model's tests against the function's own source, the file's imports and the
    # file's definitions it uses.
    t0 = time.perf_counter()
    short_name = fn.name.split(".")[-1]
    # A test that never calls the function passes any candidate: left out here (the evaluation
    # keeps the paper's count, see README "Assessing a function").
    parsed = calling_only(parse_tests(test_trace.text if test_trace else "", limit=f.n_tests, function_name=short_name, setup=method is not None), short_name)
    tests: list[TestResult] = []
    sandbox_note = ""
    solved: SolutionsResult | None = None
    programs: SolutionsResult | None = None
    plan_program_seconds = 0.0
    decoded_solutions = decoded_programs = None
    second_batch_seconds = 0.0
    swapped: SwapResult | None = None
    examples: ExamplesResult | None = None
    blocked: str | None = None  # why the code cannot load where its tests run (sandboxing.unimportable)
    if weights["functional"] <= 0:
        func_raw, func_note = None, OFF_NOTE
    elif not want_func:
        func_raw, func_note = None, f"unavailable: the sandbox does not run {language.display_name} tests"
    elif not fn.runs:
        func_raw, func_note = None, "unavailable: a nested function, or a method of a nested class, does not run on its own"
    else:
        progress("functional", "running the self-tests in the sandbox")
        config = sandbox_config(f, roots)
        result = functional_uncertainty(fn.program, parsed, config, should_stop=lambda: cancel.cancelled, function_name=fn.probe_name)
        _check(cancel)
        blocked = unimportable([o.message for o in result.report.outcomes], config) if result.report is not None else None
        if blocked is not None:
            # the code cannot load where its tests run: that says nothing of the code, so nothing
            # more runs and no test counts (the tests are still shown, with the error)
            result = replace(result, uncertainty=None, note=f"unavailable: {blocked}", probes=None)
        func_raw, func_note, sandbox_note = result.uncertainty, result.note, result.sandbox
        if fn.support_names and result.report is not None and blocked is None:
            func_note += f"; run with {_listed(fn.support_names)} from the file"
        if language.docstring is not None and f.docstring_examples and method is None and blocked is None:
            examples = check_examples(fn.program, language.docstring(fn.source, short_name), short_name, config, should_stop=lambda: cancel.cancelled)
            _check(cancel)
            if (why := unimportable([o.message for o in examples.outcomes], config)) is not None:
                # no test of the model's ran to say so first: the examples cannot load either
                examples = replace(examples, failed=None, note=f"unavailable: {why}")
            if examples.outcomes:
                func_note += f"; {examples.note}"
        if result.report is not None:
            tests = [TestResult(o.code, o.status, o.message, o.output, o.seconds) for o in result.report.outcomes]
        plan_texts = [t.text for t in plan_traces]
        solution_jobs = solutions_of(problem, plan_texts, settings, language) if f.n_solutions > 0 else []
        among = programs_among(solution_jobs)  # plans' programs that are solutions (functional.solutions_from_plans)
        # the algorithmic axis's plans as programs: does the code behave like them? Those among the
        # solutions are decoded once.
        program_jobs = checked_programs(problem, plan_texts, settings, language, among)
        if result.probes is not None and (solution_jobs or program_jobs):
            t1 = time.perf_counter()
            what = " and ".join(x for x in (f"{len(solution_jobs)} solutions" if solution_jobs else "", f"{len(program_jobs)} programs of the plans" if program_jobs else "") if x)
            progress("functional", f"writing {what}")
            # one batch for both (solutions.decode_together)
            decoded_solutions, decoded_programs = decode_together([solution_jobs, program_jobs], backend, samples, cancel, progress, "solutions and programs")
            _check(cancel)
            fresh_tokens = [sum(len(t.tokens) for t, r in zip(*d) if not r) for d in (decoded_solutions, decoded_programs)]
            program_share = fresh_tokens[1] / max(1, sum(fresh_tokens)) if program_jobs and not among else 0.0
            second_batch_seconds = time.perf_counter() - t1
            plan_program_seconds = second_batch_seconds * program_share  # the batch's time split by fresh tokens
        if result.probes is not None and solution_jobs:
            solved = check_against_solutions(
                backend, problem, fn.probe_name, result.probes, settings, language, config, samples, cancel, progress, program=fn.program,
                jobs=solution_jobs, program_of=language.program_of_answer(fn), decoded=decoded_solutions,
            )
            solved = replace(solved, from_plans=among if solved.solutions else 0)
            _check(cancel)
            if solved.weighted is not None:
                func_note += f"; weighted by the model's {len(solved.solutions)} solutions: {solved.weighted:.2f}"
        if result.probes is not None and program_jobs:
            t1 = time.perf_counter()
            programs = check_against_solutions(
                backend, problem, fn.probe_name, result.probes, settings, language, config, samples, cancel, progress,
                jobs=program_jobs, label="programs of the plans", program_of=language.program_of_answer(fn), decoded=decoded_programs,
            )
            _check(cancel)
            plan_program_seconds += time.perf_counter() - t1
            if programs.agreement is not None:
                algo_note += "; " + programs.answers_as("the plans' programs")
        if result.report is not None and blocked is None and scored_trace is not None and language.parses is not None:
            progress("functional", "running the tests on the model's likelier tokens at the code's least likely places")
            outcomes = result.report.outcomes
            swapped = check_swaps(
                fn, scored_trace, [o.code for o in outcomes], [o.status for o in outcomes],
                solved.test_weights if solved is not None else None, settings, config, language.parses, cancel,
            )
            _check(cancel)
    func_seconds = sampling_seconds * (1 - plan_share) + (time.perf_counter() - t0) - plan_program_seconds if want_func else 0.0
    algo_seconds += plan_program_seconds

    raws = {"lexical": lexical.raw, "algorithmic": algo.uncertainty, "functional": func_raw}
    pct = {ax: (calibration.percentile(ax, r) if calibration is not None and r is not None else None) for ax, r in raws.items()}
    if calibration is not None and calibration.lexical_signal != signal:
        # a reference of another score says nothing about this one
        pct["lexical"] = None
        lexical = replace(lexical, note=lexical.note + f"; no percentile: the calibration file's lexical reference is {calibration.lexical_signal}")
    ens = ensemble(pct, weights)
    signals = signals_of(
        lexical_scores, algo.uncertainty, own.distance if own is not None else None, func_raw,
        solved.weighted if solved is not None else None, solved.agreement if solved is not None else None,
        solved.differential if solved is not None else None,
        swapped.uncertainty if swapped is not None else None,
        programs.agreement if programs is not None else None,
        programs.weighted if programs is not None else None,
        examples.failed if examples is not None else None,
    )
    chance, chance_note = _chance(calibration, signals, backend.info.name)
    if chance is not None and blocked is not None:
        chance_note += "; no test counted: the code's imports fail where its tests run (the functional axis says which)"
    if chance is not None and method is not None:
        # fitted on module-level functions; a method's tests are harder for a small model to write
        chance_note += "; fitted on functions, not methods: for a method, read its tests"
    if calibration is None:
        cal_note = f"no calibration file for {backend.info.name}: raw scores only (run `qualm calibrate`)"
    else:
        cal_note = f"percentiles against {calibration.describe()}"
        if changed := calibration.differences(calibration_settings(settings)):
            # still placed, but the user is told the reference was made another way
            cal_note += f"; made with other settings: {'; '.join(changed)}"
    progress("done", "assessment complete")
    return Assessment(
        function=fn.name,
        line=fn.line,
        model=backend.info.name,
        problem=problem,
        candidate=fn.source,
        lexical=AxisResult("lexical", lexical.raw, pct["lexical"], lexical.available, lexical.note, lexical.seconds),
        algorithmic=AxisResult("algorithmic", algo.uncertainty, pct["algorithmic"], algo.uncertainty is not None, algo_note, algo_seconds),
        functional=AxisResult("functional", func_raw, pct["functional"], func_raw is not None, func_note, func_seconds),
        ensemble=ens.score,
        chance_of_passing=chance,
        chance_note=chance_note,
        weights=weights,
        weights_used=ens.weights_used,
        calibration=calibration.path if calibration is not None else None,
        calibration_note=cal_note,
        lexical_scores=lexical_scores,
        plans=plans,
        plan_similarity=algo.pairwise,
        candidate_plan=own_plan,
        candidate_distance=own.distance if own is not None else None,
        tests=tests,
        dropped_tests=parsed.dropped,
        tests_raw=test_trace.text if test_trace else "",
        sandbox=sandbox_note,
        seconds=time.perf_counter() - t_start,
        seed=seed,
        extra={
            "signals": signals, "sampling_seconds": sampling_seconds, "sampled_tokens": sum(len(t.tokens) for t in traces), "reused_samples": sum(reused),
            "solutions_batch_seconds": second_batch_seconds,  # the solutions and the plans' programs, decoded together
        },
        solutions=solved,
        swaps=swapped,
        plan_programs=programs,
        examples=examples,
    )


def sampling_jobs(
    problem: str, source: str, settings: Settings, language: Language, plans: bool, tests: bool, method: tuple[str, str, str] | None = None,
) -> tuple[list[Job], list[Job]]:
    """An assessment's first batch: the N sampled plans, then the code's own plan
    (``algorithmic.candidate_plan``), and the test list; none for an axis that is not computed.
    ``method`` (class, name, an example test's form): the tests of a method build its object first."""
    a, f, seed = settings.algorithmic, settings.functional, settings.generation.seed
    # Decoding stops where the used part of an answer ends: a plan after its last step (a setting),
    # the test list after its M-th assert (only M are run, so that never changes the axis).
    plan_ends = plan_end if a.stop_after_last_step else None
    plan_prompt = replace(prompts.plan_generation(problem), ends=plan_ends)
    plan_jobs = [
        (plan_prompt, GenerationOptions(max_tokens=a.max_tokens, temperature=a.temperature, top_p=a.top_p, seed=seed + i, top_alternatives=1))
        for i in range(a.n_plans if plans else 0)
    ]
    # The code's own plan (greedy; off by default: at chance on every measurement): the sampled plans
    # are written from the problem alone and cannot see the code; this one can, so the axis also
    # says how far the code is from them.
    if plans and a.candidate_plan:
        plan_jobs.append((replace(prompts.candidate_plan(problem, source, language.fence), ends=plan_ends), GenerationOptions(max_tokens=a.max_tokens, temperature=0.0, seed=seed, top_alternatives=1)))
    test_jobs = [
        (replace(prompts.test_generation(problem, f.n_tests, method), ends=tests_end(f.n_tests, setup=method is not None)), GenerationOptions(max_tokens=f.max_tokens, temperature=f.temperature, top_p=f.top_p, seed=seed + 1000, top_alternatives=1))
    ] if tests else []
    return plan_jobs, test_jobs


def _chance(calibration: Calibration | None, signals: dict[str, float | None], model: str) -> tuple[float | None, str]:
    if calibration is None:
        return None, f"no calibration file for {model}: no chance of passing (run `qualm calibrate`)"
    if calibration.pass_model is None:
        return None, f"the calibration file {calibration.path or calibration.dataset} has no pass model"
    pm = calibration.pass_model
    used = pm.used_for(signals)
    if used is None:
        return None, f"none of the signals it needs ({', '.join(pm.features)}) could be computed"
    p = used.own_probability(signals)
    missing = used.missing(signals)
    note = used.describe()
    if used is not pm:
        # a later fit of the chain: say which of the first fit's signals were missing
        lacking = pm.missing(signals)
        why = "; ".join(dict.fromkeys(MISSING_WHY.get(name, "not computed") for name in lacking))
        note = f"{note}; {', '.join(lacking)} had no value ({why}), so the fit made for functions without it"
    if missing:
        note += f"; without {', '.join(missing)} (taken at its average)"
    return p, note


def _listed(names: tuple[str, ...], most: int = 4) -> str:
    """`a`, `b` and `c`; past ``most`` names, `a`, `b`, `c`, `d` and 3 more."""
    quoted = [f"`{n}`" for n in names]
    if len(quoted) > most:
        return ", ".join(quoted[:most]) + f" and {len(quoted) - most} more"
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _check(cancel: CancelToken) -> None:
    if cancel.cancelled:
        raise AssessmentCancelled("the assessment was cancelled")
