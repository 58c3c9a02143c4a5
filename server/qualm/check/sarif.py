"""``qualm check --sarif``: a check report as SARIF 2.1.0, the format GitHub code scanning reads.

One rule, the gate of the run (the chance of passing, or the lexical score gated on); one result, at
level "error", per function that fails it. Functions that pass are not results: code scanning keeps
an alert for every result, and an alert per function of a repository would bury the failures (every
function's numbers are in the JSON). Files that could not be read or parsed and functions the gate
could not judge are the invocation's tool notifications. Locations are relative to the root (the git
work tree) under ``%SRCROOT%``, so that code scanning resolves them against its checkout.
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import PurePosixPath
from urllib.parse import quote

from .. import __version__
from .gate import CHANCE, Gate
from .run import CheckReport, FunctionCheck

SARIF_VERSION = "2.1.0"
# The OASIS standard's schema (errata 01), the one tests/fixtures/sarif-schema-2.1.0.json is a copy of.
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "qualmFunction/v1"  # a function's identity that survives lines moving above it


def project_uri() -> str | None:
    """qualm's home page as the installed package declares it (pyproject's [project.urls]), if it does."""
    try:
        meta = metadata.metadata("qualm")
    except metadata.PackageNotFoundError:
        return None
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "repository", "source") and url.strip():
            return url.strip()
    return meta.get("Home-page") or None


def rule_id(gate: Gate) -> str:
    return f"qualm/{gate.metric}"


def rule(gate: Gate) -> dict:
    if gate.metric == CHANCE:
        short = "Low chance that the function passes its tests"
        full = (
            "qualm assessed the function on three axes (lexical: the surprisal of its tokens; algorithmic: how far "
            "plans sampled for its docstring agree; functional: the model's own tests run in a sandbox) and a "
            "logistic model fitted on right and wrong functions turned them into a chance of passing, which is "
            f"below the gate ({gate.describe()})."
        )
        act = "Read the function closely against its docstring, run its tests, and look at the self-tests that failed (`qualm assess FILE::FUNCTION`)."
    else:
        short = f"High {gate.words()}: the model would not have written this code"
        full = (
            f"qualm forced the function's body through the model and measured the {gate.words()} of its tokens in nats "
            f"(the surprisal of a token is -ln of the probability the model gave it); the function is above the gate "
            f"({gate.describe()}). Code the model finds improbable is more often wrong; it is a cheap signal, not proof."
        )
        act = "Look at the highlighted tokens (`qualm score FILE::FUNCTION`), or assess it (`qualm check --assess`, `qualm assess`)."
    return {
        "id": rule_id(gate),
        "name": "LowChanceOfPassing" if gate.metric == CHANCE else "High" + "".join(w.capitalize() for w in gate.metric.split("_")),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": f"{full} {act} The threshold is a setting (check.min_chance, check.max_score) or a flag of `qualm check`.", "markdown": f"{full}\n\n{act}\n\nThe threshold is a setting (`check.min_chance`, `check.max_score`) or a flag of `qualm check`."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["uncertainty", "llm-generated-code"], "precision": "medium" if gate.metric == CHANCE else "low"},
    }


def artifact(path: str) -> dict:
    """Where a file is: relative to %SRCROOT% inside the root, else an absolute file URI."""
    if PurePosixPath(path).is_absolute():
        return {"uri": PurePosixPath(path).as_uri()}
    return {"uri": quote(path), "uriBaseId": SRCROOT}


def location(f: FunctionCheck) -> dict:
    return {
        "physicalLocation": {"artifactLocation": artifact(f.path), "region": {"startLine": f.start_line, "endLine": f.end_line}},
        "logicalLocations": [{"fullyQualifiedName": f.function, "name": f.function.rsplit(".", 1)[-1], "kind": "function"}],
    }


def fingerprint(f: FunctionCheck, gate: Gate) -> str:
    return hashlib.sha256("\0".join((f.path, f.function, rule_id(gate))).encode()).hexdigest()[:32]


def message(f: FunctionCheck, gate: Gate) -> str:
    text = f"{f.function} (lines {f.start_line}-{f.end_line}): {f.reason}"
    # an assessment's raw axes; a score-only gate on another score also shows the largest surprisal
    details = [f"{name} {axis['raw']:.2f}" for name, axis in f.axes.items() if axis.get("raw") is not None]
    if not f.axes and gate.metric != "max_surprisal" and f.scores.get("max_surprisal") is not None:
        details.append(f"largest surprisal {f.scores['max_surprisal']:.2f} nats")
    details.append(f"{f.tokens} body tokens")
    return f"{text} ({'; '.join(details)})."


def result(f: FunctionCheck, gate: Gate) -> dict:
    properties = {"function": f.function, "value": f.value, "tokens": f.tokens, "scores": f.scores, "seconds": round(f.seconds, 3)}
    if f.axes:
        properties |= {"chance": f.chance, "chance_note": f.chance_note, "axes": f.axes, "ensemble": f.ensemble}
    out = {
        "ruleId": rule_id(gate),
        "ruleIndex": 0,
        "level": "error",
        "message": {"text": message(f, gate)},
        "locations": [location(f)],
        "partialFingerprints": {FINGERPRINT: fingerprint(f, gate)},
        "properties": properties,
    }
    if f.suspect_line is not None:
        # where to look first: a related location, so the result stays the function's (its fingerprint too)
        region = {"startLine": f.suspect_line, "endLine": f.suspect_line}
        out["relatedLocations"] = [{"id": 1, "physicalLocation": {"artifactLocation": artifact(f.path), "region": region}, "message": {"text": f"suspect line: {f.suspect_note}"}}]
    return out


def notifications(report: CheckReport) -> list[dict]:
    """What could not be checked: files that do not read or parse, functions the gate could not judge."""
    out = [
        {"level": "error", "message": {"text": f.problem}, "locations": [{"physicalLocation": {"artifactLocation": artifact(f.path)}}]}
        for f in report.problems
    ]
    out += [{"level": "warning", "message": {"text": f"{f.function}: {f.reason}"}, "locations": [location(f)]} for f in report.with_verdict("unknown")]
    return out


def sarif_log(report: CheckReport, information_uri: str | None = None) -> dict:
    """The report as one SARIF 2.1.0 log with one run; ``information_uri`` defaults to the package's home page."""
    driver: dict = {"name": "qualm", "version": __version__, "semanticVersion": __version__, "rules": [rule(report.gate)]}
    if uri := information_uri or project_uri():
        driver["informationUri"] = uri
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": report.root.as_uri().rstrip("/") + "/"}},
        "invocations": [{"executionSuccessful": True, "exitCode": report.exit_code, "toolExecutionNotifications": notifications(report)}],
        "results": [result(f, report.gate) for f in report.with_verdict("fail")],
        "properties": {"model": report.model, "gate": report.gate.to_dict(), "summary": report.summary()},
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
