"""The `qualm` command line, run as a real subprocess against the real default model."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from timing import seconds

from qualm.model.files import DEFAULT_MODEL, default_model_path

pytestmark = pytest.mark.model

STUB = '''def add_one(x: int) -> int:
    """Return x plus one.

    >>> add_one(1)
    2
    """
'''

SAMPLE = '''import math


def circle_area(r: float) -> float:
    """Area of a circle of radius r."""
    # pi times r squared
    return math.pi * r ** 2


class Box:
    def volume(self, w: float, h: float, d: float) -> float:
        """Volume of a box."""
        return w * h * d
'''


def qualm(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "qualm", *args],
        capture_output=True, text=True, input=stdin, env={**os.environ, **(env or {})}, timeout=seconds(300),
    )


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("qualm: ")
    return lines[0]


def test_generate_json_prints_the_whole_trace(tmp_path):
    stub = tmp_path / "stub.py"
    stub.write_text(STUB)
    proc = qualm("generate", str(stub), "--json", "--max-tokens", "80")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    trace = data["trace"]
    assert "def add_one" in trace["text"]
    assert "".join(t["text"] for t in trace["tokens"]) == trace["text"]
    first = trace["tokens"][0]
    assert set(first) >= {"token_id", "text", "start", "end", "entropy", "prob", "alternatives", "scope"}
    assert len(first["alternatives"]) == 5
    assert data["lexical"]["all"]["k"] == 5 and data["lexical"]["all"]["top_k_entropy"] >= 0
    assert stub.read_text() == STUB  # the user's file is only read


def test_generate_from_stdin_colours_tokens_by_level():
    proc = qualm("generate", "-", "--max-tokens", "80", env={"FORCE_COLOR": "1", "COLUMNS": "120"}, stdin=STUB)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" in proc.stdout  # ANSI colours
    assert "levels:" in proc.stdout and "most uncertain tokens" in proc.stdout
    plain = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)
    assert "def add_one" in plain


def test_score_one_function_and_a_whole_file(tmp_path):
    f = tmp_path / "sample.py"
    f.write_text(SAMPLE)
    one = qualm("score", f"{f}::circle_area", "--json")
    assert one.returncode == 0, one.stderr
    [result] = json.loads(one.stdout)
    assert result["function"] == "circle_area"
    assert result["trace"]["mode"] == "scored"
    assert result["trace"]["text"].startswith("def circle_area")
    body = [t for t in result["trace"]["tokens"] if t["start"] >= result["body_offset"]]
    assert result["lexical"]["all"]["n_tokens"] == len(body) > 0
    assert result["lexical"]["comment"]["n_tokens"] > 0  # "# pi times r squared"
    every = qualm("score", str(f), "--json")
    assert [r["function"] for r in json.loads(every.stdout)] == ["circle_area", "Box.volume"]
    table = qualm("score", f"{f}::volume", env={"COLUMNS": "120"})
    assert table.returncode == 0 and "Box.volume" in table.stdout and "top-5" in table.stdout
    assert f.read_text() == SAMPLE


def test_model_command_prints_what_the_issue_names():
    proc = qualm("model", "--json")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["name"] == DEFAULT_MODEL.display_name
    assert info["sha256"] == DEFAULT_MODEL.sha256
    assert info["identity"]["kind"] == "gguf" and info["identity"]["key"] == DEFAULT_MODEL.sha256[:16]
    # the backend's details come by their display labels, as text
    assert info["size"] == f"{DEFAULT_MODEL.size:,} bytes"
    assert info["vocab_size"] == 151_936 and info["trained context"] == "32,768 tokens"
    assert int(info["threads"]) >= 1 and info["GPU layers"] == "0"
    text = qualm("model", env={"COLUMNS": "200"}).stdout
    for label in ("name", "path", "size", "sha256", "context length", "vocabulary", "threads", "GPU layers"):
        assert label in text


def test_user_errors_are_one_clear_line(tmp_path):
    assert "no such file" in one_line_error(qualm("score", str(tmp_path / "missing.py")))
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n    pass\n")
    assert "does not parse" in one_line_error(qualm("score", str(bad)))
    good = tmp_path / "good.py"
    good.write_text(SAMPLE)
    msg = one_line_error(qualm("score", f"{good}::nope"))
    assert "no function named 'nope'" in msg and "circle_area" in msg
    assert "empty" in one_line_error(qualm("generate", "--prompt", "   "))


def test_bad_model_files_are_one_clear_line_and_are_not_touched(tmp_path):
    missing = one_line_error(qualm("model", "--model", str(tmp_path / "none.gguf")))
    assert "not found" in missing
    text_file = tmp_path / "notes.gguf"
    text_file.write_text("not a model")
    assert "not a GGUF" in one_line_error(qualm("model", "--model", str(text_file)))
    truncated = tmp_path / "truncated.gguf"
    with open(default_model_path(), "rb") as src:
        truncated.write_bytes(src.read(3_000_000))
    assert "could not load" in one_line_error(qualm("generate", "--prompt", "x", "--model", str(truncated)))
    assert text_file.read_text() == "not a model" and truncated.stat().st_size == 3_000_000


def test_a_corrupt_default_model_says_how_to_rebuild_it(tmp_path):
    cache = tmp_path / "cache"
    target = cache / "models" / DEFAULT_MODEL.file_name
    target.parent.mkdir(parents=True)
    with open(default_model_path(), "rb") as src:
        target.write_bytes(src.read(1_000_000))
    msg = one_line_error(qualm("model", env={"QUALM_CACHE_DIR": str(cache)}))
    assert "truncated or corrupt" in msg and "qualm model fetch --force" in msg
    assert target.stat().st_size == 1_000_000  # reported, not deleted
    shutil.rmtree(cache / "models")
    msg = one_line_error(qualm("model", env={"QUALM_CACHE_DIR": str(cache)}))
    assert "qualm model fetch" in msg


def test_calibrate_resumes_from_its_rows_and_prints_a_line_per_problem(tmp_path: Path):
    # Rows already on disk (the first two of the greedy-solution calibration the default model
    # shipped before issue 23, MBPP/511-512): the command loads the real model but computes
    # nothing, and writes the calibration file from those rows.
    shipped = Path(__file__).parents[2] / "results" / "qwen2.5-coder-0.5b" / "calibration" / "calibration.rows.jsonl"
    out = tmp_path / "cal.json"
    out.with_suffix(".rows.jsonl").write_text("".join(shipped.read_text().splitlines(keepends=True)[:2]))
    proc = qualm("calibrate", "--dataset", "mbpp", "--limit", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"\[1/2\] MBPP/511: cached · lexi \d\.\d{3} algo", proc.stderr), proc.stderr
    assert "[2/2] MBPP/512: cached" in proc.stderr, proc.stderr
    cal = json.loads(out.read_text())
    assert "MBPP task_ids 511-512" in json.dumps(cal)
