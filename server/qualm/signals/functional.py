"""Functional uncertainty: how many of the model's own tests the candidate fails.

The model writes M assert statements as a JSON list (the paper's test prompt); each valid one runs
against the candidate in the sandbox (:mod:`qualm_sandbox`), where compile errors, runtime errors
and timeouts count as failures:

    U_func = 1 - passed / M_valid

with M_valid the number of distinct assert statements that parse (at most M). With no valid test
the axis is unavailable: ``uncertainty`` is None, never 0 or 1.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from qualm_sandbox import SandboxConfig, SandboxReport, SandboxUnavailable, run_tests

from .agreement import ProbeReport, run_probes

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)(?:```|$)", re.DOTALL)
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'')


@dataclass(frozen=True)
class ParsedTests:
    tests: list[str]
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (text, why)
    source: str = "none"  # how the list was read: json | python-literal | strings | lines | none


def parse_tests(text: str, limit: int = 10, function_name: str | None = None, setup: bool = False) -> ParsedTests:
    """Robustly read assert statements from the model's answer.

    Accepts code fences, prose around the list, a list cut off mid-way, single-quoted strings,
    strings wrapped in their own brackets or braces, objects whose values include the assert
    statement, and bare assert lines. Keeps statements that
    parse as exactly one ``assert``; drops duplicates (compared by their syntax tree, so spacing
    does not matter). Small models copy the prompt's example literally: with ``function_name``
    given, a call of the placeholder ``function_name(...)`` is read as a call of that function.
    With ``setup`` (a method's tests), simple statements and other asserts may come before the last
    assert on its line (``s = Stack(); s.push(1); assert s.pop() == 1``): a method's object is built first.
    """
    body = _unfenced(text)
    items, source = _read_list(body)
    if setup and (lines := _quoted_lines(body)) and len(lines) > sum(isinstance(x, str) and _invalid(x.strip(), True) is None for x in items):
        # a method's tests quote strings inside their JSON strings without escaping them
        # (`"obj = C(); assert obj.f("") == []"`): read line by line, the outer quotes dropped
        items, source = lines, "lines"
    items = [x for item in items for x in _flatten(item)]
    if function_name and function_name != _PLACEHOLDER:
        items = [_PLACEHOLDER_CALL.sub(function_name + "(", x) if isinstance(x, str) else x for x in items]
    if not items:
        items = [line.strip() for line in body.splitlines() if line.strip().startswith("assert")]
        source = "lines" if items else "none"
    kept: list[str] = []
    seen: set[str] = set()
    dropped: list[tuple[str, str]] = []
    for raw in items:
        if not isinstance(raw, str):
            dropped.append((repr(raw), "not a string"))
            continue
        stmt = raw.strip()
        why = _invalid(stmt, setup)
        if why:
            dropped.append((stmt, why))
            continue
        key = ast.dump(ast.parse(stmt))
        if key in seen:
            dropped.append((stmt, "duplicate"))
            continue
        seen.add(key)
        if len(kept) >= limit:
            dropped.append((stmt, f"beyond the first {limit}"))
            continue
        kept.append(stmt)
    return ParsedTests(kept, dropped, source)


_PLACEHOLDER = "function_name"
_PLACEHOLDER_CALL = re.compile(r"\bfunction_name\s*\(")


def _flatten(item):
    """["assert ..."] or {"assert ..."} inside the list: the strings they hold. An object such as
    {"assert statement": "assert f(3) == 7", "expected result": 7} (the 0.5B model writes these
    for about a third of MBPP 511-600): the assert statements among its values."""
    if isinstance(item, (list, tuple, set, frozenset)):
        inner = [x for x in item if isinstance(x, str)]
        return inner if inner and len(inner) == len(item) else [item]
    if isinstance(item, dict):
        asserts = [v for v in item.values() if isinstance(v, str) and v.lstrip().startswith("assert")]
        return asserts or [item]
    return [item]


def _unfenced(text: str) -> str:
    m = _FENCE.search(text)
    if m and "[" in m.group(1):
        return m.group(1)
    return text


def _read_list(body: str) -> tuple[list, str]:
    start = body.find("[")
    if start < 0:
        return [], "none"
    end = body.rfind("]")
    if end > start:
        candidate = body[start : end + 1]
        try:
            data = json.loads(candidate)
            if isinstance(data, list):
                return data, "json"
        except ValueError:
            pass
        try:
            data = ast.literal_eval(candidate)
            if isinstance(data, list):
                return data, "python-literal"
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            pass
    # A truncated or malformed list: take every complete string literal after the bracket.
    strings = []
    for m in _STRING.finditer(body, start):
        literal = m.group(0)
        if body[m.end() :].lstrip().startswith(":"):
            continue  # an object's key ("assert statement": ...), not a test
        try:
            value = json.loads(literal) if literal.startswith('"') else ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            strings.append(value)
    return strings, "strings" if strings else "none"


def _quoted_lines(body: str) -> list[str]:
    """Each line of a list that is one double-quoted item, ``"...",``, without its outer quotes, where
    that is a method's test (``_invalid(..., setup=True)``)."""
    out = []
    for line in body.splitlines():
        line = line.strip().rstrip(",").rstrip()
        if len(line) > 2 and line[0] == '"' and line[-1] == '"' and _invalid(line[1:-1].strip(), True) is None:
            out.append(line[1:-1].strip())
    return out


def calling_only(parsed: ParsedTests, function_name: str) -> ParsedTests:
    """The tests that call ``function_name`` (as ``f(...)`` or ``obj.f(...)``); the others are dropped
    with that reason. ``assert True`` or ``assert 1 == 1`` passes whatever the candidate does: counted,
    it only lowers the functional uncertainty of a wrong function."""
    kept, dropped = [], list(parsed.dropped)
    for stmt in parsed.tests:
        if _calls(ast.parse(stmt), function_name):
            kept.append(stmt)
        else:
            dropped.append((stmt, f"never calls {function_name}"))
    return ParsedTests(kept, dropped, parsed.source)


def _calls(tree: ast.AST, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == name) or (isinstance(f, ast.Attribute) and f.attr == name):
                return True
    return False


# what may come before a method's test's last assert: building the object, calling it, other asserts
_SETUP = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Assert)


def _invalid(stmt: str, setup: bool = False) -> str | None:
    if not setup and not stmt.startswith("assert"):
        return "not an assert statement"
    try:
        tree = ast.parse(stmt)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return "does not parse"
    if setup:
        if not tree.body or not isinstance(tree.body[-1], ast.Assert):
            return "does not end in an assert statement"
        if len(tree.body) > 8 or not all(isinstance(n, _SETUP) for n in tree.body[:-1]):
            return "more than simple statements before its assert"
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return "not a single assert statement"
    return None


@dataclass(frozen=True)
class FunctionalResult:
    uncertainty: float | None  # None: unavailable
    note: str  # what the number rests on, or why it is unavailable
    parsed: ParsedTests
    report: SandboxReport | None
    sandbox: str = ""  # the isolation that was active, or why there was none
    probes: ProbeReport | None = None  # with the answers of each call, when run as probes


def functional_uncertainty(
    candidate_preamble: str,
    parsed: ParsedTests,
    config: SandboxConfig | None = None,
    should_stop: Callable[[], bool] | None = None,
    function_name: str | None = None,
) -> FunctionalResult:
    """Run the parsed tests against the candidate (its imports and source) in the sandbox. With
    ``function_name``, each test also records what that function's calls answered
    (:func:`qualm.signals.agreement.run_probes`; the verdicts are the same)."""
    if not parsed.tests:
        reasons = sorted({why for _, why in parsed.dropped})
        why = f"; {', '.join(reasons)}" if reasons else ""
        return FunctionalResult(None, f"unavailable: the model wrote no usable assert statement ({len(parsed.dropped)} dropped{why})", parsed, None)
    probes = None
    try:
        if function_name is None:
            report = run_tests(candidate_preamble, parsed.tests, config, should_stop=should_stop)
        else:
            report = probes = run_probes(candidate_preamble, parsed.tests, function_name, config, should_stop=should_stop)
    except SandboxUnavailable as exc:
        return FunctionalResult(None, f"unavailable: {exc}", parsed, None, str(exc))
    total = len(report.outcomes)
    failed = total - report.passed
    note = f"{failed} of {total} self-tests failed"
    uncalled = sum(why.startswith("never calls") for _, why in parsed.dropped)
    if uncalled:
        note += f"; {uncalled} dropped: they never call the function"
    return FunctionalResult(1.0 - report.passed / total, note, parsed, report, report.isolation_note, probes)
