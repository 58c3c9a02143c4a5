"""tests/sandbox_state.py: a test that needs the sandbox skips where none runs on a developer's
machine, and fails under CI (CI=true, which .ci/run sets) and where bubblewrap is installed but
broken. The sandbox's absence is simulated here (this machine has one)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sandbox_state

from qualm_sandbox import SandboxUnavailable


class Item:
    """The parts of a pytest item that the decision reads."""

    def __init__(self, path: str, marked: bool = False, fixtures: tuple[str, ...] = ()):
        self.path, self.marked, self.fixturenames = Path(path), marked, list(fixtures)

    def get_closest_marker(self, name: str):
        return object() if self.marked and name == "needs_sandbox" else None


@pytest.fixture
def no_sandbox(monkeypatch):
    def refuse(mode: str):
        raise SandboxUnavailable("root without bubblewrap")

    monkeypatch.setattr(sandbox_state, "choose_isolation", refuse)
    monkeypatch.setattr(sandbox_state.shutil, "which", lambda name: None)
    sandbox_state.sandbox_state.cache_clear()
    yield
    sandbox_state.sandbox_state.cache_clear()


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_test_that_needs_the_sandbox_fails_without_one(no_sandbox, monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    for item in (Item("tests/eval/test_x.py", marked=True), Item("tests/sandbox/test_y.py")):
        problem, fatal = sandbox_state.verdict(item)
        assert fatal and "no sandbox under CI" in problem


def test_outside_ci_it_skips_saying_why(no_sandbox, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    problem, fatal = sandbox_state.verdict(Item("tests/eval/test_x.py", marked=True))
    assert not fatal and "root without bubblewrap" in problem


def test_a_broken_bubblewrap_fails_everywhere(monkeypatch):
    monkeypatch.delenv("CI", raising=False)

    def broken(mode: str):
        raise SandboxUnavailable("bwrap: setting up uid map: Permission denied")

    monkeypatch.setattr(sandbox_state, "choose_isolation", broken)
    monkeypatch.setattr(sandbox_state.shutil, "which", lambda name: "/usr/bin/bwrap")
    sandbox_state.sandbox_state.cache_clear()
    try:
        problem, fatal = sandbox_state.verdict(Item("tests/eval/test_x.py", marked=True))
    finally:
        sandbox_state.sandbox_state.cache_clear()
    assert fatal and "bubblewrap is installed" in problem


def test_a_test_that_needs_no_sandbox_is_left_alone(no_sandbox, monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert sandbox_state.verdict(Item("tests/unit/test_z.py")) == (None, False)


def test_ci_run_sets_ci():
    run = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert "export CI=true" in run
