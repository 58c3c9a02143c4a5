"""Where the benchmarks read and write, from the checkout's root (so that a module's place under
benchmarks/ does not matter)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout: benchmarks/common/paths.py
OUT = ROOT / "benchmarks" / "out"  # resumable caches, not committed (.gitignore)
RESULTS = ROOT / "results"
