"""The sandbox tests: every test here needs the sandbox (tests/sandbox_state.py decides, in
tests/conftest.py's hooks, whether a missing one skips or fails)."""

from __future__ import annotations

import pytest
from sandbox_state import sandbox_state

from qualm_sandbox.isolation import Isolation


@pytest.fixture
def isolation() -> Isolation | None:
    """The isolation the sandbox runs the tests under (None only where the test fails anyway)."""
    return sandbox_state()[0]


@pytest.fixture
def bubblewrap(isolation: Isolation | None) -> Isolation | None:
    """For the checks of what only bubblewrap isolates (namespaces, a read-only file system): the
    test skips without it, and fails without it under CI."""
    return isolation
