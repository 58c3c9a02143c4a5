"""`qualm check --json` and `--sarif` from hand-made results (no model). The SARIF is validated against
the OASIS SARIF 2.1.0 schema (tests/fixtures/sarif-schema-2.1.0.json, see tests/fixtures/SOURCES.md)
with jsonschema, and read for what GitHub code scanning needs: a rule per gate, a result per failing
function at its lines under %SRCROOT%, a fingerprint that survives the function moving."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from qualm.check import CHANCE, SARIF_SCHEMA, CheckReport, FileCheck, FunctionCheck, Gate, sarif_log

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def assert_valid(validator: jsonschema.Draft4Validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(json.loads(json.dumps(log))), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


SCORES = {"max_surprisal": 12.5, "top_k_surprisal": 6.0, "top_k_entropy": 1.1, "max_probability": 0.9999963}


def check(verdict: str, name: str, lines: tuple[int, int], value: float | None, path: str = "src/app mod.py", **kw) -> FunctionCheck:
    return FunctionCheck(path, name, lines[0], lines[1], 40, SCORES, value, verdict, kw.pop("reason", f"{name} reason"), **kw)  # type: ignore[arg-type]


def lexical_report() -> CheckReport:
    gate = Gate("max_surprisal", 11.0)
    functions = (
        check("fail", "Parser.parse", (10, 42), 12.5, reason="largest surprisal 12.50 nats is above the gate's 11.00 nats"),
        check("pass", "helper", (45, 50), 3.0),
        check("skipped", "stub", (52, 53), None),
    )
    files = (FileCheck("src/app mod.py", 3), FileCheck("src/broken.py", 0, "src/broken.py:3: the file does not parse: invalid syntax"))
    return CheckReport(Path("/work/repo"), "Qwen2.5-Coder-0.5B", gate, files, functions, seconds=1.5)


def assessed_report() -> CheckReport:
    axes = {"lexical": {"raw": 0.99999, "percentile": 0.8, "available": True, "note": "largest 1 - p"}, "algorithmic": {"raw": 0.41, "percentile": 0.5, "available": True, "note": ""}, "functional": {"raw": None, "percentile": None, "available": False, "note": "unavailable"}}
    functions = (
        check("fail", "parse", (3, 9), 0.18, path="a.py", chance=0.18, chance_note="a logistic fit", axes=axes, ensemble=0.6),
        check("unknown", "other", (11, 14), None, path="a.py", reason="no chance of passing: the calibration file has no pass model", axes=axes),
    )
    return CheckReport(Path("/work/repo"), "served", Gate(CHANCE, 0.3), (FileCheck("a.py", 2),), functions)


def test_a_lexical_report_is_valid_sarif_with_one_error_per_failing_function(validator):
    log = sarif_log(lexical_report(), information_uri="https://example.org/qualm")
    assert_valid(validator, log)
    assert log["version"] == "2.1.0" and log["$schema"] == SARIF_SCHEMA
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "qualm" and driver["informationUri"] == "https://example.org/qualm"
    assert [r["id"] for r in driver["rules"]] == ["qualm/max_surprisal"]
    assert "11.00 nats" in driver["rules"][0]["fullDescription"]["text"] and driver["rules"][0]["help"]["markdown"]
    (result,) = run["results"]  # the passing and the skipped function are not alerts
    assert result["level"] == "error" and result["ruleId"] == "qualm/max_surprisal" and result["ruleIndex"] == 0
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": "src/app%20mod.py", "uriBaseId": "%SRCROOT%"}
    assert where["region"] == {"startLine": 10, "endLine": 42}
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "Parser.parse"
    assert result["message"]["text"].startswith("Parser.parse (lines 10-42): largest surprisal 12.50 nats is above the gate's 11.00 nats")
    assert result["properties"]["scores"]["top_k_surprisal"] == 6.0
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///work/repo/"
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "error" and "does not parse" in note["message"]["text"]
    assert run["invocations"][0]["exitCode"] == 1


def test_an_assessed_report_is_valid_sarif_with_the_chance_rule_and_a_warning_for_the_unjudged(validator):
    log = sarif_log(assessed_report())
    assert_valid(validator, log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["rules"][0]["id"] == "qualm/chance"
    (result,) = run["results"]
    assert result["properties"]["chance"] == 0.18 and result["properties"]["axes"]["algorithmic"]["raw"] == 0.41
    assert "algorithmic 0.41" in result["message"]["text"]
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "warning" and "no pass model" in note["message"]["text"]


def test_the_fingerprint_survives_moving_the_function_and_tells_functions_apart(validator):
    before = lexical_report()
    moved = replace(before, functions=tuple(replace(f, start_line=f.start_line + 7, end_line=f.end_line + 7) for f in before.functions))
    renamed = replace(before, functions=tuple(replace(f, function="Parser.read") for f in before.functions))
    prints = [sarif_log(r)["runs"][0]["results"][0]["partialFingerprints"] for r in (before, moved, renamed)]
    assert prints[0] == prints[1] and prints[0] != prints[2]


def test_an_empty_run_is_still_a_valid_log(validator):
    empty = CheckReport(Path("/work/repo"), "(not loaded)", Gate(CHANCE, 0.3), (), ())
    log = sarif_log(empty)
    assert_valid(validator, log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["invocations"][0]["exitCode"] == 0


def test_the_schema_check_is_real_a_broken_log_is_refused(validator):
    log = sarif_log(lexical_report())
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0  # lines start at 1
    with pytest.raises(AssertionError, match="startLine"):
        assert_valid(validator, log)
    log = sarif_log(lexical_report())
    log["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(AssertionError, match="fatal"):
        assert_valid(validator, log)


def test_the_json_report_has_every_function_with_its_scores_and_the_gate():
    data = json.loads(json.dumps(lexical_report().to_dict()))
    assert data["gate"] == {"metric": "max_surprisal", "threshold": 11.0, "fails": "above", "rule": "largest surprisal above 11.00 nats"}
    assert data["exit_code"] == 1 and data["assessed"] is False
    assert [(f["function"], f["verdict"]) for f in data["functions"]] == [("Parser.parse", "fail"), ("helper", "pass"), ("stub", "skipped")]
    assert data["functions"][0]["scores"]["max_surprisal"] == 12.5 and data["functions"][0]["start_line"] == 10
    assert data["files"][1] == {"path": "src/broken.py", "functions": 0, "problem": "src/broken.py:3: the file does not parse: invalid syntax"}
    assert data["summary"]["files_not_checked"] == 1


def test_the_suspect_line_is_a_related_location_of_the_function_s_result(validator):
    from dataclasses import replace

    from qualm.check.run import suspect_fields
    from qualm.signals.suspicion import SuspectLine

    fields = suspect_fields((SuspectLine(14, 3.9, " -", 30, 32, 0.02, " +", 0.85),))
    assert fields == {"suspect_line": 14, "suspect_note": "the line the model least expected: '-' (p 0.02); the model would write '+' (p 0.85)"}
    report = lexical_report()
    failing = [f for f in report.functions if f.verdict == "fail"]
    report = replace(report, functions=tuple(replace(f, **fields) if f is failing[0] else f for f in report.functions))
    log = sarif_log(report)
    assert_valid(validator, log)
    first = log["runs"][0]["results"][0]
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == failing[0].start_line  # the result is still the function's
    related = first["relatedLocations"][0]
    assert related["physicalLocation"]["region"] == {"startLine": 14, "endLine": 14}
    assert related["message"]["text"].startswith("suspect line: the line the model least expected: '-'")
    assert all("relatedLocations" not in r for r in log["runs"][0]["results"][1:])
    assert suspect_fields(()) == {}
