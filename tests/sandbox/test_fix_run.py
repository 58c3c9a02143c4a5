"""qualm.engine.fix: one-line changes of a wrong function run on its checks in the real sandbox. The
trace is built by hand and the "model" that writes a line again is the scripted backend; the test
runs are real subprocesses."""

from __future__ import annotations

import json

from hand_traces import word_trace
from timing import seconds

from qualm.engine.fix import FixCandidate, likely_fix, line_candidate, token_candidates, try_fix
from qualm.lang import PYTHON
from qualm.model.scripted_backend import ScriptedBackend
from qualm.settings import Settings
from qualm_sandbox import SandboxConfig, run_tests

# Where the sandbox is missing or broken, conftest.py fails or skips every test here.

CONFIG = SandboxConfig(timeout=seconds(1.0), memory_mb=512)
SOURCE = "def total(xs):\n    t = 1\n    for x in xs:\n        t += x\n    return t\n"
CHECKS = ["assert total([]) == 0", "assert total([1, 2]) == 3", "assert total([5]) == 5", "assert isinstance(total([1]), int)"]


def _statuses(source: str) -> list[str]:
    fn = PYTHON.find_function(source, "total")
    return [o.status for o in run_tests(fn.program, CHECKS, CONFIG).outcomes]


def test_the_change_that_passes_most_checks_is_the_fix_and_says_what_it_makes_pass():
    fn = PYTHON.find_function(SOURCE, "total")
    statuses = _statuses(SOURCE)
    assert statuses == ["failed", "failed", "failed", "passed"]
    # at "1" the model would write "0" (right) or "2" (still wrong); at "+=" it would write "-=" (wrong)
    candidates = token_candidates(word_trace(SOURCE, {"1": [(" 2", 0.3), (" 0", 0.6)], "+=": [(" -=", 0.5)]}), fn, Settings(), PYTHON.parses)
    assert [(c.replaced.strip(), c.replacement.strip(), c.line) for c in candidates] == [("1", "2", 2), ("1", "0", 2), ("+=", "-=", 4)]
    result = likely_fix(fn, candidates, CHECKS, statuses, CONFIG)
    fix = result.fix
    assert fix is not None and fix.candidate.replacement == " 0" and fix.line == 2
    assert (fix.passed, fix.base, fix.total) == (4, 1, 4)
    assert fix.newly_passing == tuple(CHECKS[:3]) and fix.newly_failing == ()
    assert result.tried == 3 and "line 2: '0' for '1' passes 4 of 4 checks (the code passes 1)" in result.note
    assert result.gain == 0.75  # the chance's fix_gain: 3 of the 4 checks gained


def test_no_fix_where_no_change_passes_more():
    fn = PYTHON.find_function(SOURCE, "total")
    statuses = _statuses(SOURCE)
    worse = [FixCandidate("token", 4, 0, 0, "+=", "-=", SOURCE.replace("+=", "-="))]
    result = likely_fix(fn, worse, CHECKS, statuses, CONFIG)
    assert result.fix is None and result.note == "none of 1 one-line changes passes more of the 4 checks"
    assert result.gain == 0.0  # checks ran and none was gained
    nothing = likely_fix(fn, worse, [], [], CONFIG)
    assert nothing.note == "no check to run" and nothing.gain is None


def test_code_that_passes_every_check_tries_nothing_and_gains_nothing():
    fn = PYTHON.find_function(SOURCE, "total")
    backend = ScriptedBackend.__new__(ScriptedBackend)  # never called: nothing is tried
    result = try_fix(backend, fn, word_trace(SOURCE, {}), CHECKS[3:], ["passed"], Settings(), CONFIG, PYTHON.parses)
    assert (result.fix, result.tried, result.gain, result.note) == (None, 0, 0.0, "the code passes every check")
    assert try_fix(backend, fn, word_trace(SOURCE, {}), [], [], Settings(), CONFIG, PYTHON.parses).gain is None


def test_the_suspect_line_written_again_by_the_model_in_a_method(tmp_path):
    text = "class Bag:\n    def __init__(self, xs):\n        self.xs = xs\n\n    def total(self):\n        t = 1\n        for x in self.xs:\n            t += x\n        return t\n"
    fn = PYTHON.find_function(text, "Bag.total")
    script = tmp_path / "fim.json"
    script.write_text(json.dumps({"name": "scripted", "completions": ["t = 0"], "fim": True}))
    backend = ScriptedBackend(script)
    c = line_candidate(backend, fn, 2, Settings())
    assert c is not None and (c.origin, c.line, c.replaced, c.replacement) == ("line", 2, "t = 1", "t = 0")
    assert c.source == fn.source.replace("t = 1", "t = 0")
    assert fn.source[c.start : c.end] == "t = 1"
    # the model writing the line as it was is no candidate
    script.write_text(json.dumps({"name": "scripted", "completions": ["t = 1"], "fim": True}))
    assert line_candidate(ScriptedBackend(script), fn, 2, Settings()) is None
