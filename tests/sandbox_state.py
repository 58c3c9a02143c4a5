"""What a test that needs the sandbox does where the sandbox is missing or broken: one decision for
tests/sandbox/ and every test marked ``needs_sandbox``, so that none of them can pass by skipping.

* bubblewrap installed (``bwrap`` on the PATH, where the sandbox looks for it) but unusable: every
  such test FAILS (in its call, not as a set-up error), with why it cannot run (the sandbox's own
  note or error);
* no sandbox at all (root without bubblewrap: qualm refuses to run model-written code) under CI
  (``CI=true``, which .ci/run sets): they fail; outside CI a developer's machine skips them, saying why;
* no bubblewrap, limits only (a normal user): they run; those that check what only bubblewrap
  isolates (the ``bubblewrap`` fixture of tests/sandbox) skip, and fail under CI.
"""

from __future__ import annotations

import functools
import os
import shutil

import pytest

from qualm_sandbox import SandboxUnavailable, choose_isolation
from qualm_sandbox.isolation import Isolation


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


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
        if under_ci():
            return None, f"no sandbox under CI (CI=true), where the sandbox tests must run: {why}", True
        return None, f"no sandbox here: {why} (under CI, CI=true, this fails)", False
    return isolation, None, False


def needs_sandbox(item: pytest.Item) -> bool:
    return item.get_closest_marker("needs_sandbox") is not None or "sandbox" in item.path.parent.parts[-1:]


def verdict(item: pytest.Item) -> tuple[str | None, bool]:
    """Why ``item`` cannot run (None: it can), and whether that is a failure rather than a skip."""
    if not needs_sandbox(item):
        return None, False
    isolation, problem, fatal = sandbox_state()
    if problem is None and isolation is not None and "bubblewrap" in item.fixturenames and isolation.name != "bubblewrap":
        problem = f"bubblewrap not active: {isolation.note}"
        if under_ci():
            problem += " (under CI, CI=true, the bubblewrap-only checks must run)"
        fatal = under_ci()
    return problem, fatal
