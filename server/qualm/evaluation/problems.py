"""An evaluation problem: what the model is given, and the hidden tests that decide whether the
program it wrote is correct (the loaders in ``datasets`` build them; ``labels`` runs the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

TestKind = Literal["check", "asserts", "stdio", "call"]


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
