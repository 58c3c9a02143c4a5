"""The model's own solutions of the problem, run on the inputs of its tests.

Written from the problem alone (the paper's code prompt, the first greedy and the others sampled),
they are kept between assessments with the plans and tests (``SampleCache``), and so are their
runs. They decode in a batch of their own, after the plans and tests: a sampled answer depends on
what shares its batch (llama.cpp's batched arithmetic), so the plans and tests stay exactly those of
an assessment without solutions, and a calibration can add them to rows measured before.

Two signals come of them (:mod:`qualm.signals.agreement`): the functional axis with each test
weighted by how many solutions pass it, and how often the candidate answers as the solutions do.
Where the docstring gives examples, two more are computed from the solutions that pass them (the
``consistent`` signals: a solution that fails the author's example is not a witness of what the
function should do), with calls varied from the examples' own inputs as well as the tests'.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from qualm_sandbox import SandboxConfig, SandboxUnavailable

from .. import prompts
from ..lang import Language
from ..model import CancelToken, GenerationOptions, ModelBackend
from ..settings import Settings, default_threads
from ..signals.agreement import ProbeOutcome, ProbeReport, agreement, run_probes, weighted_functional
from ..signals.differential import answered, call_arguments, differential, mutated_calls, spread
from ..trace import Trace
from .samples import Job, SampleCache, decode_with_cache
from .sandboxing import imports_from_project

Progress = Callable[[str, str], None]
SOLUTION_SEED = 2000  # added to the generation seed: apart from the plans' and the tests' seeds


@dataclass(frozen=True)
class SolutionRun:
    text: str
    tokens: int
    passed: int  # the model's tests it passes
    ran: int  # tests it ran
    agreement: float | None  # share of the test inputs it answers as the candidate does


@dataclass(frozen=True)
class SolutionsResult:
    weighted: float | None  # the functional axis with tests weighted by the solutions
    weighted_note: str
    agreement: float | None  # 1 - mean agreement with the candidate (larger = more doubt)
    agreement_note: str
    solutions: list[SolutionRun] = field(default_factory=list)
    disagreements: list[tuple[str, str, str]] = field(default_factory=list)  # (test, candidate's answer, solutions' answer)
    test_weights: list[float] = field(default_factory=list)  # per test: the share of solutions that pass it
    reused: int = 0  # solutions taken from the cache
    seconds: float = 0.0
    # Differential testing on varied inputs (qualm.signals.differential)
    differential: float | None = None
    differential_note: str = "off"
    differences: list[tuple[str, str, str]] = field(default_factory=list)  # (call, the code's answer, the solutions' majority)
    from_plans: int = 0  # how many of the solutions are the sampled plans written as code (functional.solutions_from_plans)
    # The same two, from the solutions that pass the docstring's examples only (all of them where
    # it gives none), with calls varied from the examples' inputs too (issue 55, third round).
    consistent: int | None = None  # solutions that pass every example; None: not checked (no program)
    consistent_weighted: float | None = None
    consistent_differential: float | None = None
    consistent_note: str = "off"
    consistent_differences: list[tuple[str, str, str]] = field(default_factory=list)  # (call, the code's answer, their majority)
    consistent_from_examples: bool = False  # the docstring gave examples: the consistent solutions are a subset

    def answers_as(self, whose: str = "they do") -> str:
        """How often the code answers as these programs, in words (the hover, the terminal, the note)."""
        if self.agreement is None:
            return "no answers to compare"
        return f"the code answers as {whose} on {1 - self.agreement:.0%} of the tests' inputs"


def solution_start(problem: str, settings: Settings) -> str:
    """What the solutions' code block opens with: the problem's imports and header when the model
    writes bodies only (``functional.solution_body_only``), else nothing."""
    return problem.rstrip("\n") + "\n" if settings.functional.solution_body_only else ""


def solution_jobs(problem: str, settings: Settings, language: Language) -> list[Job]:
    f = settings.functional
    prompt = prompts.code_generation(problem, language.display_name, language.fence, solution_start(problem, settings))
    return [
        (prompt, GenerationOptions(
            max_tokens=f.solution_max_tokens,
            temperature=0.0 if i == 0 else f.solution_temperature,
            top_p=f.solution_top_p,
            seed=settings.generation.seed + SOLUTION_SEED + i,
            top_alternatives=1,
            # the prompt's opening is the scored function's (score_function): taken from the cache
            reuse_cache=True,
        ))
        for i in range(f.n_solutions)
    ]


def sandbox_workers(programs: int, cores: int) -> int:
    """How many sandboxed programs run at once: one per core, at least two (the pool before), at most
    one per program. On a GPU machine the model is done when they run, and with two at a time they
    were most of what a solution check cost (README, GPU: an H200's median assessment 5.3 s, 4.2 s
    with one per core)."""
    return max(2, min(cores, programs))


Decoded = tuple[list[Trace], list[bool]]  # the traces of jobs, and whether each came from the cache


def decode_together(
    groups: list[list[Job]],
    backend: ModelBackend,
    samples: SampleCache | None,
    cancel: CancelToken | None = None,
    progress: Progress | None = None,
    label: str = "solutions",
) -> list[Decoded]:
    """Decode several lists of jobs in one batch (the model's solutions and the plans' programs):
    on a CPU a decode step is compute-bound, so one sequence alone leaves most of the batch's
    throughput unused, and a second batch evaluates the prompts' shared opening again (README,
    cost). A job in two lists is decoded once, and counts as reused in the later one. Returns
    each list's traces and reuse flags."""
    cancel = cancel or CancelToken()
    progress = progress or (lambda stage, message: None)
    unique: list[Job] = []
    at: dict[tuple, int] = {}
    for job in (j for group in groups for j in group):
        key = SampleCache.key("", *job)
        if key not in at:
            at[key] = len(unique)
            unique.append(job)
    traces, reused = decode_with_cache(
        unique, [True] * len(unique), backend.info.identity.digest, samples,
        lambda todo: backend.generate_batch(todo, on_progress=lambda n: progress("functional", f"{label}: {n} tokens"), cancel=cancel),
    )
    out: list[Decoded] = []
    seen: set[tuple] = set()
    for group in groups:
        keys = [SampleCache.key("", *j) for j in group]
        # a job an earlier list had is that list's trace: for this one, reused
        out.append(([traces[at[k]] for k in keys], [reused[at[k]] or k in seen for k in keys]))
        seen.update(keys)
    return out


def check_against_solutions(
    backend: ModelBackend,
    problem: str,
    function_name: str,
    candidate: ProbeReport,
    settings: Settings,
    language: Language,
    config: SandboxConfig,
    samples: SampleCache | None = None,
    cancel: CancelToken | None = None,
    progress: Progress | None = None,
    program: str | None = None,
    jobs: list[Job] | None = None,
    label: str = "solutions",
    program_of: Callable[[str], str] | None = None,
    decoded: Decoded | None = None,
    examples: Sequence[str] = (),
) -> SolutionsResult:
    """Decode the model's solutions (or take them from ``samples``), run the candidate's tests on
    each, and compare: ``candidate`` is the candidate's own probe run of the same tests. With
    ``program`` (the candidate's code as it runs) and ``functional.fuzz_inputs``, the code and the
    solutions also answer calls with varied inputs (:mod:`qualm.signals.differential`). ``jobs``
    decodes other programs in their place (the plans' programs, :mod:`qualm.engine.plan_programs`),
    named ``label`` in the progress messages. ``program_of`` makes a solution's text a program that
    runs (a method's solution: the method in its class). ``decoded``: the jobs' traces and whether
    each was reused, where they were decoded already (:func:`decode_together`). ``examples``: the
    docstring's examples as ``assert`` statements (:mod:`qualm.signals.examples`); with ``program``,
    the solutions that pass them all give the ``consistent`` signals."""
    t0 = time.perf_counter()
    cancel = cancel or CancelToken()
    progress = progress or (lambda stage, message: None)
    tests = [o.code for o in candidate.outcomes]
    jobs = solution_jobs(problem, settings, language) if jobs is None else jobs
    if not jobs:
        return SolutionsResult(None, f"off (no {label} to write)", None, f"off (no {label} to write)")
    if decoded is None:
        progress("functional", f"writing {len(jobs)} {label}")
        decoded = decode_together([jobs], backend, samples, cancel, progress, label)[0]
    traces, reused = decoded
    if cancel.cancelled:
        return SolutionsResult(None, "cancelled", None, "cancelled", reused=sum(reused), seconds=time.perf_counter() - t0)
    progress("functional", f"running the tests on the {label}")
    start = solution_start(problem, settings)
    texts = [start + t.text for t in traces]  # the solutions as the model wrote them
    programs = [program_of(text) for text in texts] if program_of is not None else texts  # as they run
    prober = _Prober(backend, function_name, tests, config, samples, cancel)
    varying = program is not None and settings.functional.fuzz_inputs > 0
    n, seed = settings.functional.fuzz_inputs, settings.generation.seed
    calls = mutated_calls(call_arguments(tests, function_name), function_name, n, seed) if varying else []
    # the examples' inputs are the author's, in the problem's domain: varied too, after the tests'
    consistent = program is not None and settings.functional.consistent_solutions
    examples = examples if consistent else ()
    from_examples = mutated_calls(call_arguments(list(examples), function_name), function_name, n, seed) if varying and examples else []
    extra = [c for c in from_examples if c not in calls]
    try:
        mine, varied, runs, example_runs = _run_programs(prober, programs, program, calls + extra, progress, list(examples))
    except SandboxUnavailable as exc:
        return SolutionsResult(None, f"unavailable: {exc}", None, f"unavailable: {exc}", reused=sum(reused), seconds=time.perf_counter() - t0)
    if cancel.cancelled:
        return SolutionsResult(None, "cancelled", None, "cancelled", reused=sum(reused), seconds=time.perf_counter() - t0)
    code_answers = mine.outcomes if mine is not None else []
    # no calls: differential says the tests had no literal inputs to vary
    d = differential(calls, code_answers[: len(calls)], [v[: len(calls)] for v in varied]) if varying else None
    outcomes = [r.outcomes for r in runs]
    w = weighted_functional(candidate.outcomes, outcomes)
    a = agreement(candidate.outcomes, outcomes)
    solutions = [
        SolutionRun(text, len(t.tokens), r.passed, sum(o.ran for o in r.outcomes), share)
        for text, t, r, share in zip(texts, traces, runs, a.per_solution)
    ]
    result = SolutionsResult(w.uncertainty, w.note, a.uncertainty, a.note, solutions, a.disagreements, w.weights, sum(reused), time.perf_counter() - t0)
    if d is not None:
        result = replace(result, differential=d.uncertainty, differential_note=d.note, differences=d.differences)
    if consistent:
        result = replace(result, **_consistent(candidate.outcomes, outcomes, example_runs, calls + extra, code_answers, varied))
    return result


def consistent_solutions(example_runs: Sequence[ProbeReport], solutions: int) -> list[int]:
    """The indices of the solutions that pass every docstring example (all of them where there are
    no example runs): a solution that fails one disagrees with the author, and so is no witness."""
    if not example_runs:
        return list(range(solutions))
    return [i for i, r in enumerate(example_runs) if r.outcomes and all(o.status == "passed" for o in r.outcomes)]


def _consistent(
    candidate: Sequence[ProbeOutcome],
    outcomes: Sequence[Sequence[ProbeOutcome]],
    example_runs: Sequence[ProbeReport],
    calls: Sequence[str],
    code_answers: Sequence[ProbeOutcome],
    varied: Sequence[Sequence[ProbeOutcome | None]],
) -> dict:
    """The weighted tests and the differential from the solutions consistent with the examples
    (every solution where ``example_runs`` is empty: the docstring gives none)."""
    has_examples = bool(example_runs)
    keep = consistent_solutions(example_runs, len(outcomes))
    if has_examples and not keep:
        note = f"unavailable: none of the model's {len(outcomes)} solutions passes the docstring's examples"
        return {"consistent": 0, "consistent_note": note, "consistent_from_examples": True}
    w = weighted_functional(candidate, [outcomes[i] for i in keep])
    d = differential(calls, code_answers, [varied[i] for i in keep if i < len(varied)]) if calls else None
    whose = f"{len(keep)} of the model's {len(outcomes)} solutions pass the docstring's examples" if has_examples else "the docstring gives no example: every solution counts"
    return {
        "consistent": len(keep),
        "consistent_weighted": w.uncertainty,
        "consistent_differential": d.uncertainty if d is not None else None,
        "consistent_note": f"{whose}; {d.note if d is not None else 'no varied inputs'}",
        "consistent_differences": d.differences if d is not None else [],
        "consistent_from_examples": has_examples,
    }


@dataclass(frozen=True)
class _Prober:
    """Runs a program's probes (the tests, or calls with varied inputs) for one check, and keeps
    what the solutions did in the ``SampleCache``."""

    backend: ModelBackend
    function_name: str
    tests: list[str]
    config: SandboxConfig
    samples: SampleCache | None
    cancel: CancelToken

    def within(self, text: str, statements: list[str], limits: SandboxConfig, seconds: float) -> ProbeReport:
        # what a program did not reach in ``seconds`` is left out of its verdicts (ProbeOutcome.ran)
        return run_probes(text, statements, self.function_name, limits, should_stop=self.cancel.or_after(seconds))

    def run(self, text: str, statements: list[str] | None = None, kind: str = "solution-probes", budget: float | None = None, limits: SandboxConfig | None = None) -> ProbeReport:
        statements = self.tests if statements is None else statements
        limits = self.config if limits is None else limits
        # where it ran is part of what it did: the interpreter and the file's import roots; a
        # program that imports the project's own modules is run again each time (they may have been
        # edited since)
        key = (kind, self.backend.info.identity.digest, self.function_name, text, tuple(statements), limits.interpreter, limits.import_paths, limits.package)
        keep = self.samples is not None and not imports_from_project(text, limits.import_paths)
        if keep and (hit := self.samples.get_value(key)) is not None:
            return hit
        # A solution gets twice the per-test limit in all: one that loops is not worth the wait.
        report = self.within(text, statements, limits, 2 * self.config.timeout if budget is None else budget)
        if keep and not self.cancel.cancelled:
            self.samples.put_value(key, report)
        return report


def _run_programs(
    prober: _Prober, programs: list[str], program: str | None, calls: list[str], progress: Progress, examples: list[str],
) -> tuple[ProbeReport | None, list[list[ProbeOutcome | None]], list[ProbeReport], list[ProbeReport]]:
    """The tests on every program, and where there are ``calls``, the code (``program``) and the
    programs on the varied inputs: the code's answers, the programs' answers to the calls it
    answered, and the programs' test runs; and where there are ``examples`` (the docstring's, as
    statements), the programs' runs of them."""
    config = prober.config
    mine: ProbeReport | None = None
    varied: list[list[ProbeOutcome | None]] = []
    workers = sandbox_workers(len(programs) * (1 + bool(calls) + bool(examples)) + 1, default_threads())
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # Inputs varied past the problem's domain can make programs loop: each program gets an
        # equal share of about twice the per-test limit on two workers, and each call a quarter
        # of that (a program that answers normally needs milliseconds a call); the calls a
        # program did not answer in time are left out (ProbeOutcome.ran, no answer).
        budget = 2 * 2 * config.timeout / (len(programs) + 1)
        limits = replace(config, timeout=max(0.25, budget / 4))
        # the code first (not cached: the code changes), beside the solutions' test runs
        code_run = pool.submit(prober.within, program or "", calls, limits, budget) if calls else None
        test_runs = [pool.submit(prober.run, text) for text in programs]
        # the docstring's examples on every program, kept in the SampleCache with its other runs
        example_runs = [pool.submit(prober.run, text, examples, "solution-examples") for text in programs] if examples else []
        if code_run is not None:
            progress("functional", f"the code and the model's solutions on {len(calls)} varied inputs")
            mine = code_run.result()
            # a call the code did not answer in time has nothing to compare the solutions'
            # answers with: they are asked only the others, so inputs that loop cost no more
            asked = answered(mine.outcomes)
            varied_runs = [pool.submit(prober.run, text, [calls[i] for i in asked], "solution-varied", budget, limits) for text in programs] if asked else []
            varied = [spread(v.result().outcomes, asked, len(calls)) for v in varied_runs]
        runs = [r.result() for r in test_runs]
    return mine, varied, runs, [r.result() for r in example_runs]
