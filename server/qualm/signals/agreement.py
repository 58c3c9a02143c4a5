"""Behavioural agreement: does the code in the file do what the model's own solutions do?

The functional axis asks the model for tests with expected values; a 0.5B model gets many of those
values wrong, so a right function fails tests as often as a wrong one. The inputs of those tests
are still good questions. Here the model also writes K solutions of the problem (from the same
signature and docstring), and the candidate and each solution run every test's calls in the
sandbox, recording what each call of the function under test returned (or raised). Where the
model's solutions answer a question one way and the candidate another, the candidate (or the
solutions) are wrong there; a candidate that answers as most of them do is probably right. This is
the agreement half of CodeT's dual agreement (Chen et al., 2022), with the test inputs of the
functional axis as the probes:

    U_agree = 1 - mean over solutions k of (probes where solution k's answers equal the candidate's
                                            / probes both ran)

A probe is one test statement: its answers are the ordered values of the top-level calls of the
function it made (recursive calls are not recorded). Values are compared after normalisation:
floats to 6 decimals, sets and dicts in sorted order, bool as int (``==`` semantics), arrays and
frames (numpy, pandas, torch: what has ``shape`` and ``tolist``, or ``columns``, ``index`` and
``to_numpy``) by their type and every value (a 0-d one, ``np.int64(3)``, as its number), anything
else by its type and ``repr`` without addresses. A test that timed out or crashed before calling the
function leaves no answers: the probe is not compared for that pair.

An ``async def`` or a generator function under test is settled as its tests mean it: a call from
the test runs to its result (from async code in the test it is awaited there, and recorded then),
a generator's items become a list that is still an iterator. Its verdicts then differ from
``run_tests``'s, which the paper's evaluation keeps.
"""

from __future__ import annotations

import ast
import keyword
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from qualm_sandbox import SandboxConfig, SandboxReport, TestOutcome, run_tests

# Runs in the sandbox around one test. The function under test is replaced by a recorder that
# calls it and keeps what its top-level calls returned; the test then runs unchanged (its own
# verdict is the test's status) and the answers are written after a marker with a fresh nonce, so
# a test cannot forge them. Names start with __qualm so they cannot clash with the candidate's.
# A coroutine or generator function is settled as its tests mean it (``settle`` below).
_PROBE = '''
import sys as __qualm_sys
def __qualm_norm(v, depth=0):
    if depth > 8:
        return "..."
    if isinstance(v, bool):
        return repr(int(v))
    if isinstance(v, float):
        return repr(round(v, 6)) if v == v else "nan"
    if isinstance(v, (int, str, bytes, complex)) or v is None:
        return repr(v)
    if isinstance(v, (list, tuple)):
        return ("list" if type(v) is __qualm_yielded else type(v).__name__) + "[" + ",".join(__qualm_norm(x, depth + 1) for x in v) + "]"
    if isinstance(v, (set, frozenset)):
        return "set{" + ",".join(sorted(__qualm_norm(x, depth + 1) for x in v)) + "}"
    if isinstance(v, dict):
        return "dict{" + ",".join(sorted(__qualm_norm(k, depth + 1) + ":" + __qualm_norm(x, depth + 1) for k, x in v.items())) + "}"
    # Arrays and frames (numpy, pandas, torch ...) by their values: their repr elides the middle of
    # a large one, so two that differ there would look the same. A 0-d one (np.int64(3)) is its number.
    try:
        if hasattr(v, "shape") and callable(getattr(v, "tolist", None)):
            items = v.tolist()
            if not isinstance(items, list):
                return __qualm_norm(items, depth)
            index = [list(v.index)] if hasattr(v, "index") and not callable(v.index) else []
            return type(v).__name__ + __qualm_norm([*index, items], depth + 1)
        if hasattr(v, "columns") and hasattr(v, "index") and callable(getattr(v, "to_numpy", None)):
            return type(v).__name__ + __qualm_norm([list(v.columns), list(v.index), v.to_numpy().tolist()], depth + 1)
    except Exception:
        pass
    try:
        text = repr(v)
    except Exception:
        text = ""
    return type(v).__name__ + ":" + __qualm_re.sub(r" at 0x[0-9a-fA-F]+", "", text)
import re as __qualm_re
import hashlib as __qualm_hashlib
import functools as __qualm_functools
import itertools as __qualm_itertools
__qualm_write = __qualm_sys.__stdout__.write
__qualm_answers = []
__qualm_path = @NAME_LITERAL@.split(".")
if len(__qualm_path) == 1:
    __qualm_raw = globals()[__qualm_path[0]]
    def __qualm_put(value):
        globals()[__qualm_path[0]] = value
else:  # Class.method: the class's attribute, as the class holds it (a staticmethod stays one)
    __qualm_class = globals()[__qualm_path[0]]
    __qualm_raw = __qualm_class.__dict__[__qualm_path[1]]
    def __qualm_put(value):
        setattr(__qualm_class, __qualm_path[1], value)
__qualm_kind = type(__qualm_raw) if isinstance(__qualm_raw, (staticmethod, classmethod)) else None
__qualm_under_test = __qualm_raw.__func__ if __qualm_kind else __qualm_raw
__qualm_flags = getattr(getattr(__qualm_under_test, "__code__", None), "co_flags", 0)
class __qualm_yielded(list):
    # a generator's items: equal to the list a test compares them with, and still an iterator
    _at = 0
    def __next__(self):
        if self._at >= len(self):
            raise StopIteration
        self._at += 1
        return self[self._at - 1]
if __qualm_flags & 0x80:  # CO_COROUTINE: an async def
    import asyncio as __qualm_asyncio
    __qualm_asyncio_run = __qualm_asyncio.run
    def __qualm_run_settled(main, *args, **kwargs):
        # asyncio.run(f(x)) in a test: f(x) is settled already, its value passes through
        if hasattr(main, "__await__"):
            return __qualm_asyncio_run(main, *args, **kwargs)
        return main
    __qualm_asyncio.run = __qualm_run_settled
__qualm_later = object()
def __qualm_settle(value):
    # A test that calls an async def without awaiting means its result; one that compares a
    # generator's call with a list means its items. Returns what the test gets and what is
    # recorded (__qualm_later: recorded when the test awaits it, from async code).
    if __qualm_flags & 0x80 and hasattr(value, "__await__"):
        try:
            __qualm_asyncio.get_running_loop()
        except RuntimeError:
            value = __qualm_asyncio_run(value)
            return value, value
        return __qualm_awaited(value), __qualm_later
    if __qualm_flags & 0x20 and hasattr(value, "__next__"):  # CO_GENERATOR
        items = __qualm_yielded()
        for item in value:
            items.append(item)
            if len(items) > 10000:  # endless, or nearly: the test gets an iterator, not a list
                return __qualm_itertools.chain(items, value), items
        return items, items
    return value, value
async def __qualm_awaited(coro):
    try:
        value = await coro
    except Exception as exc:
        __qualm_record("raised " + type(exc).__name__, "raises " + type(exc).__name__)
        raise
    __qualm_record(__qualm_norm(value), __qualm_shown(value))
    return value
def __qualm_record(compared, shown):
    digest = __qualm_hashlib.sha1(compared.encode("utf-8", "replace")).hexdigest()[:16]
    __qualm_answers.append((digest, shown[:120]))
def __qualm_shown(value):
    try:
        return __qualm_re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    except Exception:
        return type(value).__name__
def __qualm_recorder(*args, **kwargs):
    # While the function runs, its name is the function itself again: its recursive calls are not
    # recorded and take no extra stack frame (a deep recursion fails exactly where it would).
    __qualm_put(__qualm_raw)
    try:
        value, recorded = __qualm_settle(__qualm_under_test(*args, **kwargs))
    except Exception as exc:
        __qualm_record("raised " + type(exc).__name__, "raises " + type(exc).__name__)
        raise
    finally:
        __qualm_put(__qualm_installed)
    if recorded is not __qualm_later:
        __qualm_record(__qualm_norm(recorded), __qualm_shown(recorded))
    return value
try:
    __qualm_functools.update_wrapper(__qualm_recorder, __qualm_under_test)
except Exception:
    pass
__qualm_installed = __qualm_kind(__qualm_recorder) if __qualm_kind else __qualm_recorder
if callable(__qualm_under_test):  # a property is read, not called: its tests run unrecorded
    __qualm_put(__qualm_installed)
try:
    exec(@TEST_LITERAL@)
finally:
    __qualm_write("\\n" + @MARKER_LITERAL@ + repr(__qualm_answers) + "\\n")
    __qualm_sys.__stdout__.flush()
'''


def probe(test: str, function_name: str, marker: str) -> str:
    """The test wrapped so that it also reports the answers of ``function_name``'s calls."""
    # str.replace, not str.format: the template is Python full of braces
    return (
        _PROBE.replace("@NAME_LITERAL@", repr(function_name))
        .replace("@TEST_LITERAL@", repr(test))
        .replace("@MARKER_LITERAL@", repr(marker))
    )


Answers = tuple[tuple[str, str], ...]  # (digest of the normalised value, its repr cut short) per top-level call, in order


@dataclass(frozen=True)
class ProbeOutcome(TestOutcome):
    """A test's outcome (``code`` is the test as the model wrote it, ``output`` what it printed, the
    marker line removed) with the answers of the function's calls."""

    answers: Answers | None = None  # None: the test left no answers (timeout, crash before any call)

    @property
    def ran(self) -> bool:
        """False for a test the run was stopped before (cancelled, or a solution out of time)."""
        return not (self.status == "error" and self.message.startswith("cancelled"))


@dataclass(frozen=True)
class ProbeReport(SandboxReport):
    """The sandbox's report of a probe run: its outcomes carry the answers."""

    outcomes: list[ProbeOutcome]  # type: ignore[assignment] - a narrower list of the same outcomes


def read_answers(output: str, marker: str) -> tuple[str, Answers | None]:
    """Split a probe's captured output into what the test printed and the recorded answers."""
    at = output.rfind("\n" + marker)
    if at < 0:
        return output, None
    line = output[at + 1 + len(marker) :].split("\n", 1)[0]
    try:
        raw = ast.literal_eval(line)
        answers = tuple((str(d), str(t)) for d, t in raw)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return output[:at], None
    return output[:at], answers


def run_probes(
    program: str,
    tests: Sequence[str],
    function_name: str,
    config: SandboxConfig | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ProbeReport:
    """Run each test against ``program`` in the sandbox, keeping its verdict and its answers.

    Raises :class:`qualm_sandbox.SandboxUnavailable` when no sandbox can run here."""
    # any Python identifier (``grüße`` is one), or Class.method: written into the probe only as a literal
    parts = function_name.split(".")
    if len(parts) > 2 or not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        raise ValueError(f"not a function name: {function_name!r}")
    marker = f"__qualm_answers_{secrets.token_hex(8)}__ "
    report = run_tests(program, [probe(t, function_name, marker) for t in tests], config, should_stop=should_stop)
    outcomes = []
    for test, o in zip(tests, report.outcomes):
        printed, answers = read_answers(o.output, marker)
        outcomes.append(ProbeOutcome(o.index, test, o.status, o.message, printed, o.seconds, answers))
    return ProbeReport(outcomes, report.isolation, report.isolation_note, report.seconds, report.runner_restarts, report.cancelled, report.details)


@dataclass(frozen=True)
class AgreementResult:
    uncertainty: float | None  # 1 - mean agreement; None: nothing could be compared
    per_solution: list[float | None]  # agreement with each of the model's solutions
    compared: int  # solutions with at least one probe compared
    note: str
    disagreements: list[tuple[str, str, str]]  # (test, the candidate's answer, the solutions' most common one)


def agreement(candidate: Sequence[ProbeOutcome], solutions: Sequence[Sequence[ProbeOutcome]]) -> AgreementResult:
    """How often the candidate's answers equal each solution's, probe by probe."""
    per: list[float | None] = []
    for sol in solutions:
        same = both = 0
        for c, s in zip(candidate, sol):
            if c.answers is None or s.answers is None:
                continue
            both += 1
            same += _digests(c.answers) == _digests(s.answers)
        per.append(same / both if both else None)
    used = [a for a in per if a is not None]
    if not solutions:
        return AgreementResult(None, per, 0, "unavailable: the model wrote no solution to compare with", [])
    if not used:
        return AgreementResult(None, per, 0, "unavailable: no test ran far enough to compare answers", [])
    mean = sum(used) / len(used)
    note = f"the code answers as the model's own solutions do on {mean:.0%} of the test inputs ({len(used)} solutions)"
    return AgreementResult(1.0 - mean, per, len(used), note, _disagreements(candidate, solutions))


@dataclass(frozen=True)
class WeightedResult:
    uncertainty: float | None  # None: no test passed by any solution (nothing to weigh by)
    weights: list[float]  # per test: the share of the model's solutions that pass it
    note: str


def weighted_functional(candidate: Sequence[ProbeOutcome], solutions: Sequence[Sequence[ProbeOutcome]]) -> WeightedResult:
    """The functional axis with each test weighted by the share of the model's solutions that pass
    it (the test half of CodeT's dual agreement): a test whose expected value none of the model's
    solutions reproduce is probably wrong itself, and counts for nothing.

        U_weighted = 1 - sum_t w_t [candidate passes t] / sum_t w_t
    """
    weights = []
    for i in range(len(candidate)):
        verdicts = [sol[i].status == "passed" for sol in solutions if i < len(sol) and sol[i].ran]
        weights.append(sum(verdicts) / len(verdicts) if verdicts else 0.0)
    total = sum(weights)
    if not solutions:
        return WeightedResult(None, weights, "unavailable: the model wrote no solution to weigh the tests by")
    if total <= 0:
        return WeightedResult(None, weights, "unavailable: none of the model's solutions passes any of its tests")
    passed = sum(w for w, c in zip(weights, candidate) if c.status == "passed")
    trusted = sum(w > 0 for w in weights)
    return WeightedResult(1.0 - passed / total, weights, f"{trusted} of {len(weights)} tests are passed by at least one of the model's {len(solutions)} solutions")


def _digests(answers: Answers) -> tuple[str, ...]:
    return tuple(d for d, _ in answers)


def same_answers(a: Answers, b: Answers) -> bool:
    """Equal by their normalised values (what was shown may be cut short)."""
    return _digests(a) == _digests(b)


def majority(answers: Sequence[Answers]) -> tuple[Answers, int] | None:
    """The most common answers among ``answers`` (compared by their normalised values), with how
    many gave them; None when there are none."""
    votes: dict[tuple[str, ...], list[Answers]] = {}
    for a in answers:
        votes.setdefault(_digests(a), []).append(a)
    if not votes:
        return None
    backers = max(votes.values(), key=len)
    return backers[0], len(backers)


def _disagreements(candidate: Sequence[ProbeOutcome], solutions: Sequence[Sequence[ProbeOutcome]]) -> list[tuple[str, str, str]]:
    """Tests where most solutions that answered agree with one another and not with the candidate:
    what a hover can show ("yours returns 4, the model's solutions 5")."""
    found = []
    for i, c in enumerate(candidate):
        if c.answers is None:
            continue
        theirs = [a for sol in solutions if i < len(sol) and (a := sol[i].answers) is not None]
        if (top := majority(theirs)) is None:
            continue
        answers, backers = top
        if not same_answers(answers, c.answers) and backers * 2 > len(theirs):
            found.append((c.code, _shown(c.answers), _shown(answers)))
    return found


def _shown(answers: Answers) -> str:
    return "; ".join(t for _, t in answers) or "(no call)"


