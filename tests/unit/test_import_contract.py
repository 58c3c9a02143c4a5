"""The runtime stays apart from the research: the engine, the language server and ``qualm serve``
never import the offline fitting (``qualm.fitting``), the evaluation (``qualm.evaluation``),
scikit-learn or SciPy. Checked twice: statically by import-linter (the contracts in pyproject.toml's
``[tool.importlinter]``, lazy imports included), and in a real server process, which after an
assessment over stdio (scripted backend) has loaded none of them, not even through a dependency
(NLTK loads SciPy where it is installed: qualm.signals.algorithmic avoids it)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from timing import seconds

ROOT = Path(__file__).parents[2]
FORBIDDEN_IN_SERVER = ("sklearn", "scipy", "qualm.fitting", "qualm.evaluation")
# The command line (qualm/cli/__init__.py wires every command, serve among them) lists qualm eval's
# method groups in its help from this import-free module; nothing else of the evaluation loads.
ALLOWED_IN_SERVER = ("qualm.evaluation", "qualm.evaluation.groups")


def test_the_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.fail(f"{lint} is missing: import-linter is a dev dependency (scripts/setup installs it; or pip install -e '.[dev]')")
    run = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=seconds(120))
    assert run.returncode == 0, f"lint-imports found a broken import contract:\n{run.stdout}\n{run.stderr}"
    assert "0 broken" in run.stdout, run.stdout


# Runs `python -m qualm serve --stdio` as VS Code does, and on exit writes the names of the loaded
# modules to the file given as the first argument.
SERVER = """
import atexit, json, runpy, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "qualm"
runpy.run_module("qualm", run_name="__main__", alter_sys=True)
"""


def test_the_server_process_loads_no_fitting_evaluation_sklearn_or_scipy(tmp_path):
    from lsp_session import Session, run

    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({
            "name": "scripted import-check model",
            "completions": ["    return a + b\n"],
            "plans": ["1. Take a and b.\n2. Add them.\n3. Return the sum.", "1. Read both numbers.\n2. Return a plus b."],
            "tests": json.dumps(["assert add(1, 2) == 3", "assert add(0, 0) == 0"]),
            "entropy": {"default": 0.05, "tokens": {"+": 1.2}},
        })
    )
    loaded_file = tmp_path / "modules.json"
    uri = "file:///tmp/qualm-import-check/calc.py"
    doc = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n    return a + b\n'

    async def scenario(s: Session):
        start_io = s.client.start_io

        async def with_module_report(cmd, *args, **kwargs):
            assert args[:2] == ("-m", "qualm"), args  # Session starts the server as VS Code does
            return await start_io(cmd, "-c", SERVER, str(loaded_file), *args[2:], **kwargs)

        s.client.start_io = with_module_report
        options = {"model": {"backend": "scripted", "path": str(script)}, "algorithmic": {"n_plans": 2}, "functional": {"n_tests": 2}}
        await s.start(options)
        s.open(doc, uri)
        assert await s.command("qualm.assessFunction", uri, "add")

    run(scenario)
    # the server exits after Session.stop's exit notification; its atexit hook has written the file
    deadline = time.monotonic() + seconds(10)
    while not loaded_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    loaded = json.loads(loaded_file.read_text())
    assert "qualm.lsp.server" in loaded and "qualm.engine.assessment" in loaded, "not the server's modules"
    bad = [m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN_IN_SERVER) and m not in ALLOWED_IN_SERVER]
    assert not bad, f"the server process loaded {bad[:10]}"

