"""The mcot canvas: ID-addressable vector elements over a raster base, rendered with cairo, replayable.

Public surface: ``Canvas``, ``CanvasError``, ``Element``, ``Snapshot``, ``Observation``, ``BlobStore`` and the
limits. See docs/canvas.md for how rendering stays fast and deterministic.
"""

from canvas._blobs import BlobStore
from canvas._canvas import OPS, Canvas
from canvas._errors import CanvasError
from canvas._limits import MAX_COORD, MAX_ELEMENTS, MAX_PIXELS, MAX_SIDE, MAX_WIDTH
from canvas._types import Element, Observation, Snapshot

__all__ = [
    "MAX_COORD",
    "MAX_ELEMENTS",
    "MAX_PIXELS",
    "MAX_SIDE",
    "MAX_WIDTH",
    "OPS",
    "BlobStore",
    "Canvas",
    "CanvasError",
    "Element",
    "Observation",
    "Snapshot",
]
