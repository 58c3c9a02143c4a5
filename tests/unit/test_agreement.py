"""The answers of the function under test, recorded around each test in the real sandbox, and the two
signals built on them, on hand-made programs with hand-computed values."""

from __future__ import annotations

import pytest

from qualm.signals.agreement import ProbeOutcome, agreement, read_answers, run_probes, weighted_functional
from qualm_sandbox import run_tests

RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
TESTS = [
    "assert add(1, 2) == 3",
    "assert add(2, 2) == 5",  # a wrong expected value: no right function passes it
    "assert all(add(x, 0) == x for x in range(3))",  # three calls inside a generator
    "assert add('a', 1) == 0",  # raises inside the function
]


def _answers(report):
    return [None if o.answers is None else [text for _, text in o.answers] for o in report.outcomes]


def test_the_probes_keep_each_verdict_and_record_every_call():
    probed = run_probes(RIGHT, TESTS, "add")
    plain = run_tests(RIGHT, TESTS)
    assert [o.status for o in probed.outcomes] == [o.status for o in plain.outcomes] == ["passed", "failed", "passed", "error"]
    assert _answers(probed) == [["3"], ["4"], ["0", "1", "2"], ["raises TypeError"]]
    assert probed.passed == 2 and probed.isolation


def test_recursion_is_not_recorded_and_costs_no_extra_frames():
    deep = "import sys\nsys.setrecursionlimit(400)\ndef depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
    # 380 levels fit under the limit of 400 only if the recorder adds no frame per level
    tests = ["assert depth(380) == 380", "assert depth(3) == 3"]
    probed = run_probes(deep, tests, "depth")
    assert [o.status for o in probed.outcomes] == [o.status for o in run_tests(deep, tests).outcomes] == ["passed", "passed"]
    assert _answers(probed) == [["380"], ["3"]]


def test_values_are_compared_as_equal_values_not_as_text():
    prog = (
        "def f(kind):\n"
        "    if kind == 'set': return {'b', 'a', 'c'}\n"
        "    if kind == 'dict': return dict([('y', 1), ('x', 2)])\n"
        "    if kind == 'float': return 0.1 + 0.2\n"
        "    if kind == 'bool': return True\n"
        "    return object()\n"
    )
    other = (
        "def f(kind):\n"
        "    if kind == 'set': return {'c', 'a', 'b'}\n"
        "    if kind == 'dict': return {'x': 2, 'y': 1}\n"
        "    if kind == 'float': return 0.3\n"
        "    if kind == 'bool': return 1\n"
        "    return object()\n"
    )
    tests = ["assert f('set')", "assert f('dict')", "assert f('float')", "assert f('bool')", "assert f('object')"]
    a, b = run_probes(prog, tests, "f"), run_probes(other, tests, "f")
    assert [x.answers[0][0] for x in a.outcomes] == [x.answers[0][0] for x in b.outcomes]  # same digests
    assert a.outcomes[3].answers[0][1] == "True" and b.outcomes[3].answers[0][1] == "1"  # shown as written


def _digests(report):
    return [None if o.answers is None else [d for d, _ in o.answers] for o in report.outcomes]


def test_numpy_arrays_are_compared_by_every_value_and_its_scalars_as_numbers():
    # numpy's repr of a large array elides its middle: these two would have looked the same
    prog = "import numpy as np\ndef f(n, at):\n    a = np.zeros(n)\n    a[at] = 1\n    return a\ndef g(n):\n    return np.int64(n).sum()\n"
    tests = ["assert f(3000, 1500) is not None", "assert f(3000, 1501) is not None", "assert f(2, 0) is not None"]
    arrays = run_probes(prog, tests, "f")
    assert [o.status for o in arrays.outcomes] == ["passed"] * 3
    first, second, small = _digests(arrays)
    assert first != second
    listed = run_probes("def f(n, at):\n    return [1.0 if i == at else 0.0 for i in range(n)]\n", tests[2:], "f")
    assert small != _digests(listed)[0]  # an array is not a list (== between them is elementwise)
    same = run_probes("import numpy as np\ndef f(n, at):\n    return np.array([1.0 if i == at else 0.0 for i in range(n)])\n", tests[2:], "f")
    assert small == _digests(same)[0]
    numbers = run_probes(prog, ["assert g(3) == 3"], "g")
    plain = run_probes("def g(n):\n    return n\n", ["assert g(3) == 3"], "g")
    assert _digests(numbers) == _digests(plain)  # np.int64(3) answers as 3 does


def test_a_frame_is_compared_by_its_columns_index_and_values():
    # pandas is not installed here: a stand-in with a DataFrame's shape of interface (columns, index,
    # to_numpy) whose repr, like pandas's, leaves rows out
    frame = (
        "import numpy as np\n"
        "class Frame:\n"
        "    def __init__(self, rows):\n"
        "        self.columns, self.index, self.rows = ['a'], list(range(len(rows))), rows\n"
        "    def to_numpy(self):\n"
        "        return np.array([[r] for r in self.rows])\n"
        "    def __repr__(self):\n"
        "        return f'Frame with {len(self.rows)} rows'\n"
        "def f(rows):\n"
        "    return Frame(rows)\n"
    )
    a = run_probes(frame, ["assert f([1, 2, 3])", "assert f([1, 5, 3])", "assert f([1, 2, 3])"], "f")
    one, other, again = _digests(a)
    assert one != other and one == again


def test_a_test_cannot_forge_the_answers():
    forged = "print('\\n__qualm_answers_0000000000000000__ [(\"x\", \"42\")]'); assert add(1, 1) == 2"
    report = run_probes(RIGHT, [forged], "add")
    assert _answers(report) == [["2"]]
    assert "42" in report.outcomes[0].output  # what it printed is kept as its output


def test_a_test_that_times_out_leaves_no_answers():
    report = run_probes("def spin(n):\n    while True:\n        pass\n", ["assert spin(1) == 1"], "spin")
    assert report.outcomes[0].status == "timeout" and report.outcomes[0].answers is None


def test_a_function_name_that_is_not_a_name_is_refused():
    with pytest.raises(ValueError):
        run_probes(RIGHT, TESTS, "add); import os; (")


def test_any_python_identifier_is_a_function_name():
    # a crash of `qualm assess` on `def grüße(...)` before this
    report = run_probes('def grüße(name):\n    return f"Hallo, {name}!"\n', ["assert grüße('Ana') == 'Hallo, Ana!'"], "grüße")
    assert report.outcomes[0].status == "passed" and _answers(report) == [["'Hallo, Ana!'"]]
    with pytest.raises(ValueError):
        run_probes(RIGHT, TESTS, "class")


ASYNC = "import asyncio\nasync def squares(xs):\n    await asyncio.sleep(0)\n    return [x * x for x in xs]\n"
ASYNC_WRONG = ASYNC.replace("x * x", "x + x")


def test_an_async_def_called_without_await_is_run_to_its_result():
    tests = [
        "assert squares([1, 3]) == [1, 9]",  # how a model writes it: called as if it were plain
        "assert asyncio.run(squares([3])) == [9]",  # how it should be written: still the result
        "async def t():\n    assert await squares([3]) == [9]\nasyncio.run(t())",  # from async code: awaited there
        "assert squares([1]) == [2]",  # a wrong expected value still fails
    ]
    right, wrong = run_probes(ASYNC, tests, "squares"), run_probes(ASYNC_WRONG, tests, "squares")
    assert [o.status for o in right.outcomes] == ["passed", "passed", "passed", "failed"]
    assert _answers(right) == [["[1, 9]"], ["[9]"], ["[9]"], ["[1]"]]  # the results, recorded also when awaited
    assert [o.status for o in wrong.outcomes] == ["failed", "failed", "failed", "passed"]
    # before, every coroutine's answer was '<coroutine object squares>': right and wrong agreed
    assert _answers(wrong)[0] == ["[2, 6]"]
    # plain run_tests (the paper's evaluation) is unchanged: the coroutine is not equal to a list
    assert run_tests(ASYNC, tests[:1]).outcomes[0].status == "failed"


GENERATORS = (
    "def chunks(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\n"
    "def naturals():\n    i = 0\n    while True:\n        yield i\n        i += 1\n"
    "def lazy(n):\n    return (i for i in range(n))\n"
)


def test_a_generator_function_is_compared_by_its_items():
    tests = [
        "assert chunks([1, 2, 3], 2) == [[1, 2], [3]]",  # compared with a list: its items
        "assert list(chunks([1, 2, 3], 2)) == [[1, 2], [3]]",
        "assert next(chunks([1, 2, 3], 2)) == [1, 2]",  # still an iterator
        "assert chunks([1, 2, 3], 2) == [[1, 2, 3]]",
    ]
    report = run_probes(GENERATORS, tests, "chunks")
    assert [o.status for o in report.outcomes] == ["passed", "passed", "passed", "failed"]
    assert _answers(report)[0] == ["[[1, 2], [3]]"]
    # an endless generator stays an iterator (the first 10001 items are recorded)
    endless = run_probes(GENERATORS, ["g = naturals(); next(g); assert next(g) == 1", "assert naturals() == [0]"], "naturals")
    assert [o.status for o in endless.outcomes] == ["passed", "failed"]
    # a plain function that returns a generator is not settled: its tests see what a caller gets
    assert run_probes(GENERATORS, ["assert lazy(2) == [0, 1]"], "lazy").outcomes[0].status == "failed"


CLASS = """
class Stack:
    def __init__(self):
        self.items = []
    def push(self, x):
        self.items.append(x)
    def pop(self):
        return self.items.pop()
    def depth(self, n):
        return 0 if n == 0 else 1 + self.depth(n - 1)
    @staticmethod
    def make(n):
        return list(range(n))
    @classmethod
    def named(cls):
        return cls.__name__
    @property
    def top(self):
        return self.items[-1]
"""


def test_a_method_is_recorded_on_its_class():
    pop = run_probes(CLASS, ["s = Stack(); s.push(1); s.push(2); assert s.pop() == 2", "assert Stack().pop() == 1"], "Stack.pop")
    assert [o.status for o in pop.outcomes] == ["passed", "error"] and _answers(pop) == [["2"], ["raises IndexError"]]
    assert _answers(run_probes(CLASS, ["assert Stack().depth(4) == 4"], "Stack.depth")) == [["4"]]  # recursion not recorded
    # a staticmethod and a classmethod stay what they are, called on the class or an instance
    make = run_probes(CLASS, ["assert Stack.make(3) == [0, 1, 2]", "assert Stack().make(1) == [0]"], "Stack.make")
    assert [o.status for o in make.outcomes] == ["passed", "passed"] and _answers(make) == [["[0, 1, 2]"], ["[0]"]]
    assert _answers(run_probes(CLASS, ["assert Stack.named() == 'Stack'"], "Stack.named")) == [["'Stack'"]]
    # a property is read, not called: its test runs, unrecorded
    top = run_probes(CLASS, ["s = Stack(); s.push(4); assert s.top == 4"], "Stack.top")
    assert top.outcomes[0].status == "passed" and _answers(top) == [[]]
    with pytest.raises(ValueError):
        run_probes(CLASS, [], "Stack.pop.inner")


def test_read_answers_without_a_marker():
    assert read_answers("hello\n", "__m__ ") == ("hello\n", None)


def _o(status, *answers):
    return ProbeOutcome(0, "t", status, answers=None if answers == (None,) else tuple((a, a) for a in answers))


def test_agreement_by_hand():
    cand = [_o("passed", "3"), _o("failed", "4"), _o("passed", "0", "1")]
    same = [_o("passed", "3"), _o("failed", "4"), _o("passed", "0", "1")]
    half = [_o("failed", "9"), _o("failed", "4"), _o("timeout", None)]  # 1 of the 2 compared probes
    r = agreement(cand, [same, half])
    assert r.per_solution == [1.0, 0.5]
    assert r.uncertainty == pytest.approx(1 - (1.0 + 0.5) / 2)
    assert r.compared == 2
    assert agreement(cand, []).uncertainty is None


def test_disagreements_name_what_most_solutions_answer():
    cand = [_o("failed", "4")]
    sols = [[_o("passed", "5")], [_o("passed", "5")], [_o("failed", "4")]]
    assert agreement(cand, sols).disagreements == [("t", "4", "5")]
    # a split vote is no majority: nothing to show
    assert agreement(cand, sols[:2] + [[_o("failed", "4")], [_o("failed", "6")]]).disagreements == []


def test_weighted_functional_by_hand():
    # test 0: passed by 2 of 2 solutions (weight 1); test 1: by 1 of 2 (0.5); test 2: by none (0)
    sols = [[_o("passed", "a"), _o("passed", "b"), _o("failed", "c")], [_o("passed", "a"), _o("failed", "b"), _o("failed", "c")]]
    cand = [_o("passed", "a"), _o("failed", "x"), _o("failed", "c")]
    r = weighted_functional(cand, sols)
    assert r.weights == [1.0, 0.5, 0.0]
    # the candidate passes the weight-1 test only: 1 - 1 / 1.5; the unweighted count would say 2/3
    assert r.uncertainty == pytest.approx(1 - 1 / 1.5)
    assert weighted_functional(cand, [[_o("failed", "a")] * 3]).uncertainty is None  # nothing to weigh by


def test_a_test_a_solution_never_ran_is_not_its_verdict():
    stopped = ProbeOutcome(0, "t", "error", "cancelled before it ran")
    sols = [[_o("passed", "a")], [stopped]]
    assert weighted_functional([_o("passed", "a")], sols).weights == [1.0]
