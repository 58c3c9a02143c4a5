"""benchmarks.chance.consistent_rows: a no-example pair's rows take the consistent signals from every
solution's (they are equal by construction: tests/unit/test_solutions.py), an examples-pass pair's
rows are the new measurement, and one not measured again stops the merge. Synthetic rows, no model."""

from __future__ import annotations

import pytest

from benchmarks.chance.consistent_rows import merged


def _row(pair_id: str, side: str, **values) -> dict:
    return {"pair_id": pair_id, "side": side, "values": values, "detail": {}}


def test_no_example_rows_are_copied_with_every_solution_s_signals_and_the_others_taken_new():
    pairs = [{"pair_id": "a", "condition": "no example"}, {"pair_id": "b", "condition": "examples pass"}]
    before = {("a", s): _row("a", s, functional_weighted=0.25, differential=0.5) for s in ("original", "mutant")}
    measured = {("b", s): _row("b", s, consistent_weighted=0.1, examples_failed=0.0) for s in ("original", "mutant")}
    rows = merged(pairs, before, measured)
    assert [(r["pair_id"], r["side"]) for r in rows] == [("a", "original"), ("a", "mutant"), ("b", "original"), ("b", "mutant")]
    a = rows[0]["values"]
    assert (a["consistent_weighted"], a["consistent_differential"]) == (0.25, 0.5)
    assert (a["undecided_weighted"], a["undecided_differential"]) == (0.25, 0.5)  # no example: undecided
    assert rows[2] is measured[("b", "original")]


def test_an_examples_pass_pair_not_measured_again_stops_the_merge():
    pairs = [{"pair_id": "b", "condition": "examples pass"}]
    with pytest.raises(SystemExit, match="not measured again"):
        merged(pairs, {}, {})
