"""qualm's cache folder (the assembled model, the compiled llama.cpp, the user's calibrations) read-only
while the server runs, as on a shared or locked-down machine: a read-only bind mount of the real
cache (the tests run as root; a chmod would not stop root). Completions, Score Document and an
assessment all work, and nothing in the log complains: the server writes nothing there."""

from __future__ import annotations

import os
import subprocess

import pytest
from lsp_session import URI, Session, run

from qualm.model.files import cache_dir

pytestmark = pytest.mark.model


@pytest.fixture
def readonly_cache(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root (the CI machine runs the tests as root)")
    target = tmp_path / "cache"
    target.mkdir()
    subprocess.run(["mount", "--bind", str(cache_dir()), str(target)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(target)], check=True)
        with pytest.raises(OSError):
            (target / "probe").write_text("x")  # it really is read-only
        monkeypatch.setenv("QUALM_CACHE_DIR", str(target))  # the server inherits it
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


def test_the_server_works_with_its_cache_folder_read_only(readonly_cache):
    async def scenario(s: Session):
        await s.start({"editor": {"diagnostic_level": "low"}})
        s.open()
        params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "options": {"maxTokens": 16}}
        completion = await s.client.protocol.send_request_async("qualm/complete", params)
        assert completion.text.strip()
        scored = await s.command("qualm.scoreDocument", URI)
        assert scored["marks"] > 0
        assessed = await s.command("qualm.assessFunction", URI, "circle_area")
        assert assessed["summary"].startswith("qualm")
        assert not [m for m in s.messages if "read-only" in m.lower() or "permission denied" in m.lower() or "errno" in m.lower()], s.messages

    run(scenario)
