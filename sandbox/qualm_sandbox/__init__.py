"""qualm's sandbox: runs untrusted generated tests against a candidate, isolated. Standard library only.

This package imports nothing from qualm; qualm imports it.
"""

from .client import NOBODY, SandboxConfig, SandboxReport, TestOutcome, kill_process_group, run_tests
from .isolation import SandboxUnavailable, choose_isolation

__all__ = ["NOBODY", "SandboxConfig", "SandboxReport", "SandboxUnavailable", "TestOutcome", "choose_isolation", "kill_process_group", "run_tests"]
