"""The mcot canvas: ID-addressable vector elements over a raster base, rendered with cairo, replayable.

Public surface: ``Canvas`` (with ``Checkpoint`` for all-or-nothing groups), ``CanvasError``, ``Element``,
``Snapshot``, ``Observation``, ``BlobStore`` and the limits. See docs/canvas.md for how rendering stays fast
and deterministic.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "BlobStore": "canvas._blobs",
    "OPS": "canvas._canvas",
    "Canvas": "canvas._canvas",
    "Checkpoint": "canvas._canvas",
    "CanvasError": "canvas._errors",
    "MAX_COORD": "canvas._limits",
    "MAX_ELEMENTS": "canvas._limits",
    "MAX_PIXELS": "canvas._limits",
    "MAX_SIDE": "canvas._limits",
    "MAX_WIDTH": "canvas._limits",
    "Element": "canvas._types",
    "Observation": "canvas._types",
    "Snapshot": "canvas._types",
}
"""Names are imported on first use: a run's blob store does not load cairo (and its declaration parsing)."""

if TYPE_CHECKING:
    from canvas._blobs import BlobStore
    from canvas._canvas import OPS, Canvas, Checkpoint
    from canvas._errors import CanvasError
    from canvas._limits import MAX_COORD, MAX_ELEMENTS, MAX_PIXELS, MAX_SIDE, MAX_WIDTH
    from canvas._types import Element, Observation, Snapshot


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'canvas' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


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
    "Checkpoint",
    "Element",
    "Observation",
    "Snapshot",
]
