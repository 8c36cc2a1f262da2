"""The run's content-addressed blob store (mcot.core.rundir.blobs): names, idempotence, atomic writes."""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcot.core.rundir import BlobError, BlobStore, MemoryBlobs, blob_path


def test_put_names_the_file_by_its_sha256(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs")
    data = b"\x89PNG fake image bytes"
    sha = store.put(data)
    assert sha == hashlib.sha256(data).hexdigest()
    assert store.path(sha) == tmp_path / "blobs" / f"{sha}.png"
    assert store.path(sha).read_bytes() == data
    assert store.get(sha) == data
    assert store.relpath(sha) == f"blobs/{sha}.png"
    assert sha in store
    jpg = store.put(b"jpeg", suffix=".jpg")
    assert store.path(jpg, ".jpg").exists() and store.relpath(jpg, ".jpg").endswith(".jpg")


def test_put_is_idempotent_and_writes_once(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    sha = store.put(b"same")
    path = store.path(sha)
    os.utime(path, (1_000_000, 1_000_000))
    assert store.put(b"same") == sha
    assert path.stat().st_mtime == 1_000_000  # not rewritten
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{sha}.png"]


def test_concurrent_puts_leave_one_complete_file_and_no_temporaries(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    data = os.urandom(1 << 20)
    with ThreadPoolExecutor(max_workers=8) as pool:
        shas = list(pool.map(lambda _: store.put(data), range(16)))
    assert len(set(shas)) == 1
    assert [p.name for p in tmp_path.iterdir()] == [f"{shas[0]}.png"]
    assert store.get(shas[0]) == data


def test_failed_write_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = BlobStore(tmp_path)

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        store.put(b"data")
    assert list(tmp_path.iterdir()) == []


def test_bad_names_and_missing_blobs(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    with pytest.raises(BlobError, match="sha256"):
        store.path("../../etc/passwd")
    with pytest.raises(BlobError, match="suffix"):
        store.put(b"x", suffix="/../x")
    with pytest.raises(BlobError, match="no blob"):
        store.get("0" * 64)
    assert "nonsense" not in store


def test_the_blob_path_is_built_in_one_place_and_memory_blobs_name_blobs_alike(tmp_path: Path) -> None:
    memory, files = MemoryBlobs(), BlobStore(tmp_path / "blobs")
    sha = memory.put(b"seen", ".jpg")
    assert files.put(b"seen", ".jpg") == sha and list(memory.data) == [f"{sha}.jpg"]
    assert blob_path(sha, ".jpg") == files.relpath(sha, ".jpg") == f"blobs/{sha}.jpg"
    with pytest.raises(BlobError, match="sha256"):
        blob_path("not-a-sha")
