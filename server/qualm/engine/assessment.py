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

from qualm_sandbox import SandboxConfig

from .. import prompts
from ..answer_ends import plan_end, tests_end
from ..calibration_file import Calibration
from ..chance import MISSING_WHY, signals_of
from ..ensemble import EnsembleResult, ensemble
from ..lang import FunctionSource, ImportRoots, Language, language_named
from ..model import CancelToken, GenerationOptions, ModelBackend, TeacherForcingUnavailable
from ..settings import Settings
from ..signals.agreement import ProbeReport
from ..signals.algorithmic import AlgorithmicResult, CandidateDistance, StepRouge, algorithmic_uncertainty, candidate_distance
from ..signals.examples import ExamplesResult, check_examples
from ..signals.functional import ParsedTests, calling_only, functional_uncertainty, parse_tests
from ..signals.lexical import LexicalReport, lexical_report
from ..signals.suspicion import SUSPECT_MEASURE, SuspectLine, suspect_lines
from ..signals.swaps import SwapResult
from ..trace import Trace
from ..wording import LEXICAL_SIGNAL_WORDS
from .calibration import calibration_settings
from .document import Document
from .fix import FixResult, try_fix
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
    # The body's lines the model least expected, most suspect first (qualm.signals.suspicion):
    # ``line`` is the document's, ``start``/``end`` offsets in ``candidate``; empty without a scored pass.
    suspects: tuple[SuspectLine, ...] = ()
    # A one-line change that passes more of the examples and self-tests (qualm.engine.fix); None: not tried
    fix: FixResult | None = None

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
    packages only).

    One step per axis, in this order: lexical, then the plans and tests sampled in one batch,
    algorithmic, functional (with the docstring's examples, the model's own solutions, the plans'
    programs and the token swaps), and last the chance of passing and the ensemble."""
    progress = progress or _no_progress
    cancel = cancel or CancelToken()
    # within one call too: the plans' programs, when they are the solutions, are read back from it
    samples = samples if samples is not None else SampleCache()
    t_start = time.perf_counter()
    lexical = _lexical_step(backend, fn, settings, cancel, progress)
    call = _call(backend, fn, settings, progress, cancel, samples, roots)
    sampled = _sample(call)
    algo = _algorithmic_step(call, sampled)
    func = _functional_step(call, sampled, lexical.trace)
    if func.programs is not None and func.programs.agreement is not None:
        algo.note += "; " + func.programs.answers_as("the plans' programs")
    algo.seconds += func.plan_program_seconds
    verdict = _chance_step(call, calibration, lexical, algo, func)
    progress("done", "assessment complete")
    return _assessment(call, lexical, sampled, algo, func, verdict, time.perf_counter() - t_start)


@dataclass(frozen=True)
class _Call:
    """One assessment's inputs and what follows from them alone, shared by its steps."""

    backend: ModelBackend
    fn: FunctionSource
    settings: Settings
    progress: Progress
    cancel: CancelToken
    samples: SampleCache
    roots: ImportRoots | None
    problem: str
    language: Language
    weights: dict[str, float]  # as configured
    method: tuple[str, str, str] | None  # a method's tests build its object: (class, name, an example test)
    # An axis whose ensemble weight is 0 is not computed: its samples are most of the cost.
    want_algo: bool
    want_func: bool


def _call(
    backend: ModelBackend, fn: FunctionSource, settings: Settings, progress: Progress, cancel: CancelToken, samples: SampleCache, roots: ImportRoots | None,
) -> _Call:
    weights = settings.ensemble.weights.as_dict()
    language = language_named(fn.language)
    owner, _, method_name = fn.probe_name.partition(".")
    method = (owner, method_name, fn.test_example) if fn.owner else None
    return _Call(
        backend, fn, settings, progress, cancel, samples, roots, fn.problem_description, language, weights, method,
        want_algo=weights["algorithmic"] > 0, want_func=weights["functional"] > 0 and language.runs_tests,
    )


@dataclass(frozen=True)
class _Lexical:
    axis: AxisResult  # no percentile yet
    scores: LexicalReport
    trace: Trace | None  # the scored body (the token swaps start from it); None where it could not be scored


def _lexical_step(backend: ModelBackend, fn: FunctionSource, settings: Settings, cancel: CancelToken, progress: Progress) -> _Lexical:
    """Lexical: teacher-forced scoring of the body."""
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
    return _Lexical(AxisResult("lexical", lex_raw, None, lex_raw is not None, lex_note, time.perf_counter() - t0), lexical_scores, scored_trace)


@dataclass(frozen=True)
class _Samples:
    """The first batch: the sampled plans, the code's own plan and the test list."""

    plans: list[Trace]
    own: Trace | None  # the code's own plan (algorithmic.candidate_plan)
    tests: Trace | None
    traces: list[Trace]  # all of them, as decoded
    reused: list[bool]  # per trace: read back from the SampleCache
    seconds: float
    plan_share: float  # the plans' share of the tokens decoded now: of the batch's time, theirs


def _sample(c: _Call) -> _Samples:
    """Algorithmic and functional samples decode together: N plans and one test list in one batch."""
    a, f = c.settings.algorithmic, c.settings.functional
    plan_jobs, test_jobs = sampling_jobs(c.problem, c.fn.source, c.settings, c.language, c.want_algo, c.want_func, c.method)
    want_own = c.want_algo and a.candidate_plan  # the code's own plan is the last plan job
    t0 = time.perf_counter()
    traces: list[Trace] = []
    reused: list[bool] = []
    if plan_jobs or test_jobs:
        stage = "algorithmic" if plan_jobs else "functional"
        what = " and ".join(x for x in ((f"{a.n_plans} plans and the code's own" if want_own else f"{a.n_plans} plans") if plan_jobs else "", f"{f.n_tests} tests" if test_jobs else "") if x)
        c.progress(stage, f"sampling {what}")
        jobs = plan_jobs + test_jobs
        # Everything but the code's own plan depends on the problem alone.
        cacheable = [True] * len(jobs)
        if want_own:
            cacheable[len(plan_jobs) - 1] = False
        traces, reused = decode_with_cache(
            jobs,
            cacheable,
            c.backend.info.identity.digest,
            c.samples,
            lambda todo: c.backend.generate_batch(todo, on_progress=lambda n: c.progress(stage, f"sampling: {n} tokens"), cancel=c.cancel),
        )
        _check(c.cancel)
    seconds = time.perf_counter() - t0
    plan_traces, test_trace = traces[: len(plan_jobs)], (traces[-1] if test_jobs else None)
    # The batch's time is split by the share of the tokens decoded now (reused samples cost nothing).
    fresh = [len(t.tokens) if not r else 0 for t, r in zip(traces, reused)]
    plan_share = sum(fresh[: len(plan_traces)]) / max(1, sum(fresh))
    own_trace = plan_traces.pop() if want_own else None
    return _Samples(plan_traces, own_trace, test_trace, traces, reused, seconds, plan_share)


@dataclass
class _Algorithmic:
    result: AlgorithmicResult
    plans: list[PlanResult]
    own: CandidateDistance | None
    own_plan: PlanResult | None
    note: str  # the plans' programs add to it (the functional step runs them)
    seconds: float  # and to this


def _algorithmic_step(c: _Call, s: _Samples) -> _Algorithmic:
    """Algorithmic: the dispersion of the sampled plans, and the code's own plan's distance from them."""
    t0 = time.perf_counter()
    rouge = StepRouge()
    algo = algorithmic_uncertainty([t.text for t in s.plans], rouge)
    plans = [PlanResult(t.text, steps, len(t.tokens), t.stop_reason) for t, steps in zip(s.plans, algo.steps)]
    own = candidate_distance(s.own.text, [t.text for t in s.plans], rouge) if s.own is not None else None
    own_plan = PlanResult(s.own.text, own.steps, len(s.own.tokens), s.own.stop_reason) if s.own is not None and own is not None else None
    if not c.want_algo:
        note = OFF_NOTE
    elif algo.uncertainty is not None:
        note = f"{algo.plans_used} of {len(plans)} plans had steps"
        if own is not None and own.distance is not None:
            note += f"; the code's own plan is {own.distance:.2f} from them"
    else:
        note = f"unavailable: only {algo.plans_used} plan(s) had numbered steps"
    return _Algorithmic(algo, plans, own, own_plan, note, s.seconds * s.plan_share + (time.perf_counter() - t0))


@dataclass
class _Functional:
    """What the functional step found, filled in as it goes."""

    parsed: ParsedTests
    raw: float | None = None
    note: str = ""
    tests: list[TestResult] = field(default_factory=list)
    sandbox: str = ""  # the isolation that was active
    blocked: str | None = None  # why the code cannot load where its tests run (sandboxing.unimportable)
    examples: ExamplesResult | None = None
    solved: SolutionsResult | None = None
    programs: SolutionsResult | None = None  # the plans' programs: the algorithmic axis's, run here
    swapped: SwapResult | None = None
    fixed: FixResult | None = None
    plan_program_seconds: float = 0.0  # the algorithmic axis's share of this step's time
    batch_seconds: float = 0.0  # the solutions and the plans' programs, decoded together
    seconds: float = 0.0


def _functional_step(c: _Call, s: _Samples, scored_trace: Trace | None) -> _Functional:
    """Functional: the model's tests against the function's own source, the file's imports and the
    file's definitions it uses; then the docstring's examples, the model's own solutions, the plans'
    programs and the token swaps."""
    t0 = time.perf_counter()
    f = c.settings.functional
    short_name = c.fn.name.split(".")[-1]
    # A test that never calls the function passes any candidate: left out here (the evaluation
    # keeps the paper's count, see README "Assessing a function").
    out = _Functional(calling_only(parse_tests(s.tests.text if s.tests else "", limit=f.n_tests, function_name=short_name, setup=c.method is not None), short_name))
    if c.weights["functional"] <= 0:
        out.raw, out.note = None, OFF_NOTE
    elif not c.want_func:
        out.raw, out.note = None, f"unavailable: the sandbox does not run {c.language.display_name} tests"
    elif not c.fn.runs:
        out.raw, out.note = None, "unavailable: a nested function, or a method of a nested class, does not run on its own"
    else:
        _run_functional(c, s, scored_trace, out, short_name)
    out.seconds = s.seconds * (1 - s.plan_share) + (time.perf_counter() - t0) - out.plan_program_seconds if c.want_func else 0.0
    return out


def _run_functional(c: _Call, s: _Samples, scored_trace: Trace | None, out: _Functional, short_name: str) -> None:
    """The self-tests in the sandbox, and what runs on them."""
    c.progress("functional", "running the self-tests in the sandbox")
    config = sandbox_config(c.settings.functional, c.roots)
    result = functional_uncertainty(c.fn.program, out.parsed, config, should_stop=lambda: c.cancel.cancelled, function_name=c.fn.probe_name)
    _check(c.cancel)
    out.blocked = unimportable([o.message for o in result.report.outcomes], config) if result.report is not None else None
    if out.blocked is not None:
        # the code cannot load where its tests run: that says nothing of the code, so nothing
        # more runs and no test counts (the tests are still shown, with the error)
        result = replace(result, uncertainty=None, note=f"unavailable: {out.blocked}", probes=None)
    out.raw, out.note, out.sandbox = result.uncertainty, result.note, result.sandbox
    if c.fn.support_names and result.report is not None and out.blocked is None:
        out.note += f"; run with {_listed(c.fn.support_names)} from the file"
    if c.language.docstring is not None and c.settings.functional.docstring_examples and c.method is None and out.blocked is None:
        _examples_step(c, out, config, short_name, c.language.docstring(c.fn.source, short_name))
    if result.report is not None:
        out.tests = [TestResult(o.code, o.status, o.message, o.output, o.seconds) for o in result.report.outcomes]
    if result.probes is not None:
        _solutions_step(c, s, out, result.probes, config)
    if result.report is not None and out.blocked is None and scored_trace is not None and c.language.parses is not None:
        c.progress("functional", "running the tests on the model's likelier tokens at the code's least likely places")
        outcomes = result.report.outcomes
        out.swapped = check_swaps(
            c.fn, scored_trace, [o.code for o in outcomes], [o.status for o in outcomes],
            out.solved.test_weights if out.solved is not None else None, c.settings, config, c.language.parses, c.cancel,
        )
        _check(c.cancel)
        out.fixed = _fix_step(c, out, scored_trace, config)


def _fix_step(c: _Call, out: _Functional, trace: Trace, config: SandboxConfig) -> FixResult | None:
    """A likely fix (qualm.engine.fix): one-line changes run on the examples and the self-tests."""
    f = c.settings.functional
    if (f.fix_positions <= 0 and not f.fix_line) or c.language.parses is None:
        return None
    examples = out.examples.outcomes if out.examples is not None else []
    checks = [o.example.test for o in examples] + [t.code for t in out.tests]
    statuses = [o.status for o in examples] + [t.status for t in out.tests]
    if any(st != "passed" for st in statuses):
        c.progress("functional", "trying one-line fixes on the examples and the self-tests")
    fixed = try_fix(c.backend, c.fn, trace, checks, statuses, c.settings, config, c.language.parses, c.cancel)
    _check(c.cancel)
    return fixed


def _examples_step(c: _Call, out: _Functional, config: SandboxConfig, short_name: str, docstring: str | None) -> None:
    """The docstring's examples, run as tests: the author's specification."""
    examples = check_examples(c.fn.program, docstring, short_name, config, should_stop=lambda: c.cancel.cancelled)
    _check(c.cancel)
    if (why := unimportable([o.message for o in examples.outcomes], config)) is not None:
        # no test of the model's ran to say so first: the examples cannot load either
        examples = replace(examples, failed=None, note=f"unavailable: {why}")
    if examples.outcomes:
        out.note += f"; {examples.note}"
    out.examples = examples


def _solutions_step(c: _Call, s: _Samples, out: _Functional, probes: ProbeReport, config: SandboxConfig) -> None:
    """The model's own solutions and the plans' programs, decoded in one batch and run on the tests."""
    f = c.settings.functional
    plan_texts = [t.text for t in s.plans]
    solution_jobs = solutions_of(c.problem, plan_texts, c.settings, c.language) if f.n_solutions > 0 else []
    among = programs_among(solution_jobs)  # plans' programs that are solutions (functional.solutions_from_plans)
    # the algorithmic axis's plans as programs: does the code behave like them? Those among the
    # solutions are decoded once.
    program_jobs = checked_programs(c.problem, plan_texts, c.settings, c.language, among)
    decoded_solutions = decoded_programs = None
    if solution_jobs or program_jobs:
        t1 = time.perf_counter()
        what = " and ".join(x for x in (f"{len(solution_jobs)} solutions" if solution_jobs else "", f"{len(program_jobs)} programs of the plans" if program_jobs else "") if x)
        c.progress("functional", f"writing {what}")
        # one batch for both (solutions.decode_together)
        decoded_solutions, decoded_programs = decode_together([solution_jobs, program_jobs], c.backend, c.samples, c.cancel, c.progress, "solutions and programs")
        _check(c.cancel)
        fresh_tokens = [sum(len(t.tokens) for t, r in zip(*d) if not r) for d in (decoded_solutions, decoded_programs)]
        program_share = fresh_tokens[1] / max(1, sum(fresh_tokens)) if program_jobs and not among else 0.0
        out.batch_seconds = time.perf_counter() - t1
        out.plan_program_seconds = out.batch_seconds * program_share  # the batch's time split by fresh tokens
    program_of = c.language.program_of_answer(c.fn)
    if solution_jobs:
        solved = check_against_solutions(
            c.backend, c.problem, c.fn.probe_name, probes, c.settings, c.language, config, c.samples, c.cancel, c.progress, program=c.fn.program,
            jobs=solution_jobs, program_of=program_of, decoded=decoded_solutions,
            examples=[o.example.test for o in out.examples.outcomes] if out.examples is not None else (),
        )
        out.solved = replace(solved, from_plans=among if solved.solutions else 0)
        _check(c.cancel)
        if out.solved.weighted is not None:
            out.note += f"; weighted by the model's {len(out.solved.solutions)} solutions: {out.solved.weighted:.2f}"
    if program_jobs:
        t1 = time.perf_counter()
        out.programs = check_against_solutions(
            c.backend, c.problem, c.fn.probe_name, probes, c.settings, c.language, config, c.samples, c.cancel, c.progress,
            jobs=program_jobs, label="programs of the plans", program_of=program_of, decoded=decoded_programs,
        )
        _check(c.cancel)
        out.plan_program_seconds += time.perf_counter() - t1


@dataclass(frozen=True)
class _Verdict:
    """The axes placed against the calibration, the ensemble and the chance of passing."""

    lexical: AxisResult  # with a note on a calibration of another lexical score
    percentiles: dict[str, float | None]
    ensemble: EnsembleResult
    signals: dict[str, float | None]
    chance: float | None
    chance_note: str
    calibration: str | None  # the calibration file's path
    calibration_note: str


def _chance_step(c: _Call, calibration: Calibration | None, lex: _Lexical, algo: _Algorithmic, func: _Functional) -> _Verdict:
    """The chance of passing from every signal, and the paper's ensemble of the axes' percentiles."""
    lexical = lex.axis
    raws = {"lexical": lexical.raw, "algorithmic": algo.result.uncertainty, "functional": func.raw}
    pct = {ax: (calibration.percentile(ax, r) if calibration is not None and r is not None else None) for ax, r in raws.items()}
    if calibration is not None and calibration.lexical_signal != c.settings.lexical.assess_signal:
        # a reference of another score says nothing about this one
        pct["lexical"] = None
        lexical = replace(lexical, note=lexical.note + f"; no percentile: the calibration file's lexical reference is {calibration.lexical_signal}")
    ens = ensemble(pct, c.weights)
    solved, swapped, programs, examples = func.solved, func.swapped, func.programs, func.examples
    signals = signals_of(
        lex.scores, algo.result.uncertainty, algo.own.distance if algo.own is not None else None, func.raw,
        solved.weighted if solved is not None else None, solved.agreement if solved is not None else None,
        solved.differential if solved is not None else None,
        swapped.uncertainty if swapped is not None else None,
        programs.agreement if programs is not None else None,
        programs.weighted if programs is not None else None,
        examples.failed if examples is not None else None,
        func.fixed.gain if func.fixed is not None else None,
        suspect_score(c.fn, lex.trace),
        solved.consistent_weighted if solved is not None else None,
        solved.consistent_differential if solved is not None else None,
    )
    model = c.backend.info.name
    chance, chance_note = _chance(calibration, signals, model)
    if chance is not None and func.blocked is not None:
        chance_note += "; no test counted: the code's imports fail where its tests run (the functional axis says which)"
    if chance is not None and c.method is not None:
        # fitted on module-level functions; a method's tests are harder for a small model to write
        chance_note += "; fitted on functions, not methods: for a method, read its tests"
    if calibration is None:
        cal_note = f"no calibration file for {model}: raw scores only (run `qualm calibrate`)"
    else:
        cal_note = f"percentiles against {calibration.describe()}"
        if changed := calibration.differences(calibration_settings(c.settings)):
            # still placed, but the user is told the reference was made another way
            cal_note += f"; made with other settings: {'; '.join(changed)}"
    return _Verdict(lexical, pct, ens, signals, chance, chance_note, calibration.path if calibration is not None else None, cal_note)


def _assessment(c: _Call, lex: _Lexical, s: _Samples, algo: _Algorithmic, func: _Functional, v: _Verdict, seconds: float) -> Assessment:
    lexical, pct, own = v.lexical, v.percentiles, algo.own
    return Assessment(
        function=c.fn.name,
        line=c.fn.line,
        model=c.backend.info.name,
        problem=c.problem,
        candidate=c.fn.source,
        lexical=AxisResult("lexical", lexical.raw, pct["lexical"], lexical.available, lexical.note, lexical.seconds),
        algorithmic=AxisResult("algorithmic", algo.result.uncertainty, pct["algorithmic"], algo.result.uncertainty is not None, algo.note, algo.seconds),
        functional=AxisResult("functional", func.raw, pct["functional"], func.raw is not None, func.note, func.seconds),
        ensemble=v.ensemble.score,
        chance_of_passing=v.chance,
        chance_note=v.chance_note,
        weights=c.weights,
        weights_used=v.ensemble.weights_used,
        calibration=v.calibration,
        calibration_note=v.calibration_note,
        lexical_scores=lex.scores,
        plans=algo.plans,
        plan_similarity=algo.result.pairwise,
        candidate_plan=algo.own_plan,
        candidate_distance=own.distance if own is not None else None,
        tests=func.tests,
        dropped_tests=func.parsed.dropped,
        tests_raw=s.tests.text if s.tests else "",
        sandbox=func.sandbox,
        seconds=seconds,
        seed=c.settings.generation.seed,
        extra={
            "signals": v.signals, "sampling_seconds": s.seconds, "sampled_tokens": sum(len(t.tokens) for t in s.traces), "reused_samples": sum(s.reused),
            "solutions_batch_seconds": func.batch_seconds,  # the solutions and the plans' programs, decoded together
        },
        solutions=func.solved,
        swaps=func.swapped,
        plan_programs=func.programs,
        examples=func.examples,
        suspects=suspects_of(c.fn, lex.trace, func.fixed.fix.candidate.line if func.fixed is not None and func.fixed.fix is not None else None),
        fix=func.fixed,
    )


SUSPECTS_SHOWN = 3


def suspect_score(fn: FunctionSource, trace: Trace | None) -> float | None:
    """The suspect line's score before any fix reorders the lines: the chance's ``suspect_unexpected``."""
    ranked = suspect_lines(trace, fn.source, fn.body_offset, SUSPECT_MEASURE) if trace is not None else []
    return ranked[0].score if ranked else None


def suspects_of(fn: FunctionSource, trace: Trace | None, fix_line: int | None = None) -> tuple[SuspectLine, ...]:
    """The most suspect lines of ``fn`` from its teacher-forced pass, at their lines in the document.
    ``fix_line`` (1-based in ``fn.source``): a likely fix's line, which goes first: a change there
    makes failing checks pass, the strongest evidence (on the tune mutants it put the bug's line
    first in 0.82 of wrong functions against 0.70 for the teacher-forced ranking alone;
    results/localization/repair-rules.md §3)."""
    if trace is None:
        return ()
    ranked = suspect_lines(trace, fn.source, fn.body_offset, SUSPECT_MEASURE)
    ranked = sorted(ranked, key=lambda s: s.line != fix_line)  # stable: the others keep their order
    return tuple(replace(s, line=fn.line + s.line - 1) for s in ranked[:SUSPECTS_SHOWN])


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
    """Between two steps: stop if cancelled, else let a waiting completion run first."""
    if cancel.cancelled:
        raise AssessmentCancelled("the assessment was cancelled")
    cancel.checkpoint()
