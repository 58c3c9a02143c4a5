"""qualm's sandbox: runs untrusted generated tests against a candidate (``run_tests``), or one
untrusted program (``run_program``), isolated. Standard library only.

This package imports nothing from qualm; qualm imports it.
"""

from .client import NOBODY, ProgramResult, SandboxConfig, SandboxReport, TestOutcome, kill_process_group, run_program, run_tests
from .isolation import Interpreter, SandboxUnavailable, choose_isolation, interpreter

__all__ = ["NOBODY", "Interpreter", "ProgramResult", "SandboxConfig", "SandboxReport", "SandboxUnavailable", "TestOutcome", "choose_isolation", "interpreter", "kill_process_group", "run_program", "run_tests"]
