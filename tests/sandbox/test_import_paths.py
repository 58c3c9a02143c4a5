"""The tests of a file's code import its project's modules: the file's folders on the module path
(mounted read-only inside bubblewrap), its package for relative imports, and the project's own
interpreter with its packages (SandboxConfig.python). Real sandboxed subprocesses, a real virtual
environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from timing import seconds

from qualm_sandbox import SandboxConfig, SandboxUnavailable, interpreter, run_tests

# Where the sandbox is missing or broken, conftest.py fails or skips every test here.

CODE = "from ..util import clamp\nfrom .helpers import twice\n\ndef f(v):\n    return twice(clamp(v, 0, 10))\n"
TESTS = ["assert f(20) == 20", "assert f(3) == 6"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """src/pkg/{__init__,util}.py and src/pkg/sub/{__init__,helpers}.py, readable by the test user
    (as root the tests run as nobody, and pytest's folders are private)."""
    src = tmp_path / "src"
    (src / "pkg" / "sub").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "sub" / "__init__.py").write_text("")
    (src / "pkg" / "util.py").write_text("def clamp(v, lo, hi):\n    return max(lo, min(hi, v))\n")
    (src / "pkg" / "sub" / "helpers.py").write_text("def twice(x):\n    return 2 * x\n")
    for folder in (tmp_path, *[p for p in tmp_path.rglob("*") if p.is_dir()]):
        folder.chmod(0o755)
    return src


def statuses(report):
    return [(o.status, o.message) for o in report.outcomes]


def test_relative_and_sibling_imports_resolve_from_the_files_package(project: Path):
    config = SandboxConfig(timeout=seconds(5.0), import_paths=(str(project), str(project / "pkg" / "sub")), package="pkg.sub")
    assert statuses(run_tests(CODE, TESTS, config)) == [("passed", ""), ("passed", "")]
    sibling = "from helpers import twice\n\ndef f(v):\n    return twice(v)\n"
    assert run_tests(sibling, ["assert f(3) == 6"], config).passed == 1


def test_without_the_files_roots_the_same_code_cannot_load(project: Path):
    [first, _] = run_tests(CODE, TESTS, SandboxConfig(timeout=seconds(5.0))).outcomes
    assert first.status == "error"
    assert first.message.startswith("the candidate failed to load: ImportError: attempted relative import")


@pytest.mark.usefixtures("bubblewrap")
def test_the_project_is_read_only_to_the_tests_and_gets_no_bytecode(project: Path):
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    config = SandboxConfig(timeout=seconds(5.0), import_paths=(str(project),), package="")
    write = f"open({str(project / 'pkg' / 'planted.py')!r}, 'w').write('x = 1')"
    [loaded, wrote] = run_tests("import pkg.util\nfrom pkg.sub import helpers\n", ["assert pkg.util.clamp(5, 0, 1) == 1", write], config).outcomes
    assert loaded.status == "passed"
    assert wrote.status == "error" and "Read-only file system" in wrote.message
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before  # no planted file, no __pycache__


def test_the_projects_interpreter_brings_its_installed_packages(tmp_path: Path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    [site] = venv.glob("lib/python*/site-packages")
    (site / "projlib.py").write_text("def answer():\n    return 42\n")
    for folder in (tmp_path, *[p for p in tmp_path.rglob("*") if p.is_dir()]):
        folder.chmod(0o755)
    code = "import projlib\n\ndef f():\n    return projlib.answer()\n"
    own = run_tests(code, ["assert f() == 42"], SandboxConfig(timeout=seconds(5.0), python=str(python)))
    assert statuses(own) == [("passed", "")]
    [missing] = run_tests(code, ["assert f() == 42"], SandboxConfig(timeout=seconds(5.0))).outcomes
    assert missing.message == "the candidate failed to load: ModuleNotFoundError: No module named 'projlib'"
    assert str(venv) in interpreter(str(python)).dirs  # mounted read-only: its packages are there


def test_an_interpreter_that_cannot_run_the_tests_is_refused_with_the_reason(tmp_path: Path):
    with pytest.raises(SandboxUnavailable, match="cannot be started"):
        run_tests("x = 1", ["assert x == 1"], SandboxConfig(python=str(tmp_path / "no-such-python")))
    # No Python 3.8 is installed here: a stand-in that answers the sandbox's question as 3.8 would.
    old = tmp_path / "python3.8"
    old.write_text('#!/bin/sh\necho \'{"version": [3, 8], "dirs": []}\'\n')
    old.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match=r"is 3\.8; the sandbox needs 3\.9 or newer"):
        interpreter(str(old))


def test_a_project_module_that_raises_as_it_is_imported_is_named_and_a_call_at_load_is_not(project: Path):
    (project / "settings_reader.py").write_text("import json\n\nCONFIG = json.load(open('config.json'))\n")
    config = SandboxConfig(timeout=seconds(5.0), import_paths=(str(project),))
    [imported] = run_tests("from settings_reader import CONFIG\n\ndef f():\n    return CONFIG\n", ["assert f()"], config).outcomes
    assert imported.message == (
        "the candidate failed to load: FileNotFoundError: [Errno 2] No such file or directory: 'config.json' "
        f"(while importing {project / 'settings_reader.py'}, line 3)"
    )
    # the candidate's own text failing at load (here a call into the standard library) is the code's
    [own] = run_tests("import json\n\nDATA = json.loads('{')\n\ndef f():\n    return DATA\n", ["assert f()"], config).outcomes
    assert own.message.startswith("the candidate failed to load: JSONDecodeError") and "while importing" not in own.message
    [name] = run_tests("from pkg.util import nope\n", ["assert True"], config).outcomes
    assert name.message == "the candidate failed to load: ImportError: cannot import name 'nope' from 'pkg.util' " f"({project / 'pkg' / 'util.py'})"


def test_a_name_or_a_relative_path_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # the sandbox starts the interpreter from its own working folder and PATH
    found = interpreter("python3")
    assert Path(found.path).is_absolute() and Path(found.path).name == "python3"
    link = tmp_path / "bin" / "python"
    link.parent.mkdir()
    link.symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path)
    relative = interpreter("bin/python")
    assert relative.path == str(link)  # absolute, the link kept (a virtual environment's python is one)
    assert run_tests("x = 1", ["assert x == 1"], SandboxConfig(timeout=seconds(5.0), python="bin/python")).passed == 1
    with pytest.raises(SandboxUnavailable, match="not on the PATH"):
        interpreter("qualm-no-such-python")
