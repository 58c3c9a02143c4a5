"""qualm's sandbox: runs untrusted generated tests against a candidate (``run_tests``), or one
untrusted program (``run_program``), isolated. Standard library only.

This package imports nothing from qualm; qualm imports it.
"""

from .client import NOBODY, ProgramResult, SandboxConfig, SandboxReport, TestOutcome, kill_process_group, run_program, run_tests
from .isolation import SandboxUnavailable, choose_isolation

__all__ = ["NOBODY", "ProgramResult", "SandboxConfig", "SandboxReport", "SandboxUnavailable", "TestOutcome", "choose_isolation", "kill_process_group", "run_program", "run_tests"]
