"""scripts/eval-paper's cache archives: how a days-long evaluation outlives the machine it runs on.
The real script and the real ``qualm model --json`` (the default model's SHA-256) are used; the
cached step files are small stand-ins, since only which files travel is under test here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from timing import seconds

pytestmark = pytest.mark.model  # `qualm model --json` loads the default model

SCRIPT = Path(__file__).parents[2] / "scripts" / "eval-paper"


def model_key() -> str:
    out = subprocess.run([sys.executable, "-m", "qualm", "model", "--json"], capture_output=True, text=True, check=True, timeout=seconds(300))
    return json.loads(out.stdout)["identity"]["key"]


def run(cmd: str, out: Path, machine: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "QUALM_EVAL_CACHE": str(machine / "eval"), "QUALM_PYTHON": sys.executable}
    return subprocess.run(["bash", str(SCRIPT), cmd, str(out)], capture_output=True, text=True, env=env, timeout=seconds(300), check=True)


def step(root: Path, rel: str, content: dict) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content))


def members(archive: Path) -> set[str]:
    with tarfile.open(archive) as tar:
        return {m.name for m in tar.getmembers() if m.isfile()}


def test_new_steps_go_to_the_next_archive_and_come_back_on_a_fresh_machine(tmp_path):
    key = model_key()
    assert len(key) == 16 and int(key, 16) >= 0
    out, here = tmp_path / "results", tmp_path / "machine-1"
    greedy = f"{key}/settings/mbpp/MBPP_11/greedy.json"
    step(here / "eval", greedy, {"text": "def f(): pass"})
    step(here / "eval", "0000000000000000/settings/mbpp/MBPP_11/greedy.json", {"other": "model"})  # not this model's
    run("--save-cache", out, here)
    assert members(out / "cache" / "001.tar.xz") == {greedy}

    label = f"{key}/settings/mbpp/MBPP_11/label.json"
    step(here / "eval", label, {"passed": True})
    run("--save-cache", out, here)
    assert members(out / "cache" / "002.tar.xz") == {label}  # only what is new
    done = run("--save-cache", out, here)
    assert "archived already" in done.stderr and len(list((out / "cache").glob("*.tar.xz"))) == 2

    # a fresh machine: both archives unpacked; a step already there is never overwritten
    fresh = tmp_path / "machine-2"
    step(fresh / "eval", label, {"passed": False, "kept": True})
    run("--restore-cache", out, fresh)
    assert json.loads((fresh / "eval" / greedy).read_text()) == {"text": "def f(): pass"}
    assert json.loads((fresh / "eval" / label).read_text()) == {"passed": False, "kept": True}
