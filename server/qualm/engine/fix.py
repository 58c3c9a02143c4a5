"""A likely fix: a change of one line that makes the code pass more of its checks.

Candidates, from the assessment's teacher-forced pass and the model:

* **token**: at the body's ``functional.fix_positions`` least likely code tokens, each of the
  model's ``fix_alternatives`` likelier tokens at or above ``swap_floor`` (the token swaps'
  construction, ``qualm.signals.swaps.token_swaps``, with more places and alternatives);
* **line**: the suspect line (``qualm.signals.suspicion``) written again by the model from its
  indentation, a fill-in-the-middle completion that sees the code before and after the line, kept
  to one line.

Each candidate that still parses runs the checks: the docstring's examples and the model's tests,
as the code ran them. A candidate is offered only when it passes strictly more checks than the code
and changes one line; of those, the one that passes most, the earlier (more suspect) among equals.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from qualm_sandbox import SandboxConfig, SandboxUnavailable

from ..lang import FunctionSource, language_named
from ..model import CancelToken, ModelBackend
from ..settings import Settings, default_threads
from ..signals.agreement import run_probes
from ..signals.suspicion import SUSPECT_MEASURE, suspect_lines, visible_line
from ..signals.swaps import token_swaps
from ..trace import Trace
from .completion import CompletionOptions, complete
from .document import Document
from .solutions import sandbox_workers

CURSOR_MARK = "\ue000qualm-fix\ue000"  # a private-use character pair no source holds


@dataclass(frozen=True)
class FixCandidate:
    origin: str  # "token" (a likelier token) or "line" (the line written again)
    line: int  # 1-based, in the function's source
    start: int  # the replaced span, offsets in the function's source
    end: int
    replaced: str
    replacement: str
    source: str  # the function's source with the change


@dataclass(frozen=True)
class LikelyFix:
    candidate: FixCandidate
    line: int  # the document's line
    passed: int  # checks the fixed code passes
    base: int  # checks the code passes
    total: int
    newly_passing: tuple[str, ...]  # the checks it makes pass
    newly_failing: tuple[str, ...]  # the checks it breaks

    def describe(self) -> str:
        c = self.candidate
        change = f"'{c.replacement.strip()}' for '{c.replaced.strip()}'" if c.origin == "token" else f"the line written as `{c.replacement.strip()}`"
        return f"line {self.line}: {change} passes {self.passed} of {self.total} checks (the code passes {self.base})"


@dataclass(frozen=True)
class FixResult:
    fix: LikelyFix | None
    note: str
    tried: int  # candidates run
    seconds: float
    # The share of the checks the fix makes pass beyond the code's, a signal of the chance of passing
    # (qualm.chance: ``fix_gain``): 0 where checks ran and no one-line change passes more of them,
    # None where nothing could be checked (no check, the sandbox unavailable, cancelled).
    gain: float | None = None


def token_candidates(trace: Trace, fn: FunctionSource, settings: Settings, parses: Callable[[str], bool]) -> list[FixCandidate]:
    """The model's likelier tokens at the body's least likely code tokens, each a change of one line."""
    f = settings.functional
    out = []
    for s in token_swaps(trace, fn.source, fn.body_offset, f.fix_positions, f.fix_alternatives, f.swap_floor, parses):
        if "\n" in s.token.strip("\n") or "\n" in s.alternative.strip("\n") or s.alternative.count("\n") != s.token.count("\n"):
            continue  # a token that spans lines, or a change that adds or drops a line break
        out.append(FixCandidate("token", visible_line(fn.source, s.start, s.token), s.start, s.end, s.token, s.alternative, s.source))
    return out


def line_candidate(backend: ModelBackend, fn: FunctionSource, line: int, settings: Settings, cancel: CancelToken | None = None) -> FixCandidate | None:
    """``line`` (1-based in the function's source) written again by the model from its indentation:
    a FIM completion in the program with that line's code taken out, its first line kept."""
    lines = fn.source.split("\n")
    if not 1 <= line <= len(lines) or not lines[line - 1].strip():
        return None
    old = lines[line - 1]
    indent = old[: len(old) - len(old.lstrip())]
    # the program as the sandbox runs it (a method inside its class), the line's code taken out; a
    # marker finds the cursor wherever the program puts the function
    marked = fn.program_with("\n".join([*lines[: line - 1], indent + CURSOR_MARK, *lines[line:]]))
    cursor = marked.index(CURSOR_MARK)
    language = language_named(fn.language)
    c = complete(backend, Document(marked.replace(CURSOR_MARK, "", 1), "fix", language), cursor, settings, CompletionOptions(max_tokens=96), cancel=cancel, kind="fim")
    written = c.text.split("\n", 1)[0].rstrip()
    if not written.strip() or written.strip() == old.strip():
        return None
    start = sum(len(x) + 1 for x in lines[: line - 1]) + len(indent)
    source = "\n".join([*lines[: line - 1], indent + written.lstrip(), *lines[line:]])
    if language.parses is not None and not language.parses(source):
        return None
    return FixCandidate("line", line, start, start + len(old) - len(indent), old[len(indent) :], written.lstrip(), source)


def likely_fix(
    fn: FunctionSource,
    candidates: Sequence[FixCandidate],
    checks: Sequence[str],
    statuses: Sequence[str],
    config: SandboxConfig,
    cancel: CancelToken | None = None,
) -> FixResult:
    """Run ``checks`` (the examples' and the model's tests, whose verdicts on the code are
    ``statuses``) on each candidate; the fix, if one passes strictly more of them."""
    t0 = time.perf_counter()
    cancel = cancel or CancelToken()
    unique = list({c.source: c for c in candidates if c.source != fn.source}.values())
    if not checks or not unique:
        return FixResult(None, "no check to run" if not checks else "no candidate change", 0, time.perf_counter() - t0, None if not checks else 0.0)

    def run(source: str) -> list[str]:
        report = run_probes(fn.program_with(source), list(checks), fn.probe_name, config, should_stop=cancel.or_after(2 * config.timeout))
        return [o.status for o in report.outcomes]

    try:
        with ThreadPoolExecutor(max_workers=sandbox_workers(len(unique), default_threads())) as pool:
            verdicts = list(pool.map(run, [c.source for c in unique]))
    except SandboxUnavailable as exc:
        return FixResult(None, f"unavailable: {exc}", 0, time.perf_counter() - t0)
    if cancel.cancelled:
        return FixResult(None, "cancelled", len(unique), time.perf_counter() - t0)
    base = sum(s == "passed" for s in statuses)
    best: tuple[int, FixCandidate, list[str]] | None = None
    for c, v in zip(unique, verdicts):
        passed = sum(s == "passed" for s in v)
        if passed > base and (best is None or passed > best[0]):
            best = (passed, c, v)
    seconds = time.perf_counter() - t0
    if best is None:
        return FixResult(None, f"none of {len(unique)} one-line changes passes more of the {len(checks)} checks", len(unique), seconds, 0.0)
    passed, c, v = best
    gained = tuple(t for t, old, new in zip(checks, statuses, v) if old != "passed" and new == "passed")
    lost = tuple(t for t, old, new in zip(checks, statuses, v) if old == "passed" and new != "passed")
    fix = LikelyFix(c, fn.line + c.line - 1, passed, base, len(checks), gained, lost)
    return FixResult(fix, fix.describe(), len(unique), seconds, (passed - fix.base) / len(checks))


def try_fix(
    backend: ModelBackend,
    fn: FunctionSource,
    trace: Trace,
    checks: Sequence[str],
    statuses: Sequence[str],
    settings: Settings,
    config: SandboxConfig,
    parses: Callable[[str], bool],
    cancel: CancelToken | None = None,
) -> FixResult:
    """The fix step of an assessment: the candidates of ``fn`` (its likelier tokens, its suspect line
    written again where the model can fill in the middle) run on ``checks``, whose verdicts on the
    code are ``statuses``. Code that passes every check has nothing to gain and runs nothing."""
    f = settings.functional
    if all(st == "passed" for st in statuses):  # no check at all: nothing to run
        return FixResult(None, "the code passes every check" if checks else "no check to run", 0, 0.0, 0.0 if checks else None)
    candidates = token_candidates(trace, fn, settings, parses) if f.fix_positions > 0 else []
    suspects = suspect_lines(trace, fn.source, fn.body_offset, SUSPECT_MEASURE)
    if f.fix_line and suspects and backend.info.capabilities.infill:  # the line is written as a FIM completion
        line = line_candidate(backend, fn, suspects[0].line, settings, cancel)
        candidates += [line] if line is not None else []
    return likely_fix(fn, candidates, checks, statuses, config, cancel)
