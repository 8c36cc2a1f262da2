"""The mcot canvas: ID-addressable vector elements over a raster base, rendered with cairo, replayable.

Public surface: ``Canvas`` (with ``Checkpoint`` for all-or-nothing groups), ``CanvasError``, ``Element``,
``Snapshot``, ``Observation``, the limits (a run's blob store is ``mcot.core.rundir.BlobStore``), and the op
table: ``OpSpec`` and ``ElementKind`` (an operation and the kind of element it draws), ``declare_op``/
``remove_op``, ``op_specs``/``op_spec``/``element_kind``, and the argument types a declared op builds its model
from (``Point``, ``Color``, …). See docs/canvas.md for the op table and for how rendering stays fast and deterministic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.core.lazy import lazy_exports

_OPS = "mcot.canvas._ops"
_ARGS = "mcot.canvas._args"
_EXPORTS = {
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
    "ElementKind": _OPS,
    "OpSpec": _OPS,
    "Outcome": _OPS,
    "declare_op": _OPS,
    "element_kind": _OPS,
    "op_spec": _OPS,
    "op_specs": _OPS,
    "record_ops": _OPS,
    "remove_op": _OPS,
    "Check": _ARGS,
    "OpArgs": _ARGS,
    "Color": _ARGS,
    "Flag": _ARGS,
    "FontSize": _ARGS,
    "Label": _ARGS,
    "Number": _ARGS,
    "Opacity": _ARGS,
    "OptionalColor": _ARGS,
    "PathPoints": _ARGS,
    "Point": _ARGS,
    "PolygonPoints": _ARGS,
    "Radius": _ARGS,
    "Text": _ARGS,
    "Width": _ARGS,
}
"""Names are imported on first use: importing the canvas does not load cairo (and its declaration parsing)."""

if TYPE_CHECKING:
    from mcot.canvas._args import (
        Check,
        Color,
        Flag,
        FontSize,
        Label,
        Number,
        Opacity,
        OpArgs,
        OptionalColor,
        PathPoints,
        Point,
        PolygonPoints,
        Radius,
        Text,
        Width,
    )
    from mcot.canvas._canvas import Canvas, Checkpoint
    from mcot.canvas._errors import CanvasError
    from mcot.canvas._limits import MAX_COORD, MAX_ELEMENTS, MAX_PIXELS, MAX_SIDE, MAX_WIDTH
    from mcot.canvas._ops import (
        ElementKind,
        OpSpec,
        Outcome,
        declare_op,
        element_kind,
        op_spec,
        op_specs,
        record_ops,
        remove_op,
    )
    from mcot.canvas._types import Element, Observation, Snapshot


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "MAX_COORD",
    "MAX_ELEMENTS",
    "MAX_PIXELS",
    "MAX_SIDE",
    "MAX_WIDTH",
    "Canvas",
    "CanvasError",
    "Check",
    "Checkpoint",
    "Color",
    "Element",
    "ElementKind",
    "Flag",
    "FontSize",
    "Label",
    "Number",
    "Observation",
    "OpArgs",
    "OpSpec",
    "Opacity",
    "OptionalColor",
    "Outcome",
    "PathPoints",
    "Point",
    "PolygonPoints",
    "Radius",
    "Snapshot",
    "Text",
    "Width",
    "declare_op",
    "element_kind",
    "op_spec",
    "op_specs",
    "record_ops",
    "remove_op",
]
