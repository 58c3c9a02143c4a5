"""The examples a function's docstring gives, as tests: the one specification in the file that a
person wrote, not the model.

The model's tests are guesses (the 0.5B model gets many expected values wrong, which is why the
functional axis weighs them by its own solutions). An example in the docstring is the author's
statement of what the function returns, so a function that fails one is very likely wrong: of the
tune split's 195 HumanEval pairs, 151 have an example; 141 of their 151 mutants fail one and 147 of
the 151 right functions pass all of theirs (``benchmarks/assessment/docstring_examples.py``). MBPP's
tasks state one example as an ``assert`` line (the evaluation's prompt, after Austin et al.: the
task's first test): 480 of its 485 tune pairs have one, every right function passes it and 429
mutants fail it. Before that form was read (2026-11-28), MBPP functions never had the signal.

Three forms are read, each only where it calls the function and its expected value is a Python
literal and its arguments are literals (so prose or a name is never taken for a value):

* doctest: ``>>> f(1, 2)`` followed by the line ``3`` (a ``print(...)`` or an exception is skipped:
  its output is not a value);
* an example line: ``f(1, 2) == 3``, ``f(1, 2) ==> 3``, ``f(1, 2) ➞ 3``, ``f(1, 2) -> 3``,
  ``f(1, 2) => 3``, ``f(1, 2) = 3``, ``f(1, 2) returns 3``, ``f(1, 2) should return 3``;
* an assert line: ``assert f(1, 2) == 3`` (or ``assert 3 == f(1, 2)``; a message after a comma is
  ignored); any other assert (``assert f(x)``, ``assert set(f(x)) == ...``) is not an example.

Each becomes one ``assert`` statement; a float is compared within 1e-6 (a docstring rounds).

    examples_failed = failed / examples      (None without an example)
"""

from __future__ import annotations

import ast
import doctest
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from qualm_sandbox import SandboxConfig, SandboxUnavailable, run_tests

_PARSER = doctest.DocTestParser()
_SEPARATORS = ("should return", "returns", "==>", "=>", "->", "➞", "→", "==", "=")
_LEADING = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+|(?:for\s+)?examples?\s*:?\s*)?", re.IGNORECASE)
_SEPARATOR = re.compile("|".join(re.escape(s) for s in _SEPARATORS))
FLOAT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class DocExample:
    call: str  # the call, as Python reads it (comments and spacing dropped): f(1, 2)
    expected: str  # the expected value, likewise: 3
    line: int  # 1-based line of the example within the docstring
    form: str  # doctest | line | assert

    @property
    def test(self) -> str:
        """One ``assert`` statement; floats compared within FLOAT_TOLERANCE."""
        value = ast.literal_eval(self.expected)
        if isinstance(value, float):
            return f"assert abs(({self.call}) - ({self.expected})) <= {FLOAT_TOLERANCE} * max(1.0, abs({self.expected}))"
        return f"assert ({self.call}) == ({self.expected})"


def docstring_examples(docstring: str | None, function_name: str) -> list[DocExample]:
    """The examples of ``docstring`` that call ``function_name`` with a literal expected value, in
    order, without repeats (the same call and value written twice counts once)."""
    if not docstring:
        return []
    found = _doctests(docstring, function_name) + _example_lines(docstring, function_name) + _assert_lines(docstring, function_name)
    found.sort(key=lambda e: e.line)
    kept: list[DocExample] = []
    seen: set[tuple[str, str]] = set()
    for e in found:
        key = (ast.dump(ast.parse(e.call, mode="eval")), ast.dump(ast.parse(e.expected, mode="eval")))
        if key not in seen:
            seen.add(key)
            kept.append(e)
    return kept


def examples_failed(statuses: Sequence[str]) -> float | None:
    """The share of the examples the function did not pass (an error or a timeout fails)."""
    if not statuses:
        return None
    return sum(s != "passed" for s in statuses) / len(statuses)


def _doctests(docstring: str, name: str) -> list[DocExample]:
    out = []
    try:
        examples = _PARSER.get_examples(docstring)
    except ValueError:  # inconsistent indentation: the example lines below may still read it
        return []
    for ex in examples:
        call, want = ex.source.strip(), ex.want.strip()
        if not _is_literal(want):
            # doctest's output runs to the next blank line: prose or an example line right under the
            # value is not part of it
            want = want.split("\n", 1)[0].strip()
        if "\n" in call or not _is_call_of(call, name) or not _is_literal(want):
            continue
        out.append(DocExample(_canonical(call), _canonical(want), ex.lineno + 1, "doctest"))
    return out


def _example_lines(docstring: str, name: str) -> list[DocExample]:
    out = []
    for i, raw in enumerate(docstring.splitlines(), start=1):
        line = _LEADING.sub("", raw, count=1).strip().rstrip(".,;")
        if not line.startswith(name + "(") or line.startswith(">>>"):
            continue
        for m in _SEPARATOR.finditer(line):
            call, want = line[: m.start()].strip(), line[m.end() :].strip()
            if _is_call_of(call, name) and _is_literal(want):
                out.append(DocExample(_canonical(call), _canonical(want), i, "line"))
                break
    return out


def _assert_lines(docstring: str, name: str) -> list[DocExample]:
    out = []
    for i, raw in enumerate(docstring.splitlines(), start=1):
        line = raw.strip()
        if not line.startswith("assert"):
            continue
        try:
            node = ast.parse(line, mode="exec").body[0]
        except (SyntaxError, IndexError):
            continue
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)):
            continue
        compare = node.test
        if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Eq):
            continue
        sides = [ast.unparse(compare.left), ast.unparse(compare.comparators[0])]
        for call, want in (sides, sides[::-1]):
            if _is_call_of(call, name) and _is_literal(want):
                out.append(DocExample(_canonical(call), _canonical(want), i, "assert"))
                break
    return out


def _is_call_of(text: str, name: str) -> bool:
    """A call of ``name`` whose arguments are all literals (``is_happy(a)`` names no value)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
        return False
    return all(_is_literal(ast.unparse(a)) for a in [*node.args, *(k.value for k in node.keywords)]) and all(k.arg for k in node.keywords)


def _canonical(text: str) -> str:
    # what is left of the text as Python reads it: a trailing comment or odd spacing goes
    return ast.unparse(ast.parse(text, mode="eval"))


def _is_literal(text: str) -> bool:
    if not text:
        return False
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


@dataclass(frozen=True)
class ExampleOutcome:
    example: DocExample
    status: str  # passed | failed | error | timeout
    message: str


@dataclass(frozen=True)
class ExamplesResult:
    outcomes: list[ExampleOutcome]
    failed: float | None  # examples_failed; None without an example or a sandbox
    note: str
    seconds: float = 0.0

    @property
    def failing(self) -> list[ExampleOutcome]:
        return [o for o in self.outcomes if o.status != "passed"]


def check_examples(program: str, docstring: str | None, function_name: str, config: SandboxConfig, should_stop: Callable[[], bool] | None = None) -> ExamplesResult:
    """Run the docstring's examples of ``function_name`` against ``program`` (the function as it runs:
    its imports and the file's definitions it uses) in the sandbox."""
    t0 = time.perf_counter()
    found = docstring_examples(docstring, function_name)
    if not found:
        return ExamplesResult([], None, "the docstring gives no example to run", time.perf_counter() - t0)
    try:
        report = run_tests(program, [e.test for e in found], config, should_stop=should_stop)
    except SandboxUnavailable as exc:
        return ExamplesResult([], None, f"unavailable: {exc}", time.perf_counter() - t0)
    outcomes = [ExampleOutcome(e, o.status, o.message) for e, o in zip(found, report.outcomes)]
    failed = examples_failed([o.status for o in outcomes])
    bad = sum(o.status != "passed" for o in outcomes)
    n = len(outcomes)
    which = f"the docstring's {n} examples" if n > 1 else "the docstring's example"
    note = (f"fails {bad} of {which}" if n > 1 else f"fails {which}") if bad else f"passes {which}"
    return ExamplesResult(outcomes, failed, note, time.perf_counter() - t0)
