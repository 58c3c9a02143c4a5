"""`qualm check` as a real subprocess on the real default model: a right function and a wrong one
(one token changed), the gate's exit codes, the SARIF validated against the OASIS schema, a file that
does not parse, and one small assessment gated on the chance of passing."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from timing import seconds

pytestmark = pytest.mark.model

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "sarif-schema-2.1.0.json").read_text())

RIGHT = '''def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''
WRONG = '''def is_even(n: int) -> bool:
    """Return True when n is even."""
    return n % 2 == 1
'''
# what tests/lsp's SMALL settings shrink an assessment to: 2 plans, 3 tests
SMALL = {"algorithmic": {"n_plans": 2, "max_tokens": 120}, "functional": {"n_tests": 3, "max_tokens": 300, "n_solutions": 2, "solution_max_tokens": 200}}


def check(*args: str, cwd: Path, config: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **({"QUALM_CONFIG": str(config)} if config else {})}
    return subprocess.run([sys.executable, "-m", "qualm", "check", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=seconds(300))


def test_the_gate_fails_the_wrong_function_and_the_sarif_is_valid(tmp_path):
    (tmp_path / "code.py").write_text(RIGHT + "\n\n" + WRONG)
    (tmp_path / "broken.py").write_text("def broken(x:\n    return x\n")

    lenient = check("code.py", "--max-score", "100", "--json", "scores.json", cwd=tmp_path)
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    functions = {f["function"]: f for f in json.loads((tmp_path / "scores.json").read_text())["functions"]}
    right, wrong = functions["add"], functions["is_even"]
    assert right["verdict"] == wrong["verdict"] == "pass" and right["tokens"] > 0 and wrong["tokens"] > 0
    assert wrong["scores"]["max_surprisal"] == pytest.approx(-math.log(1 - wrong["scores"]["max_probability"]))
    # the model would not have written "== 1" after "Return True when n is even"
    assert wrong["scores"]["max_surprisal"] > right["scores"]["max_surprisal"] + 2, functions

    between = (right["scores"]["max_surprisal"] + wrong["scores"]["max_surprisal"]) / 2
    strict = check("code.py", "broken.py", "--max-score", f"{between:.3f}", "--sarif", "gate.sarif", cwd=tmp_path)
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "1 passed, 1 failed" in strict.stdout
    assert "not checked: broken.py:1: the file does not parse" in strict.stdout
    log = json.loads((tmp_path / "gate.sarif").read_text())
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft4Validator)
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 6, "endLine": 8}
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "code.py", "uriBaseId": "%SRCROOT%"}
    assert result["properties"]["scores"]["max_surprisal"] == pytest.approx(wrong["scores"]["max_surprisal"], abs=1e-6)  # same scores run to run
    assert "does not parse" in log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def test_an_assessment_gates_on_the_chance_from_the_settings_file(tmp_path):
    (tmp_path / "add.py").write_text(RIGHT)
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({**SMALL, "check": {"min_chance": 1.0}}))  # no chance reaches 1: the gate must fail it
    proc = check("add.py", "--assess", "--json", "report.json", "--sarif", "report.sarif", cwd=tmp_path, config=config)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (f,) = json.loads((tmp_path / "report.json").read_text())["functions"]
    assert f["verdict"] == "fail" and 0 < f["chance"] < 1 and f["value"] == f["chance"]
    assert f["axes"]["functional"]["available"] and f["axes"]["lexical"]["raw"] is not None
    log = json.loads((tmp_path / "report.sarif").read_text())
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft4Validator)
    assert log["runs"][0]["results"][0]["ruleId"] == "qualm/chance" and log["runs"][0]["results"][0]["properties"]["chance"] == f["chance"]
