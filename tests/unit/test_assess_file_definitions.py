"""A function that calls a helper of its file, or reads one of its constants, is tested with them:
its tests pass or fail on what it computes, not on a NameError. The scripted backend stands in for
the model (the tests it writes are fixed here); the tests run in the real sandbox."""

from __future__ import annotations

import json

import pytest

from qualm.engine import Document, assess
from qualm.model.scripted_backend import ScriptedBackend
from qualm.settings import Settings

TEXT = '''BASE = 10


def plus(a, b):
    return a + b + BASE - 10


def unrelated():
    raise SystemExit("never run: add does not use it")


def add(a, b):
    """Add two numbers."""
    return plus(a, b)


if __name__ == "__main__":
    raise SystemExit("never run either")
'''


def test_the_tests_run_with_the_helpers_the_function_uses_and_the_note_names_them(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "scripted", "completions": ["x"], "plans": ["1. Add a and b.\n2. Return the sum."], "tests": '["assert add(1, 2) == 3", "assert add(0, 0) == 0", "assert add(2, 2) == 5"]'}))
    settings = Settings().with_overrides(algorithmic={"n_plans": 2, "plan_programs": 0}, functional={"n_solutions": 0})
    a = assess(ScriptedBackend(script), Document(name="t.py", text=TEXT), "add", settings, None)
    assert [t.status for t in a.tests] == ["passed", "passed", "failed"]
    assert a.functional.raw == pytest.approx(1 / 3)
    assert "run with `BASE` and `plus` from the file" in a.functional.note
