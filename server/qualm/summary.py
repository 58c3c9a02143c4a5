"""One assessment in sentences: what every front end says of it, built once.

The editor's hover and lens (``qualm.lsp.presentation``, Markdown) and the command line
(``qualm.cli.terminal``, rich text) render the same :class:`AssessmentSummary`: the facts as plain
values and the sentences about them, so that a paragraph is written once and reads the same
wherever it is shown. What differs is markup only: a title is bold in both, code in a sentence (a
:class:`Code` piece) is set in backticks in Markdown and printed as it is in a terminal, and a
front end may show fewer of a section's lines where it has less room.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .wording import CHANCE_BASIS, chance_words, ensemble_words

if TYPE_CHECKING:
    from .engine import Assessment
    from .engine.solutions import SolutionsResult


@dataclass(frozen=True)
class Code:
    """Code inside a sentence: a test, a call, an answer."""

    text: str


Piece = str | Code


@dataclass(frozen=True)
class Item:
    """One line of a section, and for a test or an example its verdict."""

    pieces: tuple[Piece, ...]
    status: str | None = None  # passed | failed | error | timeout; None: not something that ran
    failure: str | None = None  # "failed: AssertionError", where it did not pass


@dataclass(frozen=True)
class Section:
    """A part of the report: a title, what follows it (``text`` begins with its own punctuation), and
    its lines."""

    key: str  # plans, own_plan, examples, tests, solutions, varied, plan_programs, swaps
    title: str
    text: str
    items: tuple[Item, ...] = ()
    numbered: bool = False  # a plan's steps


@dataclass(frozen=True)
class AxisLine:
    """An axis as the tables show it: its numbers already in words."""

    name: str
    raw: str
    percentile: str
    weight_used: str
    seconds: str
    note: str  # what the number rests on, or why there is none


@dataclass(frozen=True)
class AssessmentSummary:
    function: str
    line: int
    model: str
    seconds: float
    chance: float | None  # the chance of passing
    chance_line: str | None  # "chance it passes: 62 %"
    chance_words: str | None  # what to do about it
    chance_said: str  # what the chance is, what it rests on and where it was measured; or why there is none
    ensemble: float | None
    ensemble_words: str
    ensemble_line: str | None  # "0.61 · uncertain"
    ensemble_said: str  # what the ensemble is
    calibration_note: str
    axes: tuple[AxisLine, ...]
    sections: tuple[Section, ...]
    sandbox: str  # the isolation the tests ran in
    dropped: str | None  # the model's tests that were dropped, where any were
    # The facts the lens names, beside the chance (qualm.lsp.presentation.lens_title).
    lexical_raw: float | None
    algorithmic_raw: float | None
    tests_failed: int | None  # None: no self-test ran
    tests_run: int
    functional_available: bool
    examples_failing: str | None  # the examples' note, where the code fails one
    unlike_inputs: int  # inputs where the code answers unlike most of the model's solutions
    better_swap: tuple[str, int] | None  # (the likelier token, its line) where a swap passes more tests
    suspect: int | None  # the likely fix's line, else the line the model least expected (assessment.suspects_of)

    def section(self, key: str) -> Section | None:
        return next((s for s in self.sections if s.key == key), None)


def summarize(a: Assessment) -> AssessmentSummary:
    """The summary of an assessment (``qualm.engine.assess_function``)."""
    failed = a.failed_tests()
    best = a.swaps.best if a.swaps is not None else None
    return AssessmentSummary(
        function=a.function,
        line=a.line,
        model=a.model,
        seconds=a.seconds,
        chance=a.chance_of_passing,
        chance_line=f"chance it passes: {100 * a.chance_of_passing:.0f} %" if a.chance_of_passing is not None else None,
        chance_words=chance_words(a.chance_of_passing, failed) if a.chance_of_passing is not None else None,
        chance_said=(
            f"The chance that the function passes its hidden tests, estimated from the signals below: {a.chance_note}. It was {CHANCE_BASIS}."
            if a.chance_of_passing is not None
            else f"No chance of passing: {a.chance_note}."
        ),
        ensemble=a.ensemble,
        ensemble_words=ensemble_words(a.ensemble),
        ensemble_line=f"{a.ensemble:.2f} · {ensemble_words(a.ensemble)}" if a.ensemble is not None else None,
        ensemble_said="(the paper's ensemble: weighted percentile against the model's reference problems)",
        calibration_note=a.calibration_note,
        axes=tuple(
            AxisLine(
                ax.name, number(ax.raw), percent(ax.percentile),
                f"{a.weights_used.get(ax.name, 0.0):.2f}" if a.weights_used else "—", f"{ax.seconds:.1f} s", ax.note,
            )
            for ax in a.axes()
        ),
        sections=_sections(a),
        sandbox=a.sandbox,
        dropped=f"self-tests: none usable; {len(a.dropped_tests)} dropped (e.g. {a.dropped_tests[0][1]})" if a.dropped_tests else None,
        lexical_raw=a.lexical.raw,
        algorithmic_raw=a.algorithmic.raw,
        tests_failed=failed,
        tests_run=len(a.tests),
        functional_available=a.functional.available,
        examples_failing=a.examples.note if a.examples is not None and a.examples.failing else None,
        unlike_inputs=len(a.solutions.disagreements) + len(a.solutions.differences) if a.solutions is not None else 0,
        better_swap=(best.swap.alternative.strip(), best.line_in(a.candidate, a.line)) if best is not None and best.gain > 0 else None,
        suspect=a.suspects[0].line if a.suspects else None,  # the likely fix's line first (assessment.suspects_of)
    )


def number(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def percent(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def _sections(a: Assessment) -> tuple[Section, ...]:
    sections: list[Section | None] = [
        _plans(a),
        _own_plan(a),
        _examples(a),
        _tests(a),
        *_solutions(a.solutions),
        _plan_programs(a.plan_programs),
        _swaps(a),
        _suspects(a),
        _fix(a),
    ]
    return tuple(s for s in sections if s is not None)


def _steps(steps: list[str]) -> tuple[Item, ...]:
    return tuple(Item((s,)) for s in steps)


def _plans(a: Assessment) -> Section | None:
    if not a.plans:
        return None
    lengths = [len(p.steps) for p in a.plans]
    return Section("plans", "Plans", f" ({len(a.plans)} sampled, {min(lengths)}–{max(lengths)} steps); the first:", _steps(a.plans[0].steps), numbered=True)


def _own_plan(a: Assessment) -> Section | None:
    if a.candidate_plan is None or not a.candidate_plan.steps:
        return None
    far = f"{a.candidate_distance:.2f} from the sampled plans (0: the same steps, 1: nothing in common)" if a.candidate_distance is not None else "not comparable"
    return Section("own_plan", "The code's own plan", f", as the model reads the function: {far}", _steps(a.candidate_plan.steps), numbered=True)


def _failure(status: str, message: str) -> str | None:
    return None if status == "passed" else f"{status}: {message}"


def _examples(a: Assessment) -> Section | None:
    if a.examples is None or not a.examples.outcomes:
        return None
    items = tuple(Item((Code(o.example.call), " → ", Code(o.example.expected)), o.status, _failure(o.status, o.message)) for o in a.examples.outcomes)
    return Section("examples", "The docstring's examples", f" (written by the function's author, not the model; run as tests): {a.examples.note}", items)


def _tests(a: Assessment) -> Section | None:
    if not a.tests:
        return None
    sol = a.solutions
    weights = sol.test_weights if sol is not None and len(sol.test_weights) == len(a.tests) else None
    passed = sum(t.status == "passed" for t in a.tests)
    text = f": {passed} of {len(a.tests)} passed"
    if weights is not None and sol is not None:
        text += f"; in brackets, how many of the model's {len(sol.solutions)} own solutions pass each (a test none passes probably expects the wrong value)"
    items = []
    for i, t in enumerate(a.tests):
        share = f" ({round(weights[i] * len(sol.solutions))}/{len(sol.solutions)})" if weights is not None and sol is not None else ""
        items.append(Item((Code(_one_line(t.code)), share), t.status, _failure(t.status, t.message)))
    return Section("tests", "Self-tests", text, tuple(items))


def _one_line(code: str) -> str:
    return code.replace("\n", " ⏎ ")


def _unlike(found: list[tuple[str, str, str]], whose: str) -> tuple[Item, ...]:
    """Where the code answers otherwise: (a test or call, the code's answer, ``whose`` answer)."""
    return tuple(Item((Code(_one_line(test)), ": this code gives ", Code(mine), f", most of {whose} ", Code(theirs))) for test, mine, theirs in found)


def _solutions(sol: SolutionsResult | None) -> list[Section | None]:
    if sol is None or not sol.solutions:
        return []
    origin = f"; the first from the problem, the other {sol.from_plans} its sampled plans written as code" if sol.from_plans else ""
    text = f" ({len(sol.solutions)}{origin}): {sol.agreement_note}; tests weighted by them: {number(sol.weighted)} ({sol.weighted_note})"
    solutions = Section("solutions", "The model's own solutions", text, _unlike(sol.disagreements[:5], "the model's solutions"))
    if sol.differential_note == "off":
        return [solutions]
    varied = Section("varied", "Varied inputs", f" (the tests' inputs changed by type): {sol.differential_note}", _unlike(sol.differences[:5], "the model's solutions"))
    if not sol.consistent_from_examples:
        return [solutions, varied]
    # the solutions that agree with the author's examples: the witnesses where the examples pass
    text = f" (inputs of the tests and of the docstring's examples, changed by type): {sol.consistent_note}; tests weighted by them: {number(sol.consistent_weighted)}"
    consistent = Section("consistent", "Solutions that pass the docstring's examples", text, _unlike(sol.consistent_differences[:5], "them"))
    return [solutions, varied, consistent]


def _plan_programs(progs: SolutionsResult | None) -> Section | None:
    if progs is None or not progs.solutions:
        return None
    passing = ", ".join(f"{p.passed}/{p.ran}" for p in progs.solutions)
    text = f" (each sampled plan written as code by the model and run on the self-tests; tests passed: {passing}): {progs.answers_as()}; tests weighted by them: {number(progs.weighted)}"
    return Section("plan_programs", "The plans as programs", text, _unlike(progs.disagreements[:3], "the plans' programs"))


def _suspects(a: Assessment) -> Section | None:
    if not a.suspects:
        return None
    items = tuple(Item((f"line {x.line}: {x.describe()}",)) for x in a.suspects)
    return Section("suspects", "Suspect lines", " (the body's lines whose code the model least expected, read token by token: its surprise at the token beyond its own uncertainty there; where to look first, not a verdict)", items)


def _fix(a: Assessment) -> Section | None:
    if a.fix is None or a.fix.fix is None:
        return None
    f = a.fix.fix
    items = tuple(Item((f"now passes: {t}",)) for t in f.newly_passing[:4]) + tuple(Item((f"now fails: {t}",)) for t in f.newly_failing[:2])
    return Section("fix", "Likely fix", f" (of {a.fix.tried} one-line changes the model suggests, run on the docstring's examples and the self-tests): {f.describe()}", items)


def _swaps(a: Assessment) -> Section | None:
    if a.swaps is None or not a.swaps.outcomes:
        return None
    items = tuple(Item((f"line {o.line_in(a.candidate, a.line)}: {o.describe()}",)) for o in a.swaps.ranked()[:4])
    return Section("swaps", "Token swaps", f" (the model's likelier token at the code's least likely places, run on the self-tests): {a.swaps.note}", items)
