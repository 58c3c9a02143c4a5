"""What the sandbox tests do where the sandbox is missing or broken: one decision for every module
here, so that none of them can pass by skipping.

* bubblewrap installed (``bwrap`` on the PATH, where the sandbox looks for it) but unusable: every
  test FAILS (in its call, not as a set-up error), with why it cannot run (the sandbox's own note
  or error);
* no sandbox at all (root without bubblewrap: qualm refuses to run model-written code) under CI
  (``CI=true``): every test fails; outside CI a developer's machine skips them, saying why;
* no bubblewrap, limits only (a normal user): the tests run; those that check what only bubblewrap
  isolates (the ``bubblewrap`` fixture) skip, and fail under CI.
"""

from __future__ import annotations

import functools
import os
import shutil

import pytest

from qualm_sandbox import SandboxUnavailable, choose_isolation
from qualm_sandbox.isolation import Isolation

UNDER_CI = os.environ.get("CI", "").strip().lower() in ("true", "1")


@functools.cache
def sandbox_state() -> tuple[Isolation | None, str | None, bool]:
    """(the isolation the tests run under, why they cannot run, whether that is a failure)."""
    bwrap = shutil.which("bwrap")
    try:
        isolation: Isolation | None = choose_isolation("auto")
        why = isolation.note
    except SandboxUnavailable as exc:
        isolation, why = None, str(exc)
    if bwrap and (isolation is None or isolation.name != "bubblewrap"):
        return isolation, f"bubblewrap is installed ({bwrap}) but the sandbox cannot use it: {why}", True
    if isolation is None:
        if UNDER_CI:
            return None, f"no sandbox under CI (CI=true), where the sandbox tests must run: {why}", True
        return None, f"no sandbox here: {why} (under CI, CI=true, this fails)", False
    return isolation, None, False


def _verdict(item: pytest.Item) -> tuple[str | None, bool]:
    """Why ``item`` cannot run (None: it can), and whether that is a failure rather than a skip."""
    isolation, problem, fatal = sandbox_state()
    if problem is None and isolation is not None and "bubblewrap" in item.fixturenames and isolation.name != "bubblewrap":
        problem = f"bubblewrap not active: {isolation.note}"
        if UNDER_CI:
            problem += " (under CI, CI=true, the bubblewrap-only checks must run)"
        fatal = UNDER_CI
    return problem, fatal


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    problem, fatal = _verdict(item)
    if problem is not None and not fatal:
        pytest.skip(problem)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    # a failure, not an error at set-up: the test itself fails, saying why
    problem, fatal = _verdict(item)
    if problem is not None and fatal:
        pytest.fail(problem, pytrace=False)


@pytest.fixture
def isolation() -> Isolation | None:
    """The isolation the sandbox runs the tests under (None only where the test fails anyway)."""
    return sandbox_state()[0]


@pytest.fixture
def bubblewrap(isolation: Isolation | None) -> Isolation | None:
    """For the checks of what only bubblewrap isolates (namespaces, a read-only file system): the
    test skips without it, and fails without it under CI."""
    return isolation
