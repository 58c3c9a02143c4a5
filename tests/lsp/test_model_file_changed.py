"""The real GGUF truncated on disk while the server has it memory-mapped, as a download started
again over it would: the server lets the model go before it reads a page that is gone (SIGBUS would
kill it), refuses the next request with a message naming the file and what to do, and lives on; a
restart then refuses the damaged file with "download it again". A copy of the default model is cut,
never the cached one. The scripted twin is in test_scripted.py."""

from __future__ import annotations

import os
import shutil

import pytest
from lsp_session import URI, Session, run
from pygls.exceptions import JsonRpcException

from qualm.lsp.params import plain
from qualm.model.files import default_model_path

pytestmark = pytest.mark.model


def test_a_truncated_model_file_is_let_go_and_a_restart_refuses_it(tmp_path):
    copy = tmp_path / "model.gguf"
    shutil.copyfile(default_model_path(), copy)

    async def scenario(s: Session):
        await s.start({"model": {"path": str(copy)}})
        s.open()
        params = {"textDocument": {"uri": URI}, "position": {"line": 11, "character": 0}, "options": {"maxTokens": 4}}
        assert (await s.client.protocol.send_request_async("qualm/complete", params)).text is not None
        os.truncate(copy, copy.stat().st_size // 2)
        with pytest.raises(JsonRpcException, match="changed on disk") as refused:
            await s.client.protocol.send_request_async("qualm/complete", params)
        assert str(copy) in str(refused.value) and "download it again" in str(refused.value)
        status = plain(await s.command("qualm.status"))  # alive, and says why
        assert status["state"] == "error" and str(copy) in status["message"]
        assert s.client._server.returncode is None  # the process did not die

    async def restarted(s: Session):  # qualm: Restart Language Server starts a new process
        await s.start({"model": {"path": str(copy)}}, wait_ready=False)
        await s.wait_for(lambda: s.statuses and s.statuses[-1]["state"] == "error", "the restart's refusal")
        message = s.statuses[-1]["message"]
        assert str(copy) in message and "download it again" in message, message

    run(scenario)
    run(restarted)
