"""Both functions of each right/wrong pair assessed as a user's function is (the pair shares its
plans and tests: ``SampleCache``), every result appended to a JSONL file as it finishes, so a run
resumes; and signals added later measured for the functions a full run measured."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from qualm_sandbox import SandboxConfig

from ..chance import signals_of
from ..engine import SampleCache, assess_function, score_function
from ..engine.plan_programs import checked_programs, programs_among, solutions_of
from ..engine.solutions import check_against_solutions
from ..lang import PYTHON
from ..model import CancelToken, ModelBackend
from ..settings import Settings
from ..signals.agreement import run_probes
from .pairs import SIDES, prepared, read_results


def measure(backend: ModelBackend, settings: Settings, row: dict, side: str, samples: SampleCache, lexical_only: bool = False, cancel: CancelToken | None = None) -> dict:
    """One function of a pair assessed as a user's function: its signals (``qualm.chance``) and
    what they rest on."""
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    t0 = time.perf_counter()
    if lexical_only:
        lex = score_function(backend, fn, settings, cancel=cancel).lexical
        return {"pair_id": row["pair_id"], "side": side, "axes": "lexical", "seconds": time.perf_counter() - t0, "values": signals_of(lex, None, None, None), "detail": {}}
    a = assess_function(backend, fn, settings, None, cancel=cancel, samples=samples)
    detail = {
        "tests": [[t.code, t.status] for t in a.tests],
        "dropped_tests": len(a.dropped_tests),
        "plans": [p.text for p in a.plans],
        "candidate_plan": a.candidate_plan.text if a.candidate_plan else None,
        "axis_seconds": {ax.name: ax.seconds for ax in a.axes()},
        "extra": {k: v for k, v in a.extra.items() if k != "signals"},
    }
    if a.solutions is not None:
        # what the solutions' signals rest on, in words (a value of None says only that it is missing)
        detail["solutions"] = {"differential": a.solutions.differential_note, "consistent": a.solutions.consistent_note}
    return {"pair_id": row["pair_id"], "side": side, "axes": "all", "seconds": time.perf_counter() - t0, "values": a.extra["signals"], "detail": detail}


def measure_solutions(backend: ModelBackend, settings: Settings, row: dict, side: str, measured: dict, samples: SampleCache) -> dict:
    """The signals of the model's own solutions (``qualm.engine.solutions``) for a function measured
    before without them: its tests are those of ``measured`` (a full run's result), so the plans and
    tests need not be decoded again; the solutions decode in their own batch, as in an assessment,
    so the values are those an assessment computes. Also says whether the candidate's verdicts are
    the full run's (they must be: the probes do not change a verdict)."""
    fn = PYTHON.find_function(prepared(row[side], row), row["entry_point"], row["pair_id"])
    short = fn.name.split(".")[-1]
    tests = [t for t, _ in measured["detail"]["tests"]]
    t0 = time.perf_counter()
    values: dict[str, float | None] = {"functional_weighted": None, "agreement": None, "differential": None}
    detail: dict = {"tests": len(tests)}
    if tests:
        f = settings.functional
        config = SandboxConfig(timeout=f.timeout, memory_mb=f.memory_mb, mode=f.sandbox_mode)
        probes = run_probes(fn.program, tests, short, config)
        plans = measured["detail"].get("plans") or []
        jobs = solutions_of(fn.problem_description, plans, settings, PYTHON)
        solved = check_against_solutions(backend, fn.problem_description, short, probes, settings, PYTHON, config, samples, program=fn.program, jobs=jobs)
        values = {"functional_weighted": solved.weighted, "agreement": solved.agreement, "differential": solved.differential}
        if among := programs_among(jobs):
            # the plans' programs among them, as an assessment reads them back (SampleCache)
            programs = check_against_solutions(
                backend, fn.problem_description, short, probes, settings, PYTHON, config, samples,
                jobs=checked_programs(fn.problem_description, plans, settings, PYTHON, among), label="programs of the plans",
            )
            values |= {"plan_agreement": programs.agreement, "plan_weighted": programs.weighted}
        detail.update({
            "verdicts_as_measured": [o.status for o in probes.outcomes] == [st for _, st in measured["detail"]["tests"]],
            "solutions": [[x.tokens, x.passed, x.ran, x.agreement] for x in solved.solutions],
            "disagreements": solved.disagreements,
            "differential": solved.differential_note,
            "differences": solved.differences[:10],
            "solutions_seconds": solved.seconds,
            "weights": solved.test_weights,
        })
    return {"pair_id": row["pair_id"], "side": side, "axes": "solutions", "seconds": time.perf_counter() - t0, "values": values, "detail": detail}


def measure_pairs(
    backend: ModelBackend,
    settings: Settings,
    rows: Sequence[dict],
    results_path: Path,
    lexical_only: bool = False,
    on_function: Callable[[int, dict, dict], None] | None = None,
    cancel: CancelToken | None = None,
) -> dict[tuple[str, str], dict]:
    """Both functions of every pair, read back from ``results_path`` where measured before."""
    results = read_results(results_path)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    samples = SampleCache()
    with open(results_path, "a") as out:
        for i, row in enumerate(rows):
            for side in SIDES:
                if cancel is not None and cancel.cancelled:
                    return results
                if (row["pair_id"], side) not in results:
                    v = measure(backend, settings, row, side, samples, lexical_only, cancel)
                    results[(row["pair_id"], side)] = v
                    out.write(json.dumps(v) + "\n")
                    out.flush()
                if on_function is not None:
                    on_function(i, row, results[(row["pair_id"], side)])
    return results


def measure_again(
    rows: Sequence[dict],
    measured: Mapping[tuple[str, str], dict],
    out: Path,
    measure_one: Callable[[dict, str, dict], dict],
) -> Iterator[tuple[dict, str, dict]]:
    """Signals added later to the functions a full run measured: each side of each pair in ``rows``
    that ``measured`` holds for both sides and ``out`` does not yet, measured by
    ``measure_one(row, side, its full-run result)`` and appended to ``out`` as it finishes (so a
    run resumes); yields (row, side, result) for each new one."""
    done = read_results(out)
    with open(out, "a") as log:
        for row in rows:
            if not all((row["pair_id"], s) in measured for s in SIDES):
                continue
            for side in SIDES:
                key = (row["pair_id"], side)
                if key in done:
                    continue
                result = measure_one(row, side, measured[key])
                log.write(json.dumps(result) + "\n")
                log.flush()
                yield row, side, result
