"""A function that calls a helper of its file, reads one of its constants or imports a module of
its project, is tested with them: its tests pass or fail on what it computes, not on a NameError or
an import that only fails where the tests run. The scripted backend stands in for
the model (the tests it writes are fixed here); the tests run in the real sandbox."""

from __future__ import annotations

import json

import pytest

from qualm.calibration_file import SHIPPED_DIR, Calibration
from qualm.engine import Document, SampleCache, assess, roots_for
from qualm.lang import PYTHON
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


def scripted(tmp_path, tests: list[str]) -> ScriptedBackend:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "scripted", "completions": ["x"], "plans": ["1. Clamp each value.\n2. Return them."], "tests": json.dumps(tests)}))
    return ScriptedBackend(script)


CLAMP_ALL = '''from helpers import clamp


def clamp_all(values, low, high):
    """Clamp every value into [low, high]."""
    return [clamp(v, low, high) for v in values]
'''


def test_a_function_that_imports_its_projects_module_is_tested_with_it(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "helpers.py").write_text("def clamp(v, low, high):\n    return max(low, min(high, v))\n")
    (project / "tools.py").write_text(CLAMP_ALL)
    for folder in (tmp_path, project):
        folder.chmod(0o755)  # as root the tests run as nobody
    backend = scripted(tmp_path, ["assert clamp_all([5, -1], 0, 3) == [3, 0]", "assert clamp_all([], 0, 1) == []", "assert clamp_all([2], 0, 1) == [2]"])
    settings = Settings().with_overrides(algorithmic={"n_plans": 2, "plan_programs": 0}, functional={"n_solutions": 0})
    document = Document(name=str(project / "tools.py"), text=CLAMP_ALL)
    a = assess(backend, document, "clamp_all", settings, None, roots=roots_for(PYTHON, project / "tools.py"))
    assert [t.status for t in a.tests] == ["passed", "passed", "failed"]
    assert a.functional.raw == pytest.approx(1 / 3)
    # the same text with no file: its project's module is nowhere, which says nothing of the code
    unsaved = assess(backend, Document(name="untitled", text=CLAMP_ALL), "clamp_all", settings, None)
    assert unsaved.functional.raw is None and not unsaved.functional.available
    assert "No module named 'helpers'" in unsaved.functional.note and "no saved file" in unsaved.functional.note
    assert all("failed to load" in t.message for t in unsaved.tests)  # still shown, with the error


def test_an_import_missing_where_the_tests_run_makes_the_functional_axis_unavailable_and_runs_nothing_more(tmp_path):
    text = CLAMP_ALL.replace("from helpers import clamp", "from qualm_no_such_package import clamp")
    backend = scripted(tmp_path, ["assert clamp_all([5], 0, 3) == [3]"])
    settings = Settings().with_overrides(algorithmic={"n_plans": 2, "plan_programs": 1}, functional={"n_solutions": 2})
    path = tmp_path / "tools.py"
    path.write_text(text)
    a = assess(backend, Document(name=str(path), text=text), "clamp_all", settings, None, roots=roots_for(PYTHON, path))
    assert a.functional.raw is None and a.functional.note.startswith("unavailable: its imports fail where the tests run")
    assert "qualm.functional.python" in a.functional.note
    assert a.solutions is None and a.plan_programs is None and a.swaps is None and a.examples is None
    # with the shipped calibration the chance comes from the fit for functions without a test
    # result (the scripted model's scores are not the real model's: only where it came from is checked)
    shipped = Calibration.load(SHIPPED_DIR / "qwen2.5-coder-0.5b-instruct-q4_k_m.json")
    c = assess(backend, Document(name=str(path), text=text), "clamp_all", settings, shipped, roots=roots_for(PYTHON, path))
    assert c.chance_of_passing is not None
    assert "fit of pass/fail on lexical.all.blended_surprisal over" in c.chance_note  # the lexical fit
    assert "no test counted: the code's imports fail where its tests run" in c.chance_note


def solution_calls_the_helper(tmp_path) -> tuple[ScriptedBackend, Settings]:
    """A scripted model whose one solution calls the project's ``clamp``, and one test."""
    script = tmp_path / "s.json"
    script.write_text(json.dumps({
        "name": "scripted", "completions": ["    return [clamp(v, low, high) for v in values]\n"],
        "plans": ["1. Clamp each value.\n2. Return them."], "tests": json.dumps(["assert clamp_all([5, -1], 0, 3) == [3, 0]"]),
    }))
    settings = Settings().with_overrides(algorithmic={"n_plans": 2, "plan_programs": 0}, functional={"n_solutions": 1, "fuzz_inputs": 0, "swap_positions": 0})
    return ScriptedBackend(script), settings


def test_the_solutions_runs_are_not_reused_from_another_project(tmp_path):
    # the same function and the same model answers in two projects whose helpers differ: the
    # model's solution (which calls the helper) answers differently in each, and a run kept from one
    # must not stand for the other
    projects = []
    for name, body in (("a", "max(low, min(high, v))"), ("b", "v")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "helpers.py").write_text(f"def clamp(v, low, high):\n    return {body}\n")
        (folder / "tools.py").write_text(CLAMP_ALL)
        folder.chmod(0o755)
        projects.append(folder)
    tmp_path.chmod(0o755)
    backend, settings = solution_calls_the_helper(tmp_path)
    samples = SampleCache()
    answers = []
    for folder in projects:
        a = assess(backend, Document(name=str(folder / "tools.py"), text=CLAMP_ALL), "clamp_all", settings, None, samples=samples, roots=roots_for(PYTHON, folder / "tools.py"))
        assert a.solutions is not None and a.solutions.agreement == 0.0  # the solution answers as the code does, in its project
        answers.append([t.status for t in a.tests])
    assert answers == [["passed"], ["failed"]]


def test_with_no_usable_test_the_docstrings_examples_still_run_and_an_import_missing_there_is_not_the_codes(tmp_path):
    text = 'import qualm_no_such_package\n\n\ndef double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n    """\n    return 2 * x\n'
    plain = text.replace("import qualm_no_such_package\n", "import math\n")
    backend = scripted(tmp_path, [])  # the model wrote no test at all
    settings = Settings().with_overrides(algorithmic={"n_plans": 2, "plan_programs": 0}, functional={"n_solutions": 0})
    ran = assess(backend, Document(name="d.py", text=plain), "double", settings, None)
    assert ran.functional.raw is None and ran.examples is not None and ran.examples.failed == 0.0
    blocked = assess(backend, Document(name="d.py", text=text), "double", settings, None)
    assert blocked.examples is not None and blocked.examples.failed is None
    assert "No module named 'qualm_no_such_package'" in blocked.examples.note


def test_a_helper_edited_between_two_assessments_is_run_again(tmp_path):
    # the code does its own clamping; the model's solution calls the project's helper, which the
    # user then breaks: the second assessment must run the solution again, not reuse its answers
    project = tmp_path / "project"
    project.mkdir()
    for folder in (tmp_path, project):
        folder.chmod(0o755)
    helpers = project / "helpers.py"
    helpers.write_text("def clamp(v, low, high):\n    return max(low, min(high, v))\n")
    text = CLAMP_ALL.replace("return [clamp(v, low, high) for v in values]", "return [max(low, min(high, v)) for v in values]")
    (project / "tools.py").write_text(text)
    backend, settings = solution_calls_the_helper(tmp_path)
    samples = SampleCache()
    document = Document(name=str(project / "tools.py"), text=text)
    roots = roots_for(PYTHON, project / "tools.py")
    before = assess(backend, document, "clamp_all", settings, None, samples=samples, roots=roots)
    helpers.write_text("def clamp(v, low, high):\n    return v\n")
    after = assess(backend, document, "clamp_all", settings, None, samples=samples, roots=roots)
    assert before.solutions is not None and after.solutions is not None
    assert (before.solutions.agreement, after.solutions.agreement) == (0.0, 1.0)
    assert after.extra["reused_samples"] > 0  # the model's answers were reused; only their runs were not
