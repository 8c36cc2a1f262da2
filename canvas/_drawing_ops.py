"""The seven drawing operations of DESIGN.md, each declared once: arguments with defaults, description, element kind.

A drawing op's argument model is also its element's properties: what the model may pass is what the element
stores, with the defaults filled in. Rendering functions are named by reference (``mcot.canvas._render``
imports cairo, which the table does not need).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcot.canvas._args import (
    Color,
    Flag,
    FontSize,
    Label,
    MarkerRadius,
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
from mcot.canvas._ops import ElementKind, OpSpec
from mcot.canvas._svg import arrow_svg, circle_svg, line_svg, path_svg, point_svg, polygon_svg, text_svg
from pydantic import Field

from mcot.core.geometry import Vec

_RENDER = "mcot.canvas._render:"

DEFAULT_COLOR = "red"
"""Colour of every drawing that names none."""

DEFAULT_WIDTH = 3.0
"""Stroke width in pixels of every drawing that names none."""


def _segment(p: Mapping[str, Any]) -> list[Vec]:
    return [(p["start"][0], p["start"][1]), (p["end"][0], p["end"][1])]


def _polyline(p: Mapping[str, Any]) -> list[Vec]:
    points: list[Vec] = [(q[0], q[1]) for q in p["points"]]
    return [*points, points[0]] if p.get("closed", True) else points


class LineArgs(OpArgs):
    start: Point = Field(description="[x, y] where the segment starts")
    end: Point = Field(description="[x, y] where it ends")
    color: Color = Field(DEFAULT_COLOR, description="stroke colour (CSS name or '#rrggbb')")
    width: Width = Field(DEFAULT_WIDTH, description="stroke width in pixels")
    dashed: Flag = Field(False, description="dashed stroke")


class PointArgs(OpArgs):
    at: Point = Field(description="[x, y] of the marker")
    label: Label = Field(None, description="text shown next to the marker")
    color: Color = Field(DEFAULT_COLOR, description="marker colour (CSS name or '#rrggbb')")
    radius: MarkerRadius = Field(5.0, description="marker radius in pixels")


class PathArgs(OpArgs):
    points: PathPoints = Field(description="[[x, y], ...] the polyline's points")
    closed: Flag = Field(False, description="join the last point to the first")
    arrow: Flag = Field(False, description="arrowhead at the last point")
    color: Color = Field(DEFAULT_COLOR, description="stroke colour (CSS name or '#rrggbb')")
    width: Width = Field(DEFAULT_WIDTH, description="stroke width in pixels")


class ArrowArgs(OpArgs):
    start: Point = Field(description="[x, y] tail")
    end: Point = Field(description="[x, y] head")
    color: Color = Field(DEFAULT_COLOR, description="stroke colour (CSS name or '#rrggbb')")
    width: Width = Field(DEFAULT_WIDTH, description="stroke width in pixels")


class CircleArgs(OpArgs):
    center: Point = Field(description="[x, y] centre")
    radius: Radius = Field(description="radius in pixels")
    color: Color = Field(DEFAULT_COLOR, description="stroke colour (CSS name or '#rrggbb')")
    width: Width = Field(DEFAULT_WIDTH, description="stroke width in pixels")
    fill: OptionalColor = Field(None, description="fill colour (no fill when absent)")
    opacity: Opacity = Field(1.0, description="fill opacity from 0 to 1")


class PolygonArgs(OpArgs):
    points: PolygonPoints = Field(description="[[x, y], ...] vertices in order")
    color: Color = Field(DEFAULT_COLOR, description="stroke colour (CSS name or '#rrggbb')")
    width: Width = Field(DEFAULT_WIDTH, description="stroke width in pixels")
    fill: OptionalColor = Field(None, description="fill colour (the stroke colour when absent)")
    opacity: Opacity = Field(0.3, description="fill opacity from 0 to 1")


class TextArgs(OpArgs):
    at: Point = Field(description="[x, y] of the text's top-left corner")
    text: Text = Field(description="the label")
    color: Color = Field(DEFAULT_COLOR, description="text colour (CSS name or '#rrggbb')")
    size: FontSize = Field(16.0, description="font size in pixels")


LINE = ElementKind("line", _RENDER + "draw_line", line_svg, points=("start", "end"), path=_segment, chains=True)
POINT = ElementKind("point", _RENDER + "draw_point", point_svg, points=("at",))
PATH = ElementKind("path", _RENDER + "draw_path", path_svg, point_lists=("points",), path=_polyline)
ARROW = ElementKind("arrow", _RENDER + "draw_arrow", arrow_svg, points=("start", "end"), path=_segment, chains=True)
CIRCLE = ElementKind("circle", _RENDER + "draw_circle", circle_svg, points=("center",), lengths=("radius",))
POLYGON = ElementKind("polygon", _RENDER + "draw_polygon", polygon_svg, point_lists=("points",), path=_polyline)
TEXT = ElementKind("text", _RENDER + "draw_text", text_svg, points=("at",), lengths=("size",))

DRAWING_OPS: tuple[OpSpec, ...] = (
    OpSpec(
        "draw_line",
        LineArgs,
        "Draw a segment from start to end (optional color, width, dashed). Returns data.id of the new element.",
        {"start": [10, 10], "end": [200, 120], "color": "blue"},
        element=LINE,
    ),
    OpSpec(
        "mark_point",
        PointArgs,
        "Put a marker at a point with an optional label. Returns data.id of the new element.",
        {"at": [100, 100], "label": "A"},
        element=POINT,
    ),
    OpSpec(
        "trace_path",
        PathArgs,
        "Draw a polyline through points (optional closed, arrow, color, width). Returns data.id of the new element.",
        {"points": [[10, 10], [100, 50], [150, 150]], "arrow": True},
        element=PATH,
    ),
    OpSpec(
        "draw_arrow",
        ArrowArgs,
        "Draw an arrow from start to end (forces, velocities, rays). Returns data.id of the new element.",
        {"start": [100, 100], "end": [160, 40]},
        element=ARROW,
    ),
    OpSpec(
        "draw_circle",
        CircleArgs,
        "Draw a circle (optional fill and opacity). Returns data.id of the new element.",
        {"center": [200, 200], "radius": 50},
        element=CIRCLE,
    ),
    OpSpec(
        "draw_polygon",
        PolygonArgs,
        "Draw a closed polygon through points (optional fill, opacity). Returns data.id of the new element.",
        {"points": [[50, 50], [150, 50], [100, 130]], "fill": "yellow", "opacity": 0.3},
        element=POLYGON,
    ),
    OpSpec(
        "add_text",
        TextArgs,
        "Write a text label with its top-left corner at `at`. Returns data.id of the new element.",
        {"at": [20, 20], "text": "F = ma"},
        element=TEXT,
    ),
)
