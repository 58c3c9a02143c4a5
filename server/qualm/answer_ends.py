"""Where an answer in a prompt's format is complete, so that decoding can stop there.

The 0.5B model rarely ends a plan at its last step: it goes on with "### Explanation", repeats the
prompt's rules or sums up, often until the token cap (measured on HumanEval/0: 4 of 10 plans hit
the 512-token cap). Asked for M tests it often writes more. None of that text is used: the steps
of a plan are what the similarity compares, and only the first M asserts are run. Stopping at the
end of the used part is where most of an assessment's decoding time went.

Each rule takes the text so far and returns the length to keep when the answer is complete, or
``None`` to go on. Rules are called at line ends (``TextStream``), so they see whole lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable

EndRule = Callable[[str], "int | None"]

# "1. ", "2) ", "Step 3:", "**4.**", "5 -" at the start of a line begin a step.
STEP_START = re.compile(r"^\s*(?:[*_#>]+\s*)?(?:step\s*)?(\d{1,2})\s*(?:[.):\-][*_]*|\*\*)\s*", re.IGNORECASE)
_BULLET = re.compile(r"^\s*[-*+•]\s")
_HEADING = re.compile(r"^\s*#{1,6}\s")

# A plan of fewer steps than this is not cut: prose between early steps is not its end.
MIN_PLAN_STEPS = 3


def plan_end(text: str) -> int | None:
    """End of a numbered plan: after at least ``MIN_PLAN_STEPS`` steps, a Markdown heading that is
    not a step, or a paragraph (after a blank line) that starts flush left and is neither a step nor
    a bullet. The kept text ends before that line."""
    steps = 0
    blank_before = False
    offset = 0
    lines = text.split("\n")
    # The last element is an unfinished line (or ""): judge only complete lines.
    for line in lines[:-1]:
        start = offset
        offset += len(line) + 1
        if not line.strip():
            blank_before = True
            continue
        if STEP_START.match(line):
            steps += 1
        elif steps >= MIN_PLAN_STEPS:
            flush_paragraph = blank_before and not line[:1].isspace() and not _BULLET.match(line)
            if _HEADING.match(line) or flush_paragraph:
                return start
        blank_before = False
    return None


_ASSERT_ITEM = re.compile(r'^\s*"\s*assert\b.*"\s*,?\s*$')
_SETUP_ITEM = re.compile(r'^\s*".*\bassert\b.*"\s*,?\s*$')  # a method's test: `obj = C(); assert ...`


def tests_end(count: int, setup: bool = False) -> EndRule:
    """End of a JSON list of assert strings once ``count`` items are complete: the kept text ends
    after the ``count``-th item's line (the parser reads a list without its closing bracket).
    ``setup``: items may build an object before their assert (a method's tests)."""
    item = _SETUP_ITEM if setup else _ASSERT_ITEM

    def rule(text: str) -> int | None:
        seen = 0
        offset = 0
        for line in text.split("\n")[:-1]:
            offset += len(line) + 1
            if item.match(line):
                seen += 1
                if seen >= count:
                    return offset
        return None

    return rule
