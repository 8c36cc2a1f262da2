"""A content-addressed store of image blobs: ``<root>/<sha256><suffix>``, each written once, atomically, with the
umask's modes (644 under the usual umask 022)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mcot.canvas._errors import CanvasError
from mcot.canvas._files import write_bytes_atomic

_SHA = re.compile(r"^[0-9a-f]{64}$")
_SUFFIX = re.compile(r"^\.[a-z0-9]{1,8}$")


class BlobStore:
    """Content-addressed files under ``root``; ``put`` returns the sha256 hex of the data it stored."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def put(self, data: bytes, suffix: str = ".png") -> str:
        """Store ``data`` as ``<sha256><suffix>`` unless already present, and return the sha256 hex."""
        suffix = _check_suffix(suffix)
        sha = hashlib.sha256(data).hexdigest()
        target = self.root / f"{sha}{suffix}"
        if target.exists():
            return sha
        write_bytes_atomic(target, data)
        return sha

    def path(self, sha: str, suffix: str = ".png") -> Path:
        """Return the path where the blob ``sha`` is (or would be) stored."""
        return self.root / f"{_check_sha(sha)}{_check_suffix(suffix)}"

    def get(self, sha: str, suffix: str = ".png") -> bytes:
        """Return the bytes of blob ``sha``; raise CanvasError if it is not in the store."""
        target = self.path(sha, suffix)
        try:
            return target.read_bytes()
        except FileNotFoundError as exc:
            raise CanvasError(f"no blob {sha}{suffix} in {self.root}") from exc

    def __contains__(self, sha: object) -> bool:
        """Return whether a ``.png`` blob with this sha is stored."""
        return isinstance(sha, str) and bool(_SHA.match(sha)) and (self.root / f"{sha}.png").exists()

    def relpath(self, sha: str, suffix: str = ".png") -> str:
        """Return the run-relative path ``blobs/<sha><suffix>`` used in traces."""
        return f"blobs/{_check_sha(sha)}{_check_suffix(suffix)}"


def _check_sha(sha: str) -> str:
    if not isinstance(sha, str) or not _SHA.match(sha):
        raise CanvasError(f"blob name {sha!r} is not a sha256 hex digest (64 lowercase hex characters)")
    return sha


def _check_suffix(suffix: str) -> str:
    if not isinstance(suffix, str) or not _SUFFIX.match(suffix):
        raise CanvasError(f"blob suffix {suffix!r} must look like '.png' or '.jpg'")
    return suffix
