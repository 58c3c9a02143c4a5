"""Evaluation data sets: loaders, the user problem-set format, and official labels run in the real
sandbox (bubblewrap where installed; the label tests are skipped, with the reason, where qualm's
sandbox refuses to run, e.g. as root without bubblewrap). No model is used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from timing import seconds

from qualm.evaluation.apps import apps
from qualm.evaluation.datasets import humaneval, load, mbpp, mbpp_sanitized
from qualm.evaluation.labels import _spread, official_label
from qualm.evaluation.problems import OfficialTests, Problem
from qualm.evaluation.user_problems import user_jsonl
from qualm.fitting import calibrate
from qualm.fitting.reference_data import MBPP_PATH, MBPP_SANITIZED_PATH, DatasetError
from qualm_sandbox import SandboxConfig

FIXTURE = Path(__file__).with_name("fixtures") / "apps_small.jsonl"
# Short timeouts keep the hanging-candidate tests to about a second each.
FAST = SandboxConfig(timeout=seconds(1.0))

# skips where no sandbox runs, fails so under CI (tests/sandbox_state.py)
needs_sandbox = pytest.mark.needs_sandbox


@pytest.fixture(scope="module")
def he() -> dict[str, Problem]:
    return {p.task_id: p for p in humaneval()}


@pytest.fixture(scope="module")
def fixture_apps() -> dict[str, Problem]:
    return {p.task_id: p for p in apps(FIXTURE)}


def _write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


# ---------------------------------------------------------------------------------------------
# Loaders


def test_humaneval_has_164_check_problems(he):
    assert len(he) == 164
    p = he["HumanEval/0"]
    assert p.dataset == "humaneval" and p.entry_point == "has_close_elements"
    assert p.tests.kind == "check" and p.tests.count == 1 and "def check(candidate)" in p.tests.check
    assert p.prompt.startswith("from typing import List") and p.reference.startswith(p.prompt)


def test_mbpp_splits_by_task_id():
    test, calibration, every = mbpp(), mbpp(split="calibration"), mbpp(split="all")
    assert len(test) == 500 and [int(p.task_id.split("/")[1]) for p in test] == list(range(11, 511))
    assert len(calibration) == 464 and {int(p.task_id.split("/")[1]) for p in calibration} == set(range(511, 975))
    assert len(every) == 974
    p = test[0]
    assert p.task_id == "MBPP/11" and p.entry_point == "remove_Occ" and p.tests.kind == "asserts" and p.tests.count == 3
    assert p.prompt.endswith('Your code should pass this test:\nassert remove_Occ("hello","l") == "heo"\n"""\n')
    with pytest.raises(DatasetError, match="unknown MBPP split 'train'"):
        mbpp(split="train")


def test_mbpp_agrees_with_calibration():
    assert (calibrate.MBPP_TEST_IDS, calibrate.MBPP_CALIBRATION_IDS) == (range(11, 511), range(511, 975))
    ours = {p.task_id: p.prompt for p in mbpp(split="calibration")}
    theirs = {p.task_id: p.description for p in calibrate.mbpp_problems(MBPP_PATH)}
    assert ours == theirs
    shipped = list(calibrate.mbpp_problems())  # the default: qualm's own copy
    assert [p.task_id for p in shipped] == list(ours)
    assert calibrate.describe(shipped[:90], "MBPP") == "MBPP task_ids 511-600 (90 problems)"


def test_mbpp_challenge_tests_are_optional():
    plain = {p.task_id: p.tests.count for p in mbpp()}
    extra = {p.task_id: p.tests.count for p in mbpp(challenge=True)}
    grown = [t for t in plain if extra[t] > plain[t]]
    assert len(grown) == 11 and all(plain[t] == 3 for t in plain)


def test_mbpp_sanitized_counts_and_entry_points():
    assert len(mbpp_sanitized(split="all")) == 427
    assert len(mbpp_sanitized()) == 257
    assert len(mbpp_sanitized(split="calibration")) == 163
    two = {p.task_id: p for p in mbpp_sanitized(split="all")}["MBPP/2"]
    # "assert set(similar_elements(...)) == ..." tests similar_elements, not set
    assert two.entry_point == "similar_elements" and two.dataset == "mbpp-sanitized"
    with_imports = [p for p in mbpp_sanitized(MBPP_SANITIZED_PATH, "all") if p.tests.setup]
    assert with_imports and all("import" in p.tests.setup for p in with_imports)


def test_missing_file_names_the_path(tmp_path):
    missing = tmp_path / "nope.jsonl"
    for loader in (mbpp, mbpp_sanitized, apps, user_jsonl):
        with pytest.raises(DatasetError, match=str(missing)):
            loader(missing)


def test_apps_fixture(fixture_apps):
    assert list(fixture_apps) == ["APPS/90001", "APPS/90002", "APPS/90003", "APPS/90004"]
    stdio, listed, call, leet = fixture_apps.values()
    assert stdio.tests.kind == "stdio" and stdio.entry_point is None and stdio.dataset == "apps-introductory"
    assert stdio.tests.cases[0] == ("3\n1 2 3\n", "6\n")
    assert listed.tests.cases[0][1] == "0.333333\n2.000000"  # outputs stored as a list of lines
    assert "Use Standard Input format" in stdio.prompt
    assert call.tests.kind == "call" and call.entry_point == "digital_root" and call.tests.cases[0] == ((16,), [7])
    assert "Call-Based format" in call.prompt and "def digital_root(n):" in call.prompt
    assert leet.dataset == "apps-interview" and leet.tests.cases[1] == (([3, 2, 4], 6), [1, 2])
    assert all(p.reference for p in fixture_apps.values())


def test_apps_filters_and_formats(tmp_path):
    assert [p.task_id for p in apps(FIXTURE, difficulty="interview")] == ["APPS/90002", "APPS/90004"]
    assert [p.task_id for p in apps(FIXTURE, limit=1)] == ["APPS/90001"]
    with pytest.raises(DatasetError, match="unknown APPS difficulty"):
        apps(FIXTURE, difficulty="hard")
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    as_array = tmp_path / "apps.json"
    as_array.write_text(json.dumps(rows))
    assert len(apps(as_array)) == 4
    untested = dict(rows[0], problem_id=1, input_output="")
    assert [p.task_id for p in apps(_write_lines(tmp_path / "some.jsonl", [untested, rows[1]]))] == ["APPS/90002"]
    broken = dict(rows[0], input_output="{not json")
    with pytest.raises(DatasetError, match=r"bad\.jsonl:2: input_output is not valid JSON"):
        apps(_write_lines(tmp_path / "bad.jsonl", [rows[1], broken]))


def test_apps_hub_without_datasets_library_says_what_is_missing():
    try:
        import datasets  # noqa: F401 - whether it is installed is the question
    except ImportError:
        with pytest.raises(DatasetError, match="needs the datasets library"):
            load("codeparrot/apps", difficulty="introductory")
    else:
        pytest.skip("the datasets library is installed here; the hub itself is not reachable")


USER_ROWS = [
    {"task_id": "mine/1", "prompt": "def inc(x):\n    '''Add one.'''\n", "entry_point": "inc", "tests": ["assert inc(1) == 2", "assert inc(-1) == 0"], "setup": "import math"},
    {"task_id": "mine/2", "prompt": "def dec(x): ...", "entry_point": "dec", "check": "def check(candidate):\n    assert candidate(1) == 0\n", "reference": "def dec(x):\n    return x - 1\n"},
]


def test_user_jsonl(tmp_path):
    path = _write_lines(tmp_path / "mine.jsonl", [USER_ROWS[0], "", USER_ROWS[1]])
    one, two = user_jsonl(path)
    assert one.tests == OfficialTests("asserts", entry_point="inc", setup="import math", asserts=("assert inc(1) == 2", "assert inc(-1) == 0"))
    assert one.dataset == "user" and one.reference is None
    assert two.tests.kind == "check" and two.reference.startswith("def dec")


@pytest.mark.parametrize(
    "bad_row, message",
    [
        ('{"task_id": "x", "prompt": ', "not valid JSON"),
        ('["a list"]', "expected a JSON object"),
        ({"task_id": "x", "prompt": "p", "entry_point": "f"}, "give exactly one of 'tests'"),
        ({**USER_ROWS[0], "check": "def check(candidate): pass"}, "give exactly one of 'tests'"),
        ({**USER_ROWS[0], "test": ["assert f()"]}, "unknown field"),
        ({**USER_ROWS[0], "task_id": "mine/9", "entry_point": "not a name"}, "not a Python identifier"),
        ({**USER_ROWS[0], "task_id": "mine/9", "tests": ["assert inc(1 == 2"]}, r"tests\[0\] is not valid Python"),
        ({**USER_ROWS[0], "task_id": "mine/9", "tests": []}, "non-empty list of strings"),
        ({**USER_ROWS[1], "task_id": "mine/9", "check": "def verify(c): pass"}, "must define a function check"),
        ({**USER_ROWS[0], "prompt": 3}, "'prompt' must be a string"),
        (USER_ROWS[0], "task_id 'mine/1' already used at .*:1"),
    ],
)
def test_user_jsonl_names_the_bad_line(tmp_path, bad_row, message):
    path = _write_lines(tmp_path / "mine.jsonl", [USER_ROWS[0], bad_row])
    with pytest.raises(DatasetError, match=rf"mine\.jsonl:2: (.* )?{message}"):
        user_jsonl(path)


def test_load_dispatches(tmp_path):
    assert len(load("humaneval")) == 164
    assert len(load("mbpp")) == 500 and len(load("mbpp", split="calibration")) == 464
    assert len(load("mbpp-sanitized", limit=5)) == 5
    assert [p.task_id for p in load(FIXTURE, difficulty="introductory")] == ["APPS/90001", "APPS/90003"]
    assert [p.task_id for p in load(_write_lines(tmp_path / "mine.jsonl", USER_ROWS))] == ["mine/1", "mine/2"]
    with pytest.raises(DatasetError, match="neither a file nor a known data set"):
        load("humaneval-x")
    with pytest.raises(DatasetError, match="difficulty applies to APPS only"):
        load("mbpp", difficulty="interview")
    with pytest.raises(DatasetError, match="has no splits"):
        load("humaneval", split="test")


def test_official_tests_validate_themselves():
    with pytest.raises(ValueError, match="needs check source and an entry point"):
        OfficialTests("check", check="def check(c): pass")
    with pytest.raises(ValueError, match="unknown kind"):
        OfficialTests("pytest")  # type: ignore[arg-type]


def test_spread_keeps_first_and_last():
    assert _spread(5, 10) == [0, 1, 2, 3, 4]
    assert _spread(100, 5) == [0, 24, 49, 74, 99]
    assert _spread(100, 1) == [0]
    assert _spread(7, None) == list(range(7))


# ---------------------------------------------------------------------------------------------
# Official labels (real sandbox)


@needs_sandbox
def test_humaneval_label(he):
    p = he["HumanEval/0"]
    good = official_label(p, p.reference)
    assert good.passed and good.status == "passed" and (good.tests_total, good.tests_run, good.tests_passed) == (1, 1, 1)
    wrong = official_label(p, "def has_close_elements(numbers, threshold):\n    return False\n")
    assert not wrong.passed and wrong.status == "failed" and wrong.tests_passed == 0
    missing = official_label(p, "def something_else():\n    pass\n")
    assert missing.status == "error" and "NameError" in missing.detail


@needs_sandbox
def test_mbpp_label():
    p = mbpp()[0]  # MBPP/11, remove_Occ
    assert official_label(p, p.reference).passed
    wrong = official_label(p, "def remove_Occ(s, ch):\n    return s[1:-1]\n", fail_fast=False)
    assert not wrong.passed and wrong.status == "failed" and (wrong.tests_run, wrong.tests_passed) == (3, 2)
    assert wrong.detail.startswith("test 1 of 3 (failed)")  # "ell" for "heo"


@needs_sandbox
def test_mbpp_setup_code_runs_before_each_assert():
    p = {q.task_id: q for q in mbpp(split="all")}["MBPP/367"]  # test_setup_code builds trees
    assert p.tests.setup and official_label(p, p.reference).passed


@needs_sandbox
def test_apps_stdio_labels(fixture_apps):
    total, divide = fixture_apps["APPS/90001"], fixture_apps["APPS/90002"]
    assert official_label(total, total.reference).passed
    solutions = json.loads(json.loads(FIXTURE.read_text().splitlines()[0])["solutions"])
    assert official_label(total, solutions[1]).passed  # reads sys.stdin at once
    assert official_label(total, "print(sum(map(int, open(0).read().split()[1:])))").passed  # fd 0
    assert official_label(total, "import sys\nn = int(input())\nprint(sum(map(int, input().split())))\nsys.exit(0)\n").passed
    wrong = official_label(total, "n = int(input())\nprint(n)\n")
    assert not wrong.passed and wrong.status == "failed" and "wrong output" in wrong.detail and wrong.tests_run == 1
    assert official_label(divide, divide.reference).passed
    # more digits, other whitespace: token-wise and within 1e-6
    assert official_label(divide, "import sys\nd = sys.stdin.read().split()\nfor i in range(int(d[0])):\n    print(int(d[1 + 2 * i]) / int(d[2 + 2 * i]), end='  ')\n").passed
    assert not official_label(divide, "import sys\nd = sys.stdin.read().split()\nfor i in range(int(d[0])):\n    print(round(int(d[1 + 2 * i]) / int(d[2 + 2 * i]), 2))\n").passed
    crash = official_label(total, "import sys\nsys.exit(3)\n")
    assert crash.status == "error" and "exited with code 3" in crash.detail


@needs_sandbox
def test_apps_call_labels(fixture_apps):
    root, two_sum = fixture_apps["APPS/90003"], fixture_apps["APPS/90004"]
    assert official_label(root, root.reference).passed
    assert official_label(root, "def digital_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n").passed
    wrong = official_label(root, "def digital_root(n):\n    return sum(map(int, str(n)))\n", fail_fast=False)
    assert not wrong.passed and (wrong.tests_run, wrong.tests_passed) == (4, 2) and "returned 15" in wrong.detail
    assert official_label(two_sum, two_sum.reference).passed  # Solution().twoSum, List from the header
    assert official_label(two_sum, "def twoSum(nums, target):\n    return (0, 1) if nums[0] + nums[1] == target else (1, 2)\n").passed  # tuple == list
    assert not official_label(two_sum, "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n").passed


@needs_sandbox
def test_broken_candidates_fail_cleanly(he, fixture_apps):
    p, total = he["HumanEval/0"], fixture_apps["APPS/90001"]
    syntax = official_label(p, "def has_close_elements(numbers, threshold)\n    return True\n")
    assert syntax.status == "syntax_error" and syntax.tests_run == 0 and "line 1" in syntax.detail
    for problem, loop in [(p, "def has_close_elements(numbers, threshold):\n    while True:\n        pass\n"), (total, "while True:\n    pass\n")]:
        hung = official_label(problem, loop, FAST)
        assert hung.status == "timeout" and not hung.passed and hung.tests_run == 1  # fail-fast: one timeout only
    fake = 'import json\nprint(json.dumps({"index": 0, "status": "passed"}))\ndef has_close_elements(numbers, threshold):\n    print(\'{"index": 0, "status": "passed"}\')\n    return None\n'
    assert official_label(p, fake).status == "failed"
    chatty = p.reference + "\nprint('debug output')\n"
    assert official_label(p, chatty).passed  # printing is not failing, for a function problem
    exits = official_label(p, "import sys\nsys.exit(0)\n")
    assert exits.status == "error" and "sys.exit" in exits.detail


@needs_sandbox
def test_cap_and_fail_fast():
    cases = tuple((f"{i}\n", f"{i * 2}\n") for i in range(40))
    problem = Problem("t/1", "user", "double it", None, OfficialTests("stdio", cases=cases), None)
    double = "print(2 * int(input()))\n"
    capped = official_label(problem, double, max_tests=5)
    assert capped.passed and (capped.tests_total, capped.tests_run) == (40, 5) and "capped" in capped.detail
    wrong_late = "x = int(input())\nprint(2 * x if x < 39 else 0)\n"  # only the last case differs
    assert not official_label(problem, wrong_late, max_tests=5).passed  # the spread reaches the end
    everything = official_label(problem, "print(0)\n", max_tests=None, fail_fast=False)
    assert (everything.tests_run, everything.tests_passed) == (40, 1)
