"""The mcot canvas: ID-addressable vector elements over a raster base, rendered with cairo, replayable.

Public surface: ``Canvas`` (with ``Checkpoint`` for all-or-nothing groups), ``CanvasError``, ``Element``,
``Snapshot``, ``Observation`` and the limits (a run's blob store is ``mcot.rundir.BlobStore``). See
docs/canvas.md for how rendering stays fast and deterministic.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "OPS": "mcot.canvas._canvas",
    "Canvas": "mcot.canvas._canvas",
    "Checkpoint": "mcot.canvas._canvas",
    "CanvasError": "mcot.canvas._errors",
    "MAX_COORD": "mcot.canvas._limits",
    "MAX_ELEMENTS": "mcot.canvas._limits",
    "MAX_PIXELS": "mcot.canvas._limits",
    "MAX_SIDE": "mcot.canvas._limits",
    "MAX_WIDTH": "mcot.canvas._limits",
    "Element": "mcot.canvas._types",
    "Observation": "mcot.canvas._types",
    "Snapshot": "mcot.canvas._types",
}
"""Names are imported on first use: importing the canvas does not load cairo (and its declaration parsing)."""

if TYPE_CHECKING:
    from mcot.canvas._canvas import OPS, Canvas, Checkpoint
    from mcot.canvas._errors import CanvasError
    from mcot.canvas._limits import MAX_COORD, MAX_ELEMENTS, MAX_PIXELS, MAX_SIDE, MAX_WIDTH
    from mcot.canvas._types import Element, Observation, Snapshot


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
    "Canvas",
    "CanvasError",
    "Checkpoint",
    "Element",
    "Observation",
    "Snapshot",
]
