"""The run's blob store: every image once, content-addressed, as ``RUN/blobs/<sha256><suffix>``.

`BlobStore` writes files (each once, atomically, with the umask's modes); `MemoryBlobs` keeps them in memory for a
solve without a run directory (a remote worker returns them to the driver). `blob_path` is the run-relative path
traces and results name a blob by.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Protocol

from mcot.core.rundir.atomic import write_bytes_atomic
from mcot.core.rundir.errors import RunDirError
from mcot.core.rundir.layout import BLOBS

_SHA = re.compile(r"^[0-9a-f]{64}$")
_SUFFIX = re.compile(r"^\.[a-z0-9]{1,8}$")


class BlobError(RunDirError):
    """A blob name or suffix is malformed, or the blob is not in the store."""


class Blobs(Protocol):
    """What a solve needs of a blob store: put bytes, get their sha256 back."""

    def put(self, data: bytes, suffix: str = ".png") -> str: ...


def blob_path(sha: str, suffix: str = ".png") -> str:
    """Return the run-relative path ``blobs/<sha><suffix>`` that traces and results name a blob by."""
    return f"{BLOBS}/{_check_sha(sha)}{_check_suffix(suffix)}"


class BlobStore:
    """Content-addressed files under ``root``; ``put`` returns the sha256 hex of the data it stored."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def put(self, data: bytes, suffix: str = ".png") -> str:
        """Store ``data`` as ``<sha256><suffix>`` unless already present, and return the sha256 hex."""
        suffix = _check_suffix(suffix)
        sha = hashlib.sha256(data).hexdigest()
        target = self.root / f"{sha}{suffix}"
        if not target.exists():
            write_bytes_atomic(target, data)
        return sha

    def path(self, sha: str, suffix: str = ".png") -> Path:
        """Return the path where the blob ``sha`` is (or would be) stored."""
        return self.root / f"{_check_sha(sha)}{_check_suffix(suffix)}"

    def get(self, sha: str, suffix: str = ".png") -> bytes:
        """Return the bytes of blob ``sha``; raise BlobError if it is not in the store."""
        target = self.path(sha, suffix)
        try:
            return target.read_bytes()
        except FileNotFoundError:
            raise BlobError(f"no blob {sha}{suffix} in {self.root}") from None

    def __contains__(self, sha: object) -> bool:
        """Return whether a ``.png`` blob with this sha is stored."""
        return isinstance(sha, str) and bool(_SHA.match(sha)) and (self.root / f"{sha}.png").exists()

    def relpath(self, sha: str, suffix: str = ".png") -> str:
        """Return the run-relative path ``blobs/<sha><suffix>`` used in traces."""
        return blob_path(sha, suffix)


class MemoryBlobs:
    """An in-memory blob store for solves that keep no run directory (tests, remote workers, ask-style use)."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def put(self, data: bytes, suffix: str = ".png") -> str:
        """Store bytes under ``<sha256><suffix>``; return their sha256."""
        sha = hashlib.sha256(data).hexdigest()
        self.data[sha + _check_suffix(suffix)] = data
        return sha


def _check_sha(sha: str) -> str:
    if not isinstance(sha, str) or not _SHA.match(sha):
        raise BlobError(f"blob name {sha!r} is not a sha256 hex digest (64 lowercase hex characters)")
    return sha


def _check_suffix(suffix: str) -> str:
    if not isinstance(suffix, str) or not _SUFFIX.match(suffix):
        raise BlobError(f"blob suffix {suffix!r} must look like '.png' or '.jpg'")
    return suffix
