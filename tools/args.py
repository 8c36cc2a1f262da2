"""Argument types shared by the tools: points, colours and the shapes of geometry, optics and physics."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from PIL import ImageColor
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

Number = Annotated[float, Field(allow_inf_nan=False)]
"""A finite number (NaN and infinities are refused)."""

Point = Annotated[list[Number], Field(min_length=2, max_length=2, description="[x, y] in canvas pixels (y down)")]
Vector = Annotated[list[Number], Field(min_length=2, max_length=2, description="[dx, dy] in canvas pixels (y down)")]
Segment = Annotated[list[Point], Field(min_length=2, max_length=2, description="[[x1, y1], [x2, y2]]")]
Box = Annotated[list[Number], Field(min_length=4, max_length=4, description="[x0, y0, x1, y1] in canvas pixels")]

MAX_POINTS = 2000
"""Most points a polygon, path or point list may have."""

MAX_ITEMS = 500
"""Most shapes (segments, surfaces, obstacles) one call may take."""


def _check_color(value: str) -> str:
    try:
        ImageColor.getrgb(value)
    except ValueError:
        raise ValueError(f"unknown colour {value!r}; use a CSS colour name such as 'red' or a hex '#rrggbb'") from None
    return value


Color = Annotated[
    str,
    Field(max_length=40, description="CSS colour name or '#rrggbb'"),
    AfterValidator(_check_color),
]


def _check_distinct(points: list[list[float]], what: str) -> None:
    if math.dist(points[0], points[1]) < 1e-9:
        raise ValueError(f"the two points of the {what} coincide; give two different points")


class Args(BaseModel):
    """Base of every argument model: unknown keys are refused so that a typo reads as an error."""

    model_config = ConfigDict(extra="forbid")


class DrawArgs(Args):
    """Arguments of a tool that can draw its result on the canvas."""

    draw: bool = Field(True, description="draw the result on the canvas")
    color: Color = Field("blue", description="colour of the drawing")


class Shape(Args):
    """A geometric figure: a point, segment, line, ray, circle or polygon."""

    kind: Literal["point", "segment", "line", "ray", "circle", "polygon"] = Field(
        description="point: points=[[x, y]]; segment/line: two points it passes through; ray: [origin, a point "
        "on it]; circle: center and radius; polygon: points (3 or more vertices)"
    )
    points: list[Point] | None = Field(None, max_length=MAX_POINTS, description="the points defining the shape")
    center: Point | None = Field(None, description="circle centre")
    radius: Number | None = Field(None, gt=0, description="circle radius (> 0)")

    @model_validator(mode="after")
    def _check(self) -> Shape:
        if self.kind == "circle":
            if self.center is None or self.radius is None:
                raise ValueError("a circle needs 'center': [x, y] and 'radius' > 0")
            return self
        needed = {"point": 1, "segment": 2, "line": 2, "ray": 2, "polygon": 3}[self.kind]
        pts = self.points or []
        if self.kind == "polygon":
            if len(pts) < 3:
                raise ValueError("a polygon needs 'points' with at least 3 vertices [[x, y], ...]")
        elif len(pts) != needed:
            raise ValueError(f"a {self.kind} needs 'points' with exactly {needed} point(s) [[x, y], ...]")
        if self.kind in ("segment", "line", "ray"):
            _check_distinct(pts, self.kind)
        return self


def check_segment(points: list[list[float]], what: str = "segment") -> list[list[float]]:
    """Return the segment's points after checking that its two ends differ (raise ValueError otherwise)."""
    _check_distinct(points, what)
    return points
