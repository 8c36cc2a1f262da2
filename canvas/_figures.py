"""The figures canvases open: decoded once per file while it stays as it was, with their opening observation.

Items share figures (GePBench asks about thirteen questions of each, and every arm of a study opens the same
ones), and a canvas used to decode its figure again and compress all of it for its opening observation: about
two thirds of what a canvas item costs before the model draws. A `Figure` keeps the decoded RGB image (shared by
every canvas over it: a canvas never modifies its base) and, once a canvas has written its opening PNG, that
PNG and the writer's compressed bands, so that the next canvas over the figure starts from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcot.canvas._image import open_image
from mcot.canvas._types import Snapshot
from PIL import Image

from mcot.core.file_cache import FileCache

if TYPE_CHECKING:
    from mcot.canvas._png import PngWriter

MAX_BYTES = 128 * 1024 * 1024
"""The bytes of figures kept at most: their pixels (4 bytes a pixel in Pillow) and their kept bands' (3)."""


@dataclass(frozen=True)
class Opening:
    """A figure's opening observation: its PNG, and the writer that wrote it (copied before it writes again)."""

    snapshot: Snapshot
    writer: PngWriter


@dataclass
class Figure:
    """A decoded figure (RGB; do not modify it) and, once one canvas has written it, its opening."""

    image: Image.Image
    opening: Opening | None = None


def open_figure(path: str | Path) -> Figure:
    """Return the figure at `path`: the one kept when the file is unchanged since it was decoded, else decoded now
    (size-checked before decoding, flattened to RGB; `CanvasError` when it cannot be)."""
    return _FIGURES.get(Path(path), False, _decode)


def _decode(path: Path, _flag: bool) -> Figure:
    return Figure(open_image(path))


def _figure_bytes(figure: Figure) -> int:
    width, height = figure.image.size
    return width * height * 7


_FIGURES: FileCache[Figure] = FileCache(MAX_BYTES, _figure_bytes)
