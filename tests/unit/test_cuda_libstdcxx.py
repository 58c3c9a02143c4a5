"""The libstdc++ preload for CUDA builds of llama.cpp (see _preload_libstdcxx_for_cuda).

The crash it prevents needs a CUDA build and a GPU, which this test machine lacks; it was measured
on the H100 the project was lent (README: GPU). Here: the decision and the real global load."""

from __future__ import annotations

import ctypes
from pathlib import Path

from qualm.model.llama_cpp_backend import _llama_cpp_lib_dir, _preload_libstdcxx_for_cuda


def test_a_cpu_build_loads_nothing(tmp_path: Path):
    (tmp_path / "libggml-cpu.so").write_bytes(b"")
    calls = []
    assert not _preload_libstdcxx_for_cuda(tmp_path, load=lambda *a, **k: calls.append((a, k)))
    assert calls == [] and not _preload_libstdcxx_for_cuda(None)


def test_a_cuda_build_gets_the_system_libstdcxx_in_the_global_scope(tmp_path: Path):
    (tmp_path / "libggml-cuda.so.0").write_bytes(b"")
    calls = []
    assert _preload_libstdcxx_for_cuda(tmp_path, load=lambda *a, **k: calls.append((a, k)))
    assert calls == [(("libstdc++.so.6",), {"mode": ctypes.RTLD_GLOBAL})]
    # and the real loader accepts that call on this machine (glibc Linux)
    assert _preload_libstdcxx_for_cuda(tmp_path)


def test_the_installed_llama_cpp_is_found():
    lib = _llama_cpp_lib_dir()
    assert lib is not None and any(lib.glob("libllama*"))
