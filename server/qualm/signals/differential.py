"""Differential testing against the model's own solutions, on inputs made from its tests' inputs.

The model's tests ask a handful of questions; a one-token slip (``<`` for ``<=``, ``+ 1`` too many)
often answers all of them as the right code would. Here the literal arguments of the tests' calls
of the function are mutated by type (an int one up or down, a list one shorter or reversed, a string
emptied...: EvalPlus's type-aware input mutation, Liu et al., 2023), and the code in the file and
each of the model's solutions answer every new call in the sandbox. No expected value is needed:
where most solutions give one answer (two thirds of those that answered, at least two of them) and
the code another, the code is probably wrong there.

    U_differential = (inputs where the code's answer differs from the solutions' majority)
                     / (inputs with such a majority that the code answered)

An input the solutions do not agree on (an input outside the problem's domain, where each
solution does something else) says nothing and is left out. A call that raises answers "raises
<exception>", so raising where the solutions return is a difference too.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .agreement import Answers, ProbeOutcome, majority, same_answers

MAJORITY = 2 / 3  # share of the answering solutions that must agree for an input to count
MAX_REPR = 400  # characters: inputs larger than this are not mutated (nor written out again)
BIG_INT = 10_000  # ints beyond this are not doubled (a loop to n would run long)


def call_arguments(tests: Sequence[str], function_name: str) -> list[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]]:
    """The literal arguments of every call of ``function_name`` in the tests, in order, without
    repeats; a call with a non-literal argument (a name, an expression) is skipped."""
    found: list[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]] = []
    seen: set[str] = set()
    for test in tests:
        try:
            tree = ast.parse(test)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function_name):
                continue
            try:
                args = tuple(ast.literal_eval(a) for a in node.args if not isinstance(a, ast.Starred))
                kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg is not None)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if len(args) != len(node.args) or len(kwargs) != len(node.keywords):
                continue  # *args or **kwargs
            key = repr((args, kwargs))
            if key not in seen and len(key) <= MAX_REPR:
                seen.add(key)
                found.append((args, kwargs))
    return found


def mutations(value: Any) -> list[Any]:
    """Type-aware neighbours of one argument value (none for a type it does not know)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        out = [value + 1, value - 1, 0, -value]
        if abs(value) <= BIG_INT:
            out.append(2 * value)
        return out
    if isinstance(value, float):
        return [value + 1.0, value - 1.0, 0.0, -value, value * 2, value / 2]
    if isinstance(value, str):
        out = ["", value[1:], value[:-1], value[::-1], value + value[-1:], value.upper(), value.lower(), value + " "]
        return out
    if isinstance(value, (list, tuple)):
        kind = type(value)
        items = list(value)
        out: list[Any] = [kind(), kind(items[1:]), kind(items[:-1]), kind(items[::-1]), kind(items + items[-1:])]
        try:
            out.append(kind(sorted(items)))
        except TypeError:
            pass
        for i, item in enumerate(items[:8]):  # one element changed, for the first few positions
            for m in mutations(item)[:2]:
                out.append(kind(items[:i] + [m] + items[i + 1 :]))
        return out
    return []


def mutated_calls(seeds: Sequence[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]], function_name: str, n: int, seed: int = 0) -> list[str]:
    """Up to ``n`` new calls of the function, as statements (``f(1, [2, 3])``), each a seed call with
    one argument mutated; in a seeded random order, none equal to a seed or to each other."""
    rng = random.Random(seed)
    seen = {repr(s) for s in seeds}
    pool: list[tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]] = []
    for args, kwargs in seeds:
        for i, a in enumerate(args):
            for m in mutations(a):
                pool.append((args[:i] + (m,) + args[i + 1 :], kwargs))
        for j, (k, v) in enumerate(kwargs):
            for m in mutations(v):
                pool.append((args, kwargs[:j] + ((k, m),) + kwargs[j + 1 :]))
    rng.shuffle(pool)
    calls: list[str] = []
    for args, kwargs in pool:
        key = repr((args, kwargs))
        if key in seen or len(key) > MAX_REPR:
            continue
        seen.add(key)
        text = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs])
        calls.append(f"{function_name}({text})")
        if len(calls) >= n:
            break
    return calls


@dataclass(frozen=True)
class DifferentialResult:
    uncertainty: float | None  # share of the decided inputs where the code differs; None: none decided
    inputs: int  # mutated inputs run
    decided: int  # inputs where the solutions agree and the code answered
    note: str
    differences: list[tuple[str, str, str]]  # (call, the code's answer, the solutions' majority answer)


def _answer(outcome: ProbeOutcome | None) -> Answers | None:
    """The answer to a varied call (a statement making one call): None if it gave none in time, or
    the call was not asked."""
    return outcome.answers[:1] if outcome is not None and outcome.ran and outcome.answers else None


def answered(outcomes: Sequence[ProbeOutcome]) -> list[int]:
    """The indices of the varied calls that got an answer in time."""
    return [i for i, o in enumerate(outcomes) if _answer(o) is not None]


def spread(outcomes: Sequence[ProbeOutcome], asked: Sequence[int], n: int) -> list[ProbeOutcome | None]:
    """Outcomes of the calls at indices ``asked`` placed back among ``n`` calls (None: not asked)."""
    placed: list[ProbeOutcome | None] = [None] * n
    for i, outcome in zip(asked, outcomes):
        placed[i] = outcome
    return placed


def differential(calls: Sequence[str], candidate: Sequence[ProbeOutcome], solutions: Sequence[Sequence[ProbeOutcome | None]]) -> DifferentialResult:
    """Compare the code's answer to each call with the solutions' majority answer."""
    decided = differ = 0
    differences: list[tuple[str, str, str]] = []
    for i, call in enumerate(calls):
        mine = _answer(candidate[i]) if i < len(candidate) else None
        theirs = [a for sol in solutions if i < len(sol) and (a := _answer(sol[i])) is not None]
        if mine is None or len(theirs) < 2:
            continue
        answers, backers = majority(theirs) or ((), 0)
        if backers < MAJORITY * len(theirs):
            continue
        decided += 1
        if not same_answers(mine, answers):
            differ += 1
            differences.append((call, mine[0][1], answers[0][1]))
    if not calls:
        return DifferentialResult(None, 0, 0, "unavailable: the tests have no literal inputs to vary", [])
    if not decided:
        return DifferentialResult(None, len(calls), 0, f"unavailable: the model's solutions agree on none of the {len(calls)} varied inputs", [])
    note = f"the code answers otherwise than most of the model's solutions on {differ} of {decided} varied inputs"
    return DifferentialResult(differ / decided, len(calls), decided, note, differences)
