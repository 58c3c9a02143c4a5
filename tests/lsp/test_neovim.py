"""Any client: Neovim's built-in LSP client, headless, starts qualm's server, opens a file, gets the
code lenses, scores the document, hovers an uncertain token, and picks one of its code actions (a
rewrite from the token, resolved into an edit and applied by Neovim)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_session import DOC
from timing import seconds

from qualm.model.files import cache_dir

pytestmark = pytest.mark.model

SCRIPT = Path(__file__).with_name("neovim") / "qualm_test.lua"


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (scripts/setup installs Debian's neovim when run as root)")
def test_neovim_gets_lenses_diagnostics_and_a_hover(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(DOC)
    out = tmp_path / "out.json"
    # Neovim keeps its state under a scratch HOME; the server still finds qualm's real model cache.
    env = {**os.environ, "QUALM_CACHE_DIR": str(cache_dir()), "QUALM_PYTHON": sys.executable, "QUALM_FILE": str(source), "QUALM_OUT": str(out), "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {SCRIPT}"], env=env, capture_output=True, text=True, timeout=seconds(600))
    assert out.exists(), proc.stderr
    result = json.loads(out.read_text())
    assert "error" not in result, result["error"]
    assert result["ready"] and result["statuses"][:2] == ["loading", "ready"]
    assert result["lenses"] == [{"line": 3, "title": "qualm: assess"}, {"line": 9, "title": "qualm: assess"}]
    assert result["scored"]["functions"] == ["circle_area", "add"]
    assert result["diagnostics"] > 0 and result["first_source"] == "qualm"
    assert "entropy" in result["hover"] and "the model's top 5" in result["hover"]
    # acting on the doubt: standard code actions, resolved into an edit only when picked
    assert result["actions"] and result["actions"][-1].startswith("qualm: regenerate from '"), result["actions"]
    assert all(a.startswith("qualm: use '") for a in result["actions"][:-1])
    assert result["picked_has_edit"] is False and result.get("resolved_error") is None
    assert result["rewritten"] and result["republished"]  # the buffer holds the rewrite; its marks came
    assert source.read_text() == DOC  # nothing saved: the file is the user's to write
