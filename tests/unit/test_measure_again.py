"""qualm.fitting.measure.measure_again: signals added later to a full run's functions, resumable."""

from __future__ import annotations

import json

from qualm.fitting.measure import measure_again

ROWS = [{"pair_id": "a"}, {"pair_id": "b"}, {"pair_id": "c"}]
# the full run measured both sides of a and b, one side of c
MEASURED = {(p, s): {"x": f"{p}-{s}"} for p in ("a", "b") for s in ("original", "mutant")} | {("c", "original"): {"x": "c"}}


def test_each_missing_function_is_measured_once_and_a_second_run_resumes(tmp_path):
    out = tmp_path / "extra.jsonl"
    calls = []

    def measure_one(row, side, full):
        calls.append((row["pair_id"], side))
        return {"pair_id": row["pair_id"], "side": side, "values": {"from": full["x"]}}

    first = measure_again(ROWS, MEASURED, out, measure_one)
    assert next(first)[2]["values"] == {"from": "a-original"}
    first.close()  # stopped after one function, as an interrupted run would be
    assert [json.loads(line)["side"] for line in out.read_text().splitlines()] == ["original"]
    again = list(measure_again(ROWS, MEASURED, out, measure_one))
    # c is left out (its full run lacks a side); a's original was kept, not measured again
    assert [(r["pair_id"], s) for r, s, _ in again] == [("a", "mutant"), ("b", "original"), ("b", "mutant")]
    assert calls == [("a", "original"), ("a", "mutant"), ("b", "original"), ("b", "mutant")]
    assert len(out.read_text().splitlines()) == 4
