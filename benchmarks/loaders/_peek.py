"""A look at the first bytes of a file, for the loaders' `detect` functions."""

from __future__ import annotations

from pathlib import Path

PEEK_BYTES = 65_536


def peek(path: Path) -> str:
    """Return the first 64 KiB of `path` as text (undecodable bytes replaced), or "" when it cannot be read."""
    try:
        with Path(path).open("rb") as handle:
            return handle.read(PEEK_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
