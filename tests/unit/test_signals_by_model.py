"""benchmarks.chance.signals_by_model: only pairs both models measured whole are read, a model against
itself differs by exactly 0, and a signal that ranks better with the second model reads a positive
paired difference. Synthetic rows, no model."""

from __future__ import annotations

import re

from benchmarks.chance.signals_by_model import compared, measured, shared_pairs, signal


def rows(doubts: dict[str, tuple[float, float]]) -> dict:
    # (pair_id, side) -> a row whose "doubt" is the first value for the original, the second for the mutant
    out = {}
    for pid, (right, wrong) in doubts.items():
        out[(pid, "original")] = {"values": {"doubt": right}, "seconds": 1.0}
        out[(pid, "mutant")] = {"values": {"doubt": wrong}, "seconds": 2.0}
    return out


PAIRS = [{"pair_id": f"p{i}", "task_id": f"t{i}"} for i in range(12)]


def test_only_pairs_every_model_measured_whole_are_read() -> None:
    a = rows({p["pair_id"]: (0.1, 0.9) for p in PAIRS})
    b = rows({p["pair_id"]: (0.1, 0.9) for p in PAIRS[:5]})
    del b[("p4", "mutant")]
    assert [p["pair_id"] for p in shared_pairs(PAIRS, {"a": a, "b": b})] == ["p0", "p1", "p2", "p3"]


def test_a_model_against_itself_differs_by_zero_and_a_better_one_by_more() -> None:
    # the first model ranks the wrong function above in 7 of 12 pairs, the second in all
    first = rows({p["pair_id"]: (0.5, 0.9 if i < 7 else 0.1) for i, p in enumerate(PAIRS)})
    second = rows({p["pair_id"]: (0.1 + 0.01 * i, 0.9) for i, p in enumerate(PAIRS)})
    a, b = measured("a", PAIRS, first), measured("b", PAIRS, second)
    same = compared([a, measured("a2", PAIRS, first)], {"doubt": {"a": signal("doubt"), "a2": signal("doubt")}})[0]
    assert "a2 minus a +0.000 (+0.000 to +0.000)" in same
    better = compared([a, b], {"doubt": {"a": signal("doubt"), "b": signal("doubt")}})[0]
    low = float(re.search(r"b minus a \+\d\.\d{3} \(([+-]\d\.\d{3}) to", better).group(1))
    assert "b 1.000" in better and low > 0
    assert a.seconds == [1.0, 2.0] * 12
