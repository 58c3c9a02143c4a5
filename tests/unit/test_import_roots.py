"""Where a file's imports resolve when its tests run (qualm.lang.python.imports), the sandbox an
assessment's tests get (qualm.engine.sandboxing.sandbox_config), and when a load failure is the
environment's rather than the code's (unimportable). Files on disk; no sandbox run here
(tests/sandbox/test_import_paths.py runs them)."""

from __future__ import annotations

import os

import pytest

from qualm.engine.sandboxing import roots_for, sandbox_config, unimportable
from qualm.lang import JAVASCRIPT, PYTHON, ImportRoots
from qualm.lang.python.imports import import_roots
from qualm.settings import Settings


def touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_module_in_a_package_resolves_from_above_its_outermost_package(tmp_path):
    mod = touch(tmp_path / "src" / "pkg" / "sub" / "mod.py")
    touch(tmp_path / "src" / "pkg" / "__init__.py")
    touch(tmp_path / "src" / "pkg" / "sub" / "__init__.py")
    roots = import_roots(mod)
    assert roots == ImportRoots((str(tmp_path / "src"), str(tmp_path / "src" / "pkg" / "sub")), "pkg.sub")


def test_a_packages_own_init_is_in_that_package(tmp_path):
    init = touch(tmp_path / "pkg" / "__init__.py")
    assert import_roots(init) == ImportRoots((str(tmp_path), str(tmp_path / "pkg")), "pkg")


def test_a_script_outside_any_package_resolves_from_its_folder_then_the_workspace(tmp_path):
    script = touch(tmp_path / "tools" / "run.py")
    other = tmp_path.parent / "elsewhere"
    roots = import_roots(script, [tmp_path, other])
    assert roots == ImportRoots((str(tmp_path / "tools"), str(tmp_path)), "")


def test_a_folder_whose_name_cannot_be_imported_ends_the_package(tmp_path):
    mod = touch(tmp_path / "my-project" / "pkg" / "mod.py")
    touch(tmp_path / "my-project" / "__init__.py")
    touch(tmp_path / "my-project" / "pkg" / "__init__.py")
    assert import_roots(mod) == ImportRoots((str(tmp_path / "my-project"), str(tmp_path / "my-project" / "pkg")), "pkg")


def test_text_with_no_file_has_no_roots(tmp_path):
    assert import_roots(tmp_path / "unsaved.py") == ImportRoots()
    assert roots_for(PYTHON, None) is None
    assert roots_for(JAVASCRIPT, tmp_path / "a.js") is None  # its tests do not run


def test_the_sandbox_gets_the_settings_interpreter_and_the_files_roots(tmp_path):
    f = Settings().with_overrides(functional={"python": "~/venvs/proj/bin/python", "timeout": 2.5}).functional
    config = sandbox_config(f, ImportRoots(("/a", "/b"), "pkg"))
    assert config.python == os.path.expanduser("~/venvs/proj/bin/python")
    assert (config.import_paths, config.package, config.timeout) == (("/a", "/b"), "pkg", 2.5)
    default = sandbox_config(Settings().functional)
    assert (default.python, default.import_paths, default.package) == ("", (), "")


def report(*messages: str) -> list[str]:
    return list(messages)  # the runner's message per test ("" for one that passed)


def test_a_module_not_found_where_the_tests_run_is_the_environments_doing():
    config = sandbox_config(Settings().functional, ImportRoots(("/nowhere/proj",), ""))
    why = unimportable(report("the candidate failed to load: ModuleNotFoundError: No module named 'pandas'"), config)
    assert why is not None
    assert "No module named 'pandas'" in why and config.interpreter in why and "qualm.functional.python" in why
    unsaved = unimportable(report("the candidate failed to load: ModuleNotFoundError: No module named 'helpers'"), sandbox_config(Settings().functional))
    assert unsaved is not None and "no saved file" in unsaved


def test_a_relative_import_outside_a_package_is_the_environments_doing():
    why = unimportable(report("the candidate failed to load: ImportError: attempted relative import with no known parent package"), sandbox_config(Settings().functional))
    assert why is not None and "saved inside its package" in why


def test_a_project_module_that_raises_as_it_is_imported_is_the_environments_doing():
    message = "the candidate failed to load: KeyError: 'API_KEY' (while importing /proj/client.py, line 4)"
    why = unimportable(report(message), sandbox_config(Settings().functional, ImportRoots(("/proj",), "")))
    assert why is not None and "/proj/client.py, line 4" in why and "no network" in why


@pytest.mark.parametrize("message", [
    "the candidate failed to load: NameError: name 'helper' is not defined",
    "the candidate failed to load: ImportError: cannot import name 'nope' from 'math' (unknown location)",
    "ModuleNotFoundError: No module named 'numpyy'",  # raised by the test, not by loading the code
    "",
])
def test_other_failures_are_the_codes_or_the_tests(message):
    assert unimportable(report(message), sandbox_config(Settings().functional)) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="tests run as nobody only when qualm runs as root")
def test_as_root_a_folder_nobody_can_read_is_named(tmp_path):
    hidden = tmp_path / "proj"
    hidden.mkdir(mode=0o700)
    why = unimportable(report("the candidate failed to load: ModuleNotFoundError: No module named 'helpers'"), sandbox_config(Settings().functional, ImportRoots((str(hidden),), "")))
    assert why is not None and f"cannot read {hidden}" in why


def test_a_program_that_imports_the_projects_modules_is_known(tmp_path):
    from qualm.engine.sandboxing import imports_from_project

    touch(tmp_path / "helpers.py")
    touch(tmp_path / "pkg" / "__init__.py")
    roots = [str(tmp_path)]
    assert imports_from_project("from helpers import clamp\n", roots)
    assert imports_from_project("import pkg.sub as s\n", roots)
    assert imports_from_project("def f():\n    from .util import g\n", roots)  # relative, anywhere
    assert not imports_from_project("import math\nfrom collections import deque\n", roots)
    assert not imports_from_project("from helpers import clamp\n", [])  # no file: nothing of a project
    assert imports_from_project("def broken(:\n", roots)  # cannot tell: assume it does
