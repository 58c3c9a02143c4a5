"""Over stdio with the scripted backend (its answers come in turn, so the test says what each prompt
gets): a healed completion that comes out empty is asked again from the cursor, and the client is
told to drop what streamed of the first attempt before the answer streams."""

from __future__ import annotations

import json

from lsp_session import Session, run

DOC = 'class Review:\n    def color(self):\n        if self.ok:\n            return "green"\n        \n\n    def vote(self):\n        return 0\n'
URI = "file:///tmp/qualm-lsp-test/review.py"


def test_an_empty_healed_completion_streams_a_restart_then_the_answer(tmp_path):
    script = tmp_path / "fim.json"
    # healed, the "model" closes the method and writes the next one (cut to nothing at the end);
    # asked again from the cursor, it writes the statement
    script.write_text(json.dumps({"name": "scripted fim", "completions": ["    def other(self):\n        pass", 'return "red"'], "fim": True}))

    async def scenario(s: Session):
        await s.start({"model": {"backend": "scripted", "path": str(script)}})
        s.open(DOC, URI)
        params = {"textDocument": {"uri": URI}, "position": {"line": 4, "character": 8}, "partialResultToken": "partial"}
        result = await s.client.protocol.send_request_async("qualm/complete", params)
        assert result.promptKind == "fim" and result.text == 'return "red"'
        restarts = [i for i, p in enumerate(s.partials) if p.get("restart")]
        assert len(restarts) == 1 and s.partials[restarts[0]]["text"] == ""
        assert "".join(p["text"] for p in s.partials[restarts[0] + 1 :]) == result.text  # what the client keeps is the answer
        assert any("asked again from the cursor" in m for m in s.messages if m.startswith("completion: fim prompt")), s.messages

    run(scenario)
