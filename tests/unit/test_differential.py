"""Differential testing on varied inputs (``qualm.signals.differential``): the inputs found in the
tests, their type-aware mutations, and the signal, on hand-made programs in the real sandbox with
hand-computed values."""

from __future__ import annotations

from qualm.signals.agreement import ProbeOutcome, run_probes
from qualm.signals.differential import answered, call_arguments, differential, mutated_calls, mutations, spread

RIGHT = "def close(xs, t):\n    return any(abs(a - b) < t for i, a in enumerate(xs) for b in xs[i + 1:])\n"
WRONG = RIGHT.replace("< t", "<= t")  # the boundary slip the model's two tests do not catch
TESTS = ["assert close([1.0, 2.0, 3.0], 0.5) == False", "assert close([1.0, 2.8, 3.0], 0.3) == True"]


def test_only_literal_calls_of_the_function_are_inputs():
    tests = [
        "assert f(1, [2, 3]) == 4",
        "assert f(1, [2, 3]) == 4",  # the same input again
        "assert f(x, 2) == 1",  # a name: not a literal
        "assert g(5) == 5 and f(k=-2) == 0",  # g is another function; a keyword argument
        "assert f(*args) == 0",
        "assert (",  # not Python
    ]
    assert call_arguments(tests, "f") == [((1, [2, 3]), ()), ((), (("k", -2),))]


def test_mutations_by_type():
    assert mutations(True) == [False]
    assert mutations(3) == [4, 2, 0, -3, 6]
    assert mutations(20_000) == [20_001, 19_999, 0, -20_000]  # no doubling of a large int
    assert mutations(0.5) == [1.5, -0.5, 0.0, -0.5, 1.0, 0.25]
    assert mutations("ab") == ["", "b", "a", "ba", "abb", "AB", "ab", "ab "]
    assert mutations([2, 1])[:6] == [[], [1], [2], [1, 2], [2, 1, 1], [1, 2]]
    assert [3, 1] in mutations([2, 1]) and (2, 2) in mutations((2, 1))  # one element changed, same kind
    assert mutations({"a": 1}) == [] and mutations(None) == []


def test_mutated_calls_are_new_distinct_and_seeded():
    seeds = call_arguments(TESTS, "close")
    calls = mutated_calls(seeds, "close", 20, seed=7)
    assert len(calls) == len(set(calls)) == 20
    assert not {"close([1.0, 2.0, 3.0], 0.5)", "close([1.0, 2.8, 3.0], 0.3)"} & set(calls)
    assert calls == mutated_calls(seeds, "close", 20, seed=7) != mutated_calls(seeds, "close", 20, seed=8)
    assert "close([1.0, 2.0, 3.0], 1.0)" in mutated_calls(seeds, "close", 1000)  # 0.5 doubled: the boundary
    assert mutated_calls([], "close", 20) == []


def test_the_boundary_slip_differs_from_the_solutions_where_the_tests_did_not_look():
    calls = mutated_calls(call_arguments(TESTS, "close"), "close", 1000)
    right = run_probes(RIGHT, calls, "close").outcomes
    wrong = run_probes(WRONG, calls, "close").outcomes
    # the model's own tests pass for both...
    assert [o.status for o in run_probes(WRONG, TESTS, "close").outcomes] == ["passed", "passed"]
    # ...but on the varied inputs the slip answers otherwise wherever two numbers are exactly t apart
    expected = [c for c, r, w in zip(calls, right, wrong) if r.answers != w.answers]
    assert "close([1.0, 2.0, 3.0], 1.0)" in expected
    d = differential(calls, wrong, [right, right, right])
    assert d.decided == len(calls) and d.uncertainty == len(expected) / len(calls)
    assert ("close([1.0, 2.0, 3.0], 1.0)", "True", "False") in d.differences
    assert differential(calls, right, [right, right, right]).uncertainty == 0.0


def _o(i: int, answer: str | None, status: str = "passed") -> ProbeOutcome:
    return ProbeOutcome(i, f"f({i})", status, "", "", 0.0, None if answer is None else ((answer, answer),))


def test_only_inputs_most_solutions_agree_on_count():
    calls = ["f(0)", "f(1)", "f(2)", "f(3)"]
    code = [_o(0, "1"), _o(1, "1"), _o(2, "1"), _o(3, None)]
    solutions = [
        [_o(0, "1"), _o(1, "2"), _o(2, "2"), _o(3, "1")],
        [_o(0, "1"), _o(1, "2"), _o(2, "3"), _o(3, "1")],
        [_o(0, "1"), _o(1, "1"), _o(2, "4"), _o(3, "1")],
    ]
    d = differential(calls, code, solutions)
    # f(0): all three say 1, as the code does; f(1): two of three say 2 (2/3, enough), the code 1;
    # f(2): no answer has two thirds; f(3): the code gave no answer (a timeout)
    assert (d.decided, d.uncertainty) == (2, 0.5)
    assert d.differences == [("f(1)", "1", "2")]
    # a solution the run was stopped before does not vote
    stopped = [[_o(i, None, "error") for i in range(4)]] * 2
    assert differential(calls, code, [solutions[0], *stopped]).decided == 0
    assert differential([], [], []).uncertainty is None and "no literal inputs" in differential([], [], []).note


def test_the_solutions_are_asked_only_the_calls_the_code_answered():
    # the code gave no answer to f(1) (a timeout): only f(0) and f(2) are asked of the solutions,
    # and their answers are placed back among the four calls
    code = [_o(0, "1"), _o(1, None, "timeout"), _o(2, "3"), _o(3, None, "error")]
    asked = answered(code)
    assert asked == [0, 2]
    theirs = [_o(0, "1"), _o(2, "4")]
    placed = spread(theirs, asked, 4)
    assert placed == [theirs[0], None, theirs[1], None]
    # a call not asked does not vote; the decided calls and the difference are those of asking all
    d = differential(["f(0)", "f(1)", "f(2)", "f(3)"], code, [placed, placed])
    assert (d.inputs, d.decided, d.uncertainty) == (4, 2, 0.5)
    assert d.differences == [("f(2)", "3", "4")]
