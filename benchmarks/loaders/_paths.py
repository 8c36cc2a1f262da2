"""Path containment: relative paths from a dataset must stay inside the dataset folder."""

from __future__ import annotations

from pathlib import Path

from mcot.benchmarks.loaders._types import SkipItem

from mcot.core.inputs import FileTooLarge, NotRegularFile, check_regular, read_image_file


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
    if not target.exists():
        raise SkipItem("missing image", f"image file {relative} not found under {root}")
    try:
        check_regular(target, what="image file")
    except NotRegularFile as exc:
        raise SkipItem("not a regular file", str(exc)) from exc
    return target


def read_inside(root: Path, relative: str) -> bytes:
    """Return the bytes of the image file `relative` under `root` (contained, a regular file of at most
    IMAGE_MAX_BYTES, opened without blocking; SkipItem if not)."""
    path = inside(root, relative)
    try:
        return read_image_file(path)
    except NotRegularFile as exc:
        raise SkipItem("not a regular file", str(exc)) from exc
    except FileTooLarge as exc:
        raise SkipItem("image too large", str(exc)) from exc
    except OSError as exc:
        raise SkipItem("missing image", f"image file {relative} cannot be read ({exc.strerror})") from exc
