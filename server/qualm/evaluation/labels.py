"""Official labels: a candidate program run against a problem's hidden tests in qualm's sandbox
(:func:`qualm_sandbox.run_tests`); never against tests a model wrote.

How a candidate is run
----------------------
The candidate is the complete program the model wrote. "check"/"asserts": it is loaded as a
module (``__name__`` is not ``"__main__"``), then each test runs in its namespace. "call": the
same, then ``fn_name(*args)`` (or ``Solution().fn_name(*args)`` when the program defines a
LeetCode-style ``Solution`` class) must return the expected value; tuples count as lists, and, as
in APPS's own checker, an expected value wrapped in a one-element list also matches unwrapped.
"stdio": the program runs as ``__main__`` with file descriptors 0 and 1 (and ``sys.stdin`` /
``sys.stdout``) on in-memory files holding the input and catching the output, so ``input()``,
``sys.stdin.read()``, ``open(0)`` and ``sys.stdout.buffer.write`` all work; ``sys.exit(0)`` ends
it normally. Output is compared token by token, whitespace-insensitively (like APPS's loose
checker); two differing tokens still match when both are numbers, at least one is not an
integer, and they agree to 1e-6 (absolute or relative). Integers must match exactly (APPS's
numpy ``allclose`` would accept 100000 for 100001; that is not copied). As in APPS's checker,
APPS programs run after a fixed header of standard-library imports (``typing.List``,
``collections``, ``heapq``, ``math`` ...), since many of APPS's own solutions rely on it; numpy is
not in the header (importing it under the sandbox's memory limit is slow and fragile). The code
that does this inside the sandbox is ``harness/stdio.py`` and ``harness/call.py``, package data
sent as text with each test.

A syntax error, any exception, a non-zero exit, a crash or a timeout fails the candidate. The
per-test timeout is the sandbox's (``SandboxConfig.timeout``, 4 s by default, as in the paper and
APPS). APPS test lists can be long, so at most ``max_tests`` (default
:data:`DEFAULT_MAX_TESTS` = 15, at most a minute of timeouts per problem) of a "stdio"/"call"
problem's cases run, spread evenly over its list and always including the first (the statement's
example); "check"/"asserts" tests always all run. With ``fail_fast`` (the default) tests run in
growing batches (1, 2, 4, ...) and stop at the first batch with a failure, so a wrong program that
hangs costs one timeout, not one per test.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.resources import files

from qualm_sandbox import SandboxConfig, TestOutcome, run_tests

from .problems import OfficialTests, Problem

DEFAULT_MAX_TESTS = 15
_DETAIL_CAP = 400

# Standard-library imports every APPS program runs after, as in APPS's own checker (which also
# imports numpy; see the module docstring).
APPS_HEADER = (
    "import sys, time, itertools, collections, math, fractions, random, heapq, bisect, string, re\n"
    "from itertools import accumulate, product, permutations, combinations\n"
    "from collections import Counter, OrderedDict, deque, defaultdict, ChainMap\n"
    "from functools import lru_cache, reduce\n"
    "from math import sqrt, sin, cos, tan, ceil, fabs, floor, gcd, exp, log, log2\n"
    "from typing import List, Tuple, Dict, Optional\n"
    "from heapq import *\n"
)


@dataclass(frozen=True)
class Label:
    passed: bool
    status: str  # "passed", "failed", "error", "timeout", "syntax_error", "cancelled"
    detail: str  # in words: what failed and why, or how many tests passed
    tests_total: int  # official tests the problem has
    tests_run: int  # how many ran (fewer under the cap or after an early failure)
    tests_passed: int
    seconds: float


def official_label(
    problem: Problem,
    code: str,
    config: SandboxConfig | None = None,
    *,
    max_tests: int | None = DEFAULT_MAX_TESTS,
    fail_fast: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> Label:
    """Run the complete program ``code`` against ``problem``'s official tests in the sandbox.

    Passed means every test that ran passed. ``max_tests`` caps "stdio"/"call" cases (None: all).
    Raises :class:`qualm_sandbox.SandboxUnavailable` when no sandbox can run here (a missing
    sandbox is an environment problem, not a wrong program).
    """
    if max_tests is not None and max_tests < 1:
        raise ValueError(f"max_tests must be at least 1 (or None for all), got {max_tests}")
    started = time.monotonic()
    total = problem.tests.count
    syntax = _syntax_error(code)
    if syntax is not None:
        return Label(False, "syntax_error", syntax, total, 0, 0, time.monotonic() - started)
    preamble, snippets = _sandbox_job(problem.tests, code, max_tests)
    run = passed = 0
    first_failure: tuple[str, str] | None = None  # (status, detail) of the first failing test
    for batch in _batches(len(snippets), fail_fast):
        report = run_tests(preamble, [snippets[i] for i in batch], config, should_stop)
        if report.cancelled:
            return Label(False, "cancelled", "stopped before all tests ran", total, run, passed, time.monotonic() - started)
        run += len(report.outcomes)
        passed += report.passed
        bad = next((o for o in report.outcomes if not o.passed), None)
        if bad is not None and first_failure is None:
            first_failure = (bad.status, _failure_detail(batch[bad.index], len(snippets), bad))
        if first_failure is not None and fail_fast:
            break
    seconds = time.monotonic() - started
    if first_failure is not None:
        return Label(False, first_failure[0], first_failure[1], total, run, passed, seconds)
    capped = f" (capped: {run} of {total})" if run < total else ""
    return Label(True, "passed", f"passed all {run} official tests{capped}", total, run, passed, seconds)


def _syntax_error(code: str) -> str | None:
    # Compiling does not run anything; it spares a sandbox start for code that cannot load.
    try:
        compile(code, "<candidate>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"syntax error: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return f"cannot compile: {type(exc).__name__}: {exc}"
    return None


def _batches(n: int, fail_fast: bool) -> Iterator[list[int]]:
    """Test indices in batches: all at once, or 1, 2, 4, ... so a failure stops early."""
    if not fail_fast:
        if n:
            yield list(range(n))
        return
    start, size = 0, 1
    while start < n:
        yield list(range(start, min(n, start + size)))
        start, size = start + size, size * 2


def _failure_detail(index: int, n: int, outcome: TestOutcome) -> str:
    text = f"test {index + 1} of {n} ({outcome.status}): {outcome.message or outcome.status}"
    return text if len(text) <= _DETAIL_CAP else text[:_DETAIL_CAP] + "…"


def _spread(n: int, cap: int | None) -> list[int]:
    """``cap`` indices spread evenly over ``range(n)``, the first always included."""
    if cap is None or n <= cap:
        return list(range(n))
    if cap == 1:
        return [0]
    return [i * (n - 1) // (cap - 1) for i in range(cap)]  # distinct: the step exceeds 1


@functools.cache
def harness(name: str) -> str:
    """The source of ``harness/<name>.py``: sandbox-side code, shipped as package data."""
    return files(__package__).joinpath("harness", f"{name}.py").read_text(encoding="utf-8")


def _sandbox_job(tests: OfficialTests, code: str, max_tests: int | None) -> tuple[str, list[str]]:
    """The sandbox's preamble and one snippet per test to run."""
    setup = tests.setup + "\n" if tests.setup.strip() else ""
    if tests.kind == "check":
        return code, [f"{setup}{tests.check}\n\ncheck({tests.entry_point})\n"]
    if tests.kind == "asserts":
        return code, [setup + a for a in tests.asserts]
    chosen = [tests.cases[i] for i in _spread(len(tests.cases), max_tests)]
    if tests.kind == "stdio":
        # The program runs inside each test, as __main__, so it is handed over as text.
        preamble = f"_QUALM_PROGRAM = {APPS_HEADER + code!r}\n"
        return preamble, [f"{harness('stdio')}\n_qualm_stdio(_QUALM_PROGRAM, {given!r}, {expected!r})\n" for given, expected in chosen]
    snippets = [
        f"{harness('call')}\n_qualm_call({tests.entry_point!r}, _qualm_json.loads({json.dumps(list(args))!r}), _qualm_json.loads({json.dumps(expected)!r}))\n"
        for args, expected in chosen
    ]
    return APPS_HEADER + code, snippets
