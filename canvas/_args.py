"""Argument types of the canvas operations: each is a pydantic type (what a model's tool schema says) that also
carries the canvas's own check (``Check``), so that one declaration gives both the schema and the validation.

The pydantic side is what a tool call is parsed with (types, finite numbers, the bounds a model should know);
the ``Check`` is what the canvas applies to every value it stores, also when called from Python or replaying a
log: the canonical form (floats, lowercase colours) and the exact limits, with messages that name the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from mcot.canvas import _validate as v
from mcot.canvas._errors import CanvasError
from mcot.canvas._limits import (
    MAX_ELEMENTS,
    MAX_MARKER_RADIUS,
    MAX_PATH_POINTS,
    MAX_RADIUS,
    MAX_TEXT_CHARS,
    MAX_TEXT_SIZE,
    MAX_WIDTH,
)
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.fields import FieldInfo


@dataclass(frozen=True)
class Check:
    """The canvas's check of one property: ``(name, value) -> canonical value``, raising CanvasError.

    ``what`` says what such a value is, for a schema that has no more specific description of the property.
    """

    fn: Callable[[str, Any], Any]
    what: str = ""


class OpArgs(BaseModel):
    """Base of every canvas operation's argument model: unknown keys are refused, so a typo reads as an error.

    A null is read as "not given" (the default applies): models often send nulls for the arguments they skip.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _nulls_are_absent(cls, data: Any) -> Any:
        return {k: x for k, x in data.items() if x is not None} if isinstance(data, dict) else data


def check_of(field: FieldInfo, name: str) -> Check:
    """Return the canvas check attached to a property's type; raise CanvasError when its type carries none."""
    for meta in field.metadata:
        if isinstance(meta, Check):
            return meta
    raise CanvasError(f"property {name!r} has no canvas check: declare it with a type of mcot.canvas (Point, Color, …)")


def _optional(check: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    def optional(name: str, value: Any) -> Any:
        return None if value is None else check(name, value)

    return optional


def _width(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_WIDTH, low_open=True)


def _marker_radius(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_MARKER_RADIUS, low_open=True)


def _radius(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_RADIUS, low_open=True)


def _opacity(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=1.0)


def _font_size(name: str, value: Any) -> float:
    return v.number(name, value, low=0.0, high=MAX_TEXT_SIZE, low_open=True)


def _path_points(name: str, value: Any) -> list[list[float]]:
    return v.points(name, value, minimum=2)


def _polygon_points(name: str, value: Any) -> list[list[float]]:
    return v.points(name, value, minimum=3)


def _label(name: str, value: Any) -> str | None:
    return None if value is None else v.text(name, value, allow_empty=True)


def _text(name: str, value: Any) -> str:
    return v.text(name, value)


def _matrix(name: str, value: Any) -> list[float]:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple) or len(value) != 6:
        raise CanvasError(f"{name} must be six numbers [a, b, c, d, e, f] (a cairo-style affine matrix), got {value!r}")
    m = [v.number(f"{name}[{i}]", x, low=-1e7, high=1e7) for i, x in enumerate(value)]
    if abs(m[0] * m[3] - m[1] * m[2]) < 1e-12:
        raise CanvasError(f"{name} {m} is singular (it collapses the patch); use an invertible matrix")
    return m


def _patch_region(name: str, value: Any) -> list[int]:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple) or len(value) != 4:
        raise CanvasError(f"{name} must be [x0, y0, x1, y1], got {value!r}")
    return [v.integer(f"{name}[{i}]", x, low=0, high=1 << 20) for i, x in enumerate(value)]


Number = Annotated[float, Field(allow_inf_nan=False)]
"""A finite number (NaN and infinities are refused)."""

_POINT = "[x, y] in canvas pixels (y down)"
Point = Annotated[list[Number], Field(min_length=2, max_length=2, description=_POINT), Check(v.point, _POINT)]
"""A point ``[x, y]`` in pixels of the canvas, origin top-left, y down."""

PathPoints = Annotated[
    list[Point], Field(min_length=2, max_length=MAX_PATH_POINTS), Check(_path_points, "[[x, y], ...]")
]
"""The points of a polyline: at least two."""

PolygonPoints = Annotated[
    list[Point], Field(min_length=3, max_length=MAX_PATH_POINTS), Check(_polygon_points, "[[x, y], ...]")
]
"""The vertices of a polygon: at least three."""

_COLOR = "CSS colour name or '#rrggbb'"
Color = Annotated[str, Field(max_length=40, description=_COLOR), Check(v.color, _COLOR)]
"""A colour: a CSS colour name or ``#rrggbb`` (stored lowercase, ``#rgb`` expanded)."""

OptionalColor = Annotated[str | None, Field(max_length=40), Check(_optional(v.color), _COLOR)]
"""A colour, or none."""

Width = Annotated[float, Field(gt=0, le=MAX_WIDTH, allow_inf_nan=False), Check(_width, "stroke width in pixels")]
"""A stroke width in pixels."""

MarkerRadius = Annotated[
    float, Field(gt=0, le=MAX_MARKER_RADIUS, allow_inf_nan=False), Check(_marker_radius, "radius in pixels")
]
"""The radius of a point marker in pixels."""

Radius = Annotated[float, Field(gt=0, le=MAX_RADIUS, allow_inf_nan=False), Check(_radius, "radius in pixels")]
"""The radius of a circle in pixels."""

Opacity = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), Check(_opacity)]
"""An opacity from 0 (transparent) to 1."""

FontSize = Annotated[float, Field(gt=0, le=MAX_TEXT_SIZE, allow_inf_nan=False), Check(_font_size)]
"""A font size in pixels."""

Flag = Annotated[bool, Check(v.boolean)]
"""True or false."""

Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS), Check(_text)]
"""A text that is not empty."""

Label = Annotated[str | None, Field(max_length=MAX_TEXT_CHARS), Check(_label)]
"""A label, possibly empty, or none."""

Matrix = Annotated[list[Number], Field(min_length=6, max_length=6), Check(_matrix)]
"""A cairo-style affine matrix ``[a, b, c, d, e, f]`` (invertible)."""

PatchRegion = Annotated[list[int], Field(min_length=4, max_length=4), Check(_patch_region)]
"""The pixel box ``[x0, y0, x1, y1]`` a patch copies from the base."""

Box = Annotated[list[Number], Field(min_length=4, max_length=4, description="[x0, y0, x1, y1] in canvas pixels")]
"""A rectangle ``[x0, y0, x1, y1]`` (x0 < x1, y0 < y1)."""

ElementId = Annotated[str, Field(min_length=1, max_length=20)]
"""An element id such as ``e3``."""

ElementIds = Annotated[list[str], Field(min_length=1, max_length=MAX_ELEMENTS)]
"""A list of element ids."""
