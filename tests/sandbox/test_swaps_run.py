"""qualm.engine.swaps.check_swaps: the token swaps of a wrong function run on its tests in the real
sandbox. The trace is built by hand (its numbers stand in for the model's: the model's own swaps are
checked in tests/model/test_assess.py); the test runs are real subprocesses."""

from __future__ import annotations

import time

import pytest
from hand_traces import word_trace
from timing import seconds

from qualm.engine.swaps import check_swaps
from qualm.lang import PYTHON
from qualm.settings import Settings
from qualm.signals.agreement import run_probes
from qualm_sandbox import SandboxConfig, run_tests

# Where the sandbox is missing or broken, conftest.py fails or skips every test here.

CONFIG = SandboxConfig(timeout=seconds(1.0), memory_mb=512)
TESTS = ["assert add(2, 3) == 5", "assert add(0, 0) == 0", "assert add(-1, 1) == 0"]


def _run(body: str, unlikely: dict[str, list[tuple[str, float]]], settings: Settings | None = None):
    fn = PYTHON.find_function(f"def add(a, b):\n    return {body}\n", "add")
    statuses = [o.status for o in run_tests(fn.program, TESTS, CONFIG).outcomes]
    return statuses, check_swaps(fn, word_trace(fn.source, unlikely), TESTS, statuses, None, settings or Settings(), CONFIG, PYTHON.parses)


def test_the_likelier_token_makes_the_wrong_function_pass():
    statuses, result = _run("a - b", {"-": [(" +", 0.9)]})
    assert statuses == ["failed", "passed", "failed"]
    assert result.best is not None and result.best.swap.alternative == " +"
    assert result.best.statuses == ("passed", "passed", "passed")
    assert result.uncertainty == pytest.approx(2 / 3)  # 3 of 3 where the code passes 1 of 3
    assert "'+' for '-' passes 67% more" in result.note


def test_a_swap_of_the_right_function_breaks_it():
    statuses, result = _run("a + b", {"+": [(" -", 0.9)]})
    assert statuses == ["passed"] * 3
    assert result.uncertainty == pytest.approx(-2 / 3)


def test_a_swap_that_loops_costs_its_budget_and_fails():
    # `None` swapped to a call that does not return for a minute: the swap's tests stop at twice the limit
    fn_body = "a + b if b is not None else 0"
    statuses, _ = _run(fn_body, {})
    assert statuses == ["passed"] * 3
    t0 = time.monotonic()
    _, result = _run(fn_body, {"None": [(" __import__('time').sleep(60) or None", 0.5)]})
    assert time.monotonic() - t0 < 2 * CONFIG.timeout + seconds(8)  # the budget, and the runner's start-up
    assert result.outcomes and all(s != "passed" for s in result.outcomes[0].statuses)
    assert result.uncertainty == pytest.approx(-1.0)


def test_off_and_without_tests():
    _, off = _run("a - b", {"-": [(" +", 0.9)]}, Settings().with_overrides(functional={"swap_positions": 0}))
    assert off.uncertainty is None and off.note.startswith("off")
    fn = PYTHON.find_function("def add(a, b):\n    return a - b\n", "add")
    none = check_swaps(fn, word_trace(fn.source, {"-": [(" +", 0.9)]}), [], [], None, Settings(), CONFIG, PYTHON.parses)
    assert none.uncertainty is None


def test_the_function_and_its_swaps_run_with_the_definitions_of_the_file_it_uses():
    # without OFFSET (and `same`) in the program every test would error on a NameError
    text = "OFFSET = 0\n\n\ndef same(x):\n    return x + OFFSET\n\n\ndef add(a, b):\n    return same(a) - b\n"
    fn = PYTHON.find_function(text, "add")
    statuses = [o.status for o in run_tests(fn.program, TESTS, CONFIG).outcomes]
    assert statuses == ["failed", "passed", "failed"]
    result = check_swaps(fn, word_trace(fn.source, {"-": [(" +", 0.9)]}), TESTS, statuses, None, Settings(), CONFIG, PYTHON.parses)
    assert result.best is not None and result.best.statuses == ("passed", "passed", "passed")


def test_the_swaps_of_an_async_def_run_as_its_tests_do():
    # the tests call `add(2, 3)` without awaiting: settled to the result for the code and its swaps
    # alike (qualm.signals.agreement); before, every variant failed every test on a coroutine
    fn = PYTHON.find_function("async def add(a, b):\n    return a - b\n", "add")
    statuses = [o.status for o in run_probes(fn.program, TESTS, "add", CONFIG).outcomes]
    assert statuses == ["failed", "passed", "failed"]
    result = check_swaps(fn, word_trace(fn.source, {"-": [(" +", 0.9)]}), TESTS, statuses, None, Settings(), CONFIG, PYTHON.parses)
    assert result.best is not None and result.best.statuses == ("passed", "passed", "passed")


def test_the_swaps_of_a_method_run_in_its_class():
    text = "class Acc:\n    def __init__(self, v):\n        self.v = v\n\n    def add(self, a, b):\n        return a - b\n"
    fn = PYTHON.find_function(text, "Acc.add")
    tests = ["assert Acc(0).add(2, 3) == 5", "obj = Acc(1); assert obj.add(0, 0) == 0", "assert Acc(0).add(-1, 1) == 0"]
    statuses = [o.status for o in run_probes(fn.program, tests, "Acc.add", CONFIG).outcomes]
    assert statuses == ["failed", "passed", "failed"]
    result = check_swaps(fn, word_trace(fn.source, {"-": [(" +", 0.9)]}), tests, statuses, None, Settings(), CONFIG, PYTHON.parses)
    assert result.best is not None and result.best.statuses == ("passed", "passed", "passed")
