"""qualm's sandbox: runs untrusted generated tests against a candidate, isolated. Standard library only.

This package imports nothing from qualm; qualm imports it.
"""

from .client import SandboxConfig, SandboxReport, TestOutcome, run_tests
from .isolation import SandboxUnavailable, choose_isolation

__all__ = ["SandboxConfig", "SandboxReport", "SandboxUnavailable", "TestOutcome", "choose_isolation", "run_tests"]
