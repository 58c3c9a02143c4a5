"""qualm.lsp.heap: freed heap pages go back to the system (glibc's malloc_trim), measured in this
process's own memory, not assumed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from qualm.lsp.heap import _malloc_trim, release_free_memory


def _anon_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon in /proc/self/status")


@pytest.mark.skipif(not sys.platform.startswith("linux") or _malloc_trim() is None, reason="glibc's malloc_trim only (Linux with glibc)")
def test_freed_heap_pages_go_back_to_the_system():
    # 2,000 blocks of 100 kB: below malloc's mmap threshold, so on the heap; the last one kept
    # alive pins the heap's top, so free() alone gives nothing back
    blocks = [bytes(100_000) for _ in range(2_000)]
    last = blocks[-1]
    del blocks
    held = _anon_mb()
    assert release_free_memory()
    assert held - _anon_mb() > 100  # of the 200 MB freed
    assert len(last) == 100_000


def test_it_does_nothing_where_there_is_no_malloc_trim(monkeypatch):
    monkeypatch.setattr("qualm.lsp.heap._malloc_trim", lambda: None)
    assert release_free_memory() is False
