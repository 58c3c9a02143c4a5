"""`qualm check` end to end without a model: the scripted backend stands in for it (a token's
probability is e^-entropy from its script, so its surprisal is the scripted number). The engine's
check over files with a syntax error among them, an engine that cannot score code in the file (the
score-only gate refuses, an assessment leaves the lexical axis out), and the command itself as a
subprocess: exit codes, the JSON on stdout and the SARIF file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from timing import seconds

from qualm.calibration_file import Calibration
from qualm.check import CHANCE, Gate, Targets, check_files
from qualm.model import TeacherForcingUnavailable
from qualm.model.scripted_backend import ScriptedBackend
from qualm.settings import Settings

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "sarif-schema-2.1.0.json").read_text())
SHIPPED_CALIBRATION = Path(__file__).resolve().parents[2] / "server/qualm/calibration/qwen2.5-coder-0.5b-instruct-q4_k_m.json"

CODE = '''def add(a, b):
    """Add two numbers."""
    return a + b


def odd(x):
    """Odd one."""
    return risky(x)


def stub():
    """Nothing yet."""
'''


class NoScoring(ScriptedBackend):
    def score(self, prompt, text, cancel=None, top_alternatives=5):
        raise TeacherForcingUnavailable("llama.cpp's server does not return log-probabilities of the prompt")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "scripted", "completions": ["def add(a, b):\n    return a + b\n"], "plans": ["1. Add a and b.\n2. Return the sum.\n3. Done."], "tests": '["assert add(1, 2) == 3", "assert add(0, 0) == 0"]', "entropy": {"default": 0.05, "tokens": {"risky": 4.0}}}))
    (tmp_path / "code.py").write_text(CODE)
    (tmp_path / "broken.py").write_text("def broken(:\n    pass\n")
    return {"script": script, "code": tmp_path / "code.py", "broken": tmp_path / "broken.py"}


def test_every_function_is_judged_and_a_file_with_a_syntax_error_is_noted(tmp_path, files):
    targets = Targets(tmp_path, (files["broken"], files["code"]))
    report = check_files(ScriptedBackend(files["script"]), targets, Settings(), Gate("max_surprisal", 3.0))
    verdicts = {f.function: (f.verdict, f.value) for f in report.functions}
    assert verdicts["add"] == ("pass", pytest.approx(0.05))
    assert verdicts["odd"] == ("fail", pytest.approx(4.0))
    assert verdicts["stub"] == ("skipped", None)
    odd = next(f for f in report.functions if f.function == "odd")
    assert (odd.path, odd.start_line, odd.end_line) == ("code.py", 6, 8)
    assert [f.problem for f in report.files] == ["broken.py:1: the file does not parse: invalid syntax", ""]
    assert report.exit_code == 1
    lenient = check_files(ScriptedBackend(files["script"]), Targets(tmp_path, (files["code"],)), Settings(), Gate("max_surprisal", 5.0))
    assert lenient.exit_code == 0


def test_without_scoring_the_lexical_gate_refuses_and_an_assessment_still_gives_the_chance(tmp_path, files):
    targets = Targets(tmp_path, (files["code"],))
    with pytest.raises(TeacherForcingUnavailable):
        check_files(NoScoring(files["script"]), targets, Settings(), Gate("max_surprisal", 3.0))
    only_add = tmp_path / "add.py"
    only_add.write_text(CODE.split("\n\n\n")[0] + "\n")
    settings = Settings().with_overrides(algorithmic={"n_plans": 2})
    report = check_files(NoScoring(files["script"]), Targets(tmp_path, (only_add,)), settings, Gate(CHANCE, 0.3), Calibration.load(SHIPPED_CALIBRATION))
    (f,) = report.functions
    assert not f.axes["lexical"]["available"] and "does not return log-probabilities" in f.axes["lexical"]["note"]
    assert f.axes["functional"]["raw"] == 0.0  # both scripted tests pass
    # the scripted "solutions" (its completion) pass both tests too: the chance has its functional
    # signal; without a scored trace there are no token swaps, so the chain's fit made for
    # functions without them gives the chance, and the note says so
    assert f.chance is not None and f.chance_note.startswith("a logistic fit of pass/fail on functional_weighted, functional over")
    # the first fit's signals the function lacks are named (which ones depends on the shipped chain)
    lacking = re.search(r"; ([^;(]*) had no value \(([^)]*)\)", f.chance_note)
    assert lacking and "swap_gain" in lacking.group(1).split(", ") and "no swap to try" in lacking.group(2)
    assert "average" not in f.chance_note
    assert f.verdict == ("pass" if f.chance >= 0.3 else "fail")
    no_pass_model = check_files(NoScoring(files["script"]), Targets(tmp_path, (only_add,)), settings, Gate(CHANCE, 0.3), None)
    assert no_pass_model.functions[0].verdict == "unknown" and no_pass_model.exit_code == 2


def qualm(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "qualm", "check", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=seconds(120))


def test_the_command_exits_by_the_gate_and_writes_json_and_valid_sarif(tmp_path, files):
    scripted = ["--backend", "scripted", "--model", str(files["script"])]
    strict = qualm("code.py", "broken.py", *scripted, "--max-score", "3", "--sarif", "out.sarif", "--json", "out.json", cwd=tmp_path)
    assert strict.returncode == 1, strict.stderr
    assert "1 passed, 1 failed" in strict.stdout and "not checked: broken.py:1: the file does not parse" in strict.stdout
    log = json.loads((tmp_path / "out.sarif").read_text())
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft4Validator)
    assert [r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in log["runs"][0]["results"]] == ["odd"]
    assert json.loads((tmp_path / "out.json").read_text())["summary"]["fail"] == 1

    lenient = qualm("code.py", *scripted, "--max-score", "5", "--json", "-", cwd=tmp_path)
    assert lenient.returncode == 0, lenient.stderr
    data = json.loads(lenient.stdout)  # the summary went to stderr
    assert [f["verdict"] for f in data["functions"]] == ["pass", "pass", "skipped"]
    assert "2 passed, 0 failed" in lenient.stderr

    # a file that does not parse, alone: nothing failed, but nothing could be checked either
    broken = qualm("broken.py", *scripted, cwd=tmp_path)
    assert broken.returncode == 2 and "does not parse" in broken.stdout


def test_the_command_refuses_what_it_cannot_do_with_exit_code_2(tmp_path, files):
    scripted = ["--backend", "scripted", "--model", str(files["script"])]
    for args, words in (
        ((), "name files or folders to check, or --changed REF"),
        (("nope.py",), "nope.py: no such file or folder"),
        (("code.py", "--min-chance", "2"), "qualm.check.min_chance must be between 0 and 1"),
        (("code.py", "--score", "mean_probability"), "qualm.check.score must be one of"),
        (("--changed", "HEAD"), "is not in a git work tree"),
    ):
        proc = qualm(*args, *scripted, cwd=tmp_path)
        assert proc.returncode == 2 and words in proc.stderr, (args, proc.stderr)


def test_nothing_to_check_passes_and_still_writes_the_reports_without_loading_a_model(tmp_path):
    (tmp_path / "notes.md").write_text("no code\n")
    proc = qualm("notes.md", "--model", str(tmp_path / "missing.gguf"), "--sarif", "out.sarif", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "nothing to check" in proc.stdout and "ignored: notes.md" in proc.stdout
    jsonschema.validate(json.loads((tmp_path / "out.sarif").read_text()), SCHEMA, cls=jsonschema.Draft4Validator)


def test_the_pre_commit_hook_runs_this_command_once_over_the_staged_python_files():
    import yaml  # a dev dependency (pyproject.toml)

    from qualm.cli import app

    (hook,) = yaml.safe_load((Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "qualm-check" and hook["entry"] == "qualm check"
    assert hook["types"] == ["python"] and hook["pass_filenames"] is True and hook["require_serial"] is True
    assert "check" in {c.name or c.callback.__name__ for c in app.registered_commands}
