"""Run the code's tests on its token swaps (:mod:`qualm.signals.swaps`) in the sandbox.

The swaps come from the lexical pass's trace (no model work); each variant runs the same tests as
the code, all at once on a pool of one worker per core, each within twice the per-test limit (a
swap that makes the code loop is not worth the wait: the tests it did not reach count as failed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from qualm_sandbox import SandboxConfig, SandboxUnavailable

from ..lang import FunctionSource
from ..model import CancelToken
from ..settings import Settings, default_threads
from ..signals.agreement import run_probes
from ..signals.swaps import SwapResult, swap_gain, token_swaps
from ..trace import Trace
from .solutions import sandbox_workers


def check_swaps(
    fn: FunctionSource,
    trace: Trace,
    tests: Sequence[str],
    statuses: Sequence[str],
    weights: Sequence[float] | None,
    settings: Settings,
    config: SandboxConfig,
    parses: Callable[[str], bool],
    cancel: CancelToken | None = None,
) -> SwapResult:
    """``trace``: the teacher-forced trace of ``fn.source``; ``tests`` and ``statuses``: the code's
    tests and its verdicts on them; ``weights``: the solutions' share passing each test (or None)."""
    t0 = time.perf_counter()
    cancel = cancel or CancelToken()
    f = settings.functional
    if f.swap_positions <= 0:
        return SwapResult(None, "off (functional.swap_positions is 0)", [], None)
    if not tests:
        return SwapResult(None, "no tests to run the swaps on", [], None)
    swaps = token_swaps(trace, fn.source, fn.body_offset, f.swap_positions, f.swap_alternatives, f.swap_floor, parses)

    def run(source: str) -> list[str]:
        # run as the code's own tests ran (run_probes): an async def or a generator is settled alike
        report = run_probes(fn.program_with(source), list(tests), fn.probe_name, config, should_stop=cancel.or_after(2 * config.timeout))
        return [o.status for o in report.outcomes]

    try:
        with ThreadPoolExecutor(max_workers=sandbox_workers(len(swaps), default_threads())) as pool:
            runs = [pool.submit(run, s.source) for s in swaps]
            verdicts = [r.result() for r in runs]
    except SandboxUnavailable as exc:
        return SwapResult(None, f"unavailable: {exc}", [], None, seconds=time.perf_counter() - t0)
    if cancel.cancelled:
        return SwapResult(None, "cancelled", [], None, seconds=time.perf_counter() - t0)
    return replace(swap_gain(statuses, list(zip(swaps, verdicts)), weights), seconds=time.perf_counter() - t0)
