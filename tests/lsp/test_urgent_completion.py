"""Over stdio with the scripted backend, slowed to a known pace per token: a completion asked for
while an assessment samples its plans and tests is answered while the assessment still runs (it
waits at most one of the batch's steps, the worker's checkpoint), and the assessment then ends as
it would have. Without the worker's urgent lane the completion waits for the whole assessment and
this test fails on the order of the answers, not on a clock."""

from __future__ import annotations

import asyncio
import json

from lsp_session import Session, run

DOC = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n    \n'
URI = "file:///tmp/qualm-lsp-test/urgent.py"
PLAN = "1. Take the two numbers a and b given to the function.\n2. Add them together with plus.\n3. Return the sum to the caller."


def test_a_completion_during_an_assessment_is_answered_before_the_assessment_ends(tmp_path):
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({
        "name": "scripted slow", "fim": True, "seconds_per_token": 0.02,
        "completions": ["return a + b"],
        "plans": [PLAN, PLAN],
        "tests": json.dumps([f"assert add({i}, {i}) == {2 * i}" for i in range(8)]),
    }))

    async def scenario(s: Session):
        await s.start({
            "model": {"backend": "scripted", "path": str(script)},
            "algorithmic": {"n_plans": 2, "plan_programs": 0},
            "functional": {"n_tests": 8, "n_solutions": 0},
        })
        s.open(DOC, URI)
        assessing = asyncio.ensure_future(s.command("qualm.assessFunction", URI, "add"))
        # the batch of plans and tests is decoding (the progress says how many tokens so far)
        await s.wait_for(lambda: any("sampling:" in str(p) for p in s.progress), "the assessment's batch to decode", timeout=60)
        params = {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 4}}
        completion = await s.client.protocol.send_request_async("qualm/complete", params)
        assert completion.text == "return a + b"
        assert not assessing.done(), "the completion waited for the whole assessment"
        out = await assessing
        assert out["function"] == "add" and out["assessment"]["tests"], out.get("summary")

    run(scenario)
