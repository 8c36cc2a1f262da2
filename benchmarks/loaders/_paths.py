"""Path containment: relative paths from a dataset must stay inside the dataset folder."""

from __future__ import annotations

from pathlib import Path

from mcot.benchmarks.loaders._types import SkipItem


def inside(root: Path, relative: str) -> Path:
    """Return the existing file `relative` resolves to under `root`; SkipItem if it escapes or is missing."""
    if not isinstance(relative, str) or not relative.strip():
        raise SkipItem("wrong field type", f"image path must be a non-empty string, got {relative!r}")
    rel = Path(relative)
    base = root.resolve()
    if rel.is_absolute():
        raise SkipItem("path escapes dataset", f"image path {relative!r} is absolute; it must be relative to {root}")
    target = (base / rel).resolve()
    if not target.is_relative_to(base):
        raise SkipItem("path escapes dataset", f"image path {relative!r} leaves the dataset folder {root}")
    if not target.is_file():
        raise SkipItem("missing image", f"image file {relative} not found under {root}")
    return target


def read_inside(root: Path, relative: str) -> bytes:
    """Return the bytes of the file `relative` under `root` (containment checked; SkipItem if unreadable)."""
    path = inside(root, relative)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SkipItem("missing image", f"image file {relative} cannot be read ({exc.strerror})") from exc
