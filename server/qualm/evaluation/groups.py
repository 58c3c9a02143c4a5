"""The method groups a user can pick (``qualm eval --methods``) and the pipeline steps each needs.

Kept free of imports so the command line can list them without loading the evaluation."""

from __future__ import annotations

GROUPS: dict[str, tuple[str, ...]] = {
    "lexical": ("greedy", "label"),
    "algorithmic": ("greedy", "label", "plans"),
    "functional": ("greedy", "label", "tests", "selftests"),
    "consistency": ("greedy", "label", "samples"),
    "symbolic": ("greedy", "label", "samples"),
    "multi": ("greedy", "label", "samples", "tests", "sampletests"),
}
ALL_GROUPS = tuple(GROUPS)
