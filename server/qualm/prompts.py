"""The paper's prompts (appendix A), as chat messages plus a pre-filled assistant turn.

The paper's assistant turn starts with ``<think></think>``, which is how Qwen3's template
switches thinking off. Models whose chat template has no thinking mode (Qwen2.5-Coder, the
default) would see it as literal text, so it is added only when the template knows ``<think>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

CODE_FENCE = "```"

CODE_GENERATION = """Complete the following {language} Code:

{problem_description}

Output only the complete code with brief comments, when you output ```,
the code should be complete and executable and you should stop immediately."""

CODE_GENERATION_PREFILL = "Here are the complete codes for this problem:\n```{fence}\n"


# The paper's plan format (its appendix), shared with the candidate plan below.
PLAN_FORMAT = """Write a solution plan with 6-10 numbered steps that:
{what}
- Explains what needs to be done and why
- Uses natural language like "examine each item", "keep track of",
  "compare values"
- Avoids programming constructs (no "for", "while", "if-else",
  variable assignments)
- Focuses on the logical flow: "first do X, then check Y, finally return Z"

Output the plan directly."""

PLAN_GENERATION = """Read the problem and describe the solution logic in a step-by-step plan.

Problem:
{problem_description}

""" + PLAN_FORMAT.replace("{what}", "- Describes the core algorithm logic and reasoning")

PLAN_GENERATION_PREFILL = "Solution plan:\n"

# Not the paper's: the candidate's own plan, in the paper's plan format, so that the algorithmic axis
# can compare the code in the file with the plans the model samples for the problem.
CANDIDATE_PLAN = """Read the problem and the code that solves it, and describe the code's solution logic in a step-by-step plan.

Problem:
{problem_description}

Code:
```{fence}
{candidate}
```

""" + PLAN_FORMAT.replace("{what}", "- Describes what this code does, in order, including its mistakes if it has any")

TEST_GENERATION = """Generate {num_test_cases} DIFFERENT test cases for this function.
DO NOT implement the function.

Function Specification:
{problem_description}

Requirements:
1. Generate exactly {num_test_cases} diverse test cases as valid Python
   assert statements
2. Use the exact function name and parameters from the specification
3. Cover different scenarios: edge cases, normal cases, boundary conditions
4. Output ONLY valid JSON array with {num_test_cases} assert statements

JSON format:
[
    "assert function_name(args1) == expected1",
    "assert function_name(args2) == expected2",
    ...
]

Output only the JSON, when you output ```, the JSON should be complete
and you should stop immediately."""

TEST_GENERATION_PREFILL = "Here are the test cases in JSON format:\n```json\n"


@dataclass(frozen=True)
class ChatPrompt:
    """A user message and the start of the assistant's reply; generation continues the reply."""

    user: str
    assistant_prefix: str
    stop: tuple[str, ...] = (CODE_FENCE,)
    name: str = "custom"
    # Where the answer is complete in its format (qualm.answer_ends); decoding stops there. Records
    # after that point are cut, so a prompt with a rule is not one whose tokens are streamed.
    ends: Callable[[str], int | None] | None = None
    ending: Any = None  # a text_stream.Ending (see InfillPrompt); None for the paper's prompts


@dataclass(frozen=True)
class ContextChunk:
    """Code from elsewhere that a fill-in-the-middle prompt shows before the file: another open
    document, or a region edited lately. ``filename`` is how the model is told where it is from."""

    filename: str
    text: str


@dataclass(frozen=True)
class InfillPrompt:
    """A fill-in-the-middle prompt: the model writes what goes between ``prefix`` and ``suffix``.

    Backends render it with the model's own FIM tokens (``qualm.model.fim``): ``extra`` chunks in
    the repository pattern where the model has one, then prefix, suffix and the middle marker.
    ``ending`` (``qualm.engine.completion_end``) decides where the middle stops."""

    prefix: str
    suffix: str
    extra: tuple[ContextChunk, ...] = ()
    filename: str = ""  # the document's name as the model sees it (repository pattern)
    ending: Any = None  # a text_stream.Ending; Any here so prompts import nothing of the model layer
    name: str = "infill"
    stop: tuple[str, ...] = ()
    ends: Callable[[str], int | None] | None = None


def code_generation(problem_description: str, language: str = "Python", fence: str = "python", answer_start: str = "") -> ChatPrompt:
    """The paper's code prompt; ``language`` and ``fence`` are the language's words (``qualm.lang``).
    ``answer_start`` opens the code block (the function's header: the model then writes its body)."""
    return ChatPrompt(
        user=CODE_GENERATION.format(problem_description=problem_description.strip("\n"), language=language),
        assistant_prefix=CODE_GENERATION_PREFILL.format(fence=fence) + answer_start,
        stop=(CODE_FENCE,),
        name="code_generation",
    )


def plan_program(problem_description: str, plan: str, language: str = "Python", fence: str = "python", answer_start: str = "") -> ChatPrompt:
    """The paper's code prompt with one of the sampled plans to follow (``algorithmic.plan_programs``)."""
    base = code_generation(problem_description, language, fence, answer_start)
    return replace(base, user=base.user + "\n\nFollow this plan:\n" + plan.strip(), name="plan_program")


def plan_generation(problem_description: str) -> ChatPrompt:
    # No stop string: a plan ends with the model's end of turn (the editor's assessment may add an
    # end rule, see qualm.answer_ends; the evaluation keeps the paper's plans).
    return ChatPrompt(
        user=PLAN_GENERATION.format(problem_description=problem_description.strip("\n")),
        assistant_prefix=PLAN_GENERATION_PREFILL,
        stop=(),
        name="plan_generation",
    )


def candidate_plan(problem_description: str, candidate: str, fence: str = "python") -> ChatPrompt:
    """The code in the file explained as a plan in the paper's plan format (greedy)."""
    return ChatPrompt(
        user=CANDIDATE_PLAN.format(problem_description=problem_description.strip("\n"), candidate=candidate.strip("\n"), fence=fence),
        assistant_prefix=PLAN_GENERATION_PREFILL,
        stop=(),
        name="candidate_plan",
    )


METHOD_TESTS = """1. Generate exactly {num_test_cases} diverse test cases for the method `{method}` of class `{owner}`:
   each one line that creates the object, then asserts, with `;` between statements"""

# A method's tests, in the same prompt: the placeholders of the function's example (`args1`) were
# copied literally by the 0.5B model into 6 of 9 test lists for methods (`Stack(init_args)`);
# `...` in their place gave real values in 8 of 9 (three hand-written classes, 2026-11-27), where the
# class takes arguments; `Solution(...)` was copied where it takes none, so there it is `Solution()`.
METHOD_EXAMPLES = """JSON format: each string creates a `{owner}` with real values, calls what it needs, then asserts on `{method}`:
[
    "{example}","""


def _rewritten(template: str, *edits: tuple[str, str]) -> str:
    """``template`` with each ``(old, new)`` made once; raises at import when an ``old`` is not there
    exactly once, so a change of the paper's wording cannot silently leave a variant unchanged."""
    for old, new in edits:
        if template.count(old) != 1:
            raise ValueError(f"prompt variant: {old[:40]!r}... is not in the template exactly once")
        template = template.replace(old, new)
    return template


# The test prompt for a method: the paper's, asking for tests that build the object first. Its
# fields are the paper's and {owner}, {method}, {example}.
METHOD_TEST_GENERATION = _rewritten(
    TEST_GENERATION,
    ("this function.\nDO NOT implement the function.", "this method.\nDO NOT implement the method."),
    ("1. Generate exactly {num_test_cases} diverse test cases as valid Python\n   assert statements", METHOD_TESTS),
    ('JSON format:\n[\n    "assert function_name(args1) == expected1",\n    "assert function_name(args2) == expected2",', METHOD_EXAMPLES),
    ("{num_test_cases} assert statements", "{num_test_cases} test strings"),
)


def test_generation(problem_description: str, num_test_cases: int = 10, method: tuple[str, str, str] | None = None) -> ChatPrompt:
    """The paper's test prompt; for a method (``(class, method, an example test's form)``) the same
    prompt asks for tests that build the object first, one line each
    (``functional.parse_tests(setup=True)`` reads them)."""
    fields = {"problem_description": problem_description.strip("\n"), "num_test_cases": num_test_cases}
    if method is None:
        user = TEST_GENERATION.format(**fields)
    else:
        owner, name, example = method
        user = METHOD_TEST_GENERATION.format(**fields, owner=owner, method=name, example=example)
    return ChatPrompt(user=user, assistant_prefix=TEST_GENERATION_PREFILL, stop=(CODE_FENCE,), name="test_generation")


def thinking_off_marker(chat_template: str) -> str:
    """The paper's ``<think></think>`` prefix, for templates that have a thinking mode."""
    return "<think></think>\n" if "<think>" in chat_template else ""
