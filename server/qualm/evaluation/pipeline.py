"""One evaluation pipeline per problem, cached on disk so a run resumes and methods share work.

For each problem the model's outputs are produced once, each into its own JSON file under
``<cache>/<model identity key>/<settings key>/<dataset>/<task id>/`` (for a GGUF the key is the
first 16 hex digits of its SHA-256):

* ``greedy``     the greedy solution with its trace (tokens, entropies, probabilities)
* ``label``      the official verdict of the hidden tests on the greedy solution (never the self-tests)
* ``samples``    N code samples at temperature 0.8 (the consistency baselines, symbolic clustering)
* ``plans``      N natural-language plans (the algorithmic axis)
* ``tests``      the model's M assert tests (the functional axis)
* ``selftests``  the greedy solution run against those tests in the sandbox
* ``sampletests`` every sample run against the same tests (the multi-candidate signal)

A file is written atomically when its step finishes; a step whose file exists is skipped, so an
interrupted run (Ctrl-C, a crash, a reboot) picks up at the step it was in. Every step records
its wall time, which the cost table uses. The settings key covers every setting that changes an
output, so runs with other settings never mix.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from qualm_sandbox import SandboxConfig

from .. import engine, prompts
from ..model import CancelToken, GenerationOptions, ModelBackend
from ..settings import Settings
from ..signals.functional import FunctionalResult, ParsedTests, functional_uncertainty, parse_tests
from ..trace import Trace
from .labels import official_label
from .problems import Problem

STEPS = ("greedy", "label", "samples", "plans", "tests", "selftests", "sampletests")
PIPELINE_VERSION = 1  # bump when a step's output changes meaning: old caches are then not reused
# bump when parse_tests reads more of the model's answers: cached test lists are re-read from their
# raw text and, where that changes them, the sandbox runs against them are redone (no model work)
TESTS_PARSER = 2


@dataclass(frozen=True)
class PipelineOptions:
    n_samples: int = 10  # code samples for the consistency baselines (the paper's N)
    sample_temperature: float = 0.8
    sample_top_p: float = 0.95
    label_timeout: float = 4.0  # seconds per official test
    steps: tuple[str, ...] = STEPS  # a run of lexical methods only needs greedy and label


def settings_key(settings: Settings, options: PipelineOptions) -> str:
    """A short hash of everything that changes what the model writes or how it is judged."""
    relevant = {
        "generation": asdict(settings.generation),
        # editor-only settings (the evaluation never stops a plan early) stay out of the key, so
        # caches made before they existed are still found
        "algorithmic": {k: v for k, v in asdict(settings.algorithmic).items() if k != "stop_after_last_step"},
        "functional": {k: v for k, v in asdict(settings.functional).items() if k != "sandbox_mode"},
        "samples": [options.n_samples, options.sample_temperature, options.sample_top_p],
        "label_timeout": options.label_timeout,
        "version": PIPELINE_VERSION,
    }
    return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()[:12]


class ProblemCache:
    """The JSON files of one problem's steps."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, step: str) -> Path:
        return self.root / f"{step}.json"

    def get(self, step: str) -> dict | None:
        p = self.path(step)
        if not p.exists():
            return None
        try:
            return json.loads(p.read_text())
        except ValueError:
            return None  # a file cut short by a crash mid-write of an older version: recompute

    def put(self, step: str, data: dict) -> dict:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.path(step).with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.path(step))  # atomic: a reader sees the old file or the whole new one
        return data

    def drop(self, step: str) -> None:
        self.path(step).unlink(missing_ok=True)

    def step(self, name: str, compute: Callable[[], dict]) -> dict:
        cached = self.get(name)
        if cached is not None:
            return cached
        t0 = time.perf_counter()
        data = compute()
        data["seconds"] = time.perf_counter() - t0
        return self.put(name, data)


def problem_dir(cache_root: Path, model_key: str, key: str, problem: Problem) -> Path:
    """``model_key``: the model's :attr:`ModelIdentity.key`, so each model has a folder of its own."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in problem.task_id)
    return cache_root / model_key / key / problem.dataset / safe


def run_problem(
    backend: ModelBackend,
    problem: Problem,
    settings: Settings,
    options: PipelineOptions,
    cache: ProblemCache,
    cancel: CancelToken | None = None,
    on_step: Callable[[str], None] | None = None,
) -> dict[str, dict]:
    """Every step this problem still needs; returns all steps' cached data."""
    cancel = cancel or CancelToken()
    seed = settings.generation.seed
    out: dict[str, dict] = {}

    def step(name: str, compute: Callable[[], dict]) -> None:
        if name not in options.steps:
            return
        if cancel.cancelled:
            raise InterruptedError("evaluation cancelled")
        if on_step is not None:
            on_step(name)
        out[name] = cache.step(name, compute)

    def greedy() -> dict:
        trace = engine.generate_solution(backend, problem.prompt, settings, cancel=cancel)
        return {"code": trace.text, "trace": trace.to_dict()}

    step("greedy", greedy)
    code = out["greedy"]["code"] if "greedy" in out else (cache.get("greedy") or {}).get("code", "")

    def label() -> dict:
        result = official_label(problem, code, SandboxConfig(timeout=options.label_timeout, mode=settings.functional.sandbox_mode))
        return asdict(result)

    step("label", label)

    def batch(prompt: prompts.ChatPrompt, n: int, temperature: float, top_p: float, max_tokens: int, seed0: int) -> list[Trace]:
        jobs = [(prompt, GenerationOptions(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed0 + i, top_alternatives=1)) for i in range(n)]
        return backend.generate_batch(jobs, cancel=cancel)

    def samples() -> dict:
        traces = batch(prompts.code_generation(problem.prompt), options.n_samples, options.sample_temperature, options.sample_top_p, settings.generation.max_tokens, seed + 2000)
        return {"codes": [t.text for t in traces], "tokens": [len(t.tokens) for t in traces]}

    step("samples", samples)

    def plans() -> dict:
        a = settings.algorithmic
        traces = batch(prompts.plan_generation(problem.prompt), a.n_plans, a.temperature, a.top_p, a.max_tokens, seed)
        return {"plans": [t.text for t in traces], "tokens": [len(t.tokens) for t in traces]}

    step("plans", plans)

    def tests() -> dict:
        f = settings.functional
        trace = batch(prompts.test_generation(problem.prompt, f.n_tests), 1, f.temperature, f.top_p, f.max_tokens, seed + 1000)[0]
        return {"raw": trace.text, **_parsed_tests(trace.text, f.n_tests, problem.entry_point)}

    step("tests", tests)
    if "tests" in out and out["tests"].get("parser") != TESTS_PARSER:
        out["tests"] = _reparsed_tests(out["tests"], settings.functional.n_tests, problem.entry_point, cache)

    def own_tests() -> ParsedTests:
        t = out["tests"]  # parsed when they were written: no second parse, no second read
        return ParsedTests(list(t["tests"]), [(d[0], d[1]) for d in t["dropped"]])

    def run_against_tests(candidate: str) -> tuple[FunctionalResult, float]:
        if cancel.cancelled:
            raise InterruptedError("evaluation cancelled")
        f = settings.functional
        config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
        t0 = time.perf_counter()
        result = functional_uncertainty(candidate, own_tests(), config, should_stop=lambda: cancel.cancelled)
        return result, time.perf_counter() - t0

    def row(result: FunctionalResult) -> list[bool] | None:
        return None if result.report is None else [o.passed for o in result.report.outcomes]

    def selftests() -> dict:
        # the functional axis proper: the greedy solution against the model's own tests
        result, seconds = run_against_tests(code)
        greedy_result = {"uncertainty": result.uncertainty, "note": result.note, "sandbox": result.sandbox, "seconds": seconds}
        return {"greedy": greedy_result, "matrix": [row(result)]}

    step("selftests", selftests)

    def sampletests() -> dict:
        # every sample against the same tests (the multi-candidate signal); its own step, so a run
        # with or without samples never leaves a self-test file that lacks or hides them
        return {"matrix": [row(run_against_tests(c)[0]) for c in out["samples"]["codes"]]}

    step("sampletests", sampletests)
    return out


def _parsed_tests(raw: str, limit: int, entry_point: str) -> dict:
    """The tests step's parsed fields, stamped with the parser that read them."""
    parsed = parse_tests(raw, limit=limit, function_name=entry_point)
    return {"tests": list(parsed.tests), "dropped": [list(d) for d in parsed.dropped], "parser": TESTS_PARSER}


def _reparsed_tests(cached: dict, limit: int, entry_point: str, cache: ProblemCache) -> dict:
    """A test list parsed by an older parse_tests, read again from the model's raw answer."""
    fresh = _parsed_tests(cached["raw"], limit, entry_point)
    if fresh["tests"] != cached["tests"]:
        for stale in ("selftests", "sampletests"):  # their runs used the old list
            cache.drop(stale)
    return cache.put("tests", {**cached, **fresh})
