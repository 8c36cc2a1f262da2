"""The canvas operations of DESIGN.md as tools, with exactly those names and argument names."""

from __future__ import annotations

import io
from typing import Any

from mcot.tools.args import Args, Box, Color, Number, Point, Segment
from mcot.tools.registry import Context, Output, tool
from pydantic import Field, model_validator

CANVAS_TOOLS: tuple[str, ...] = (
    "draw_line",
    "mark_point",
    "trace_path",
    "draw_arrow",
    "draw_circle",
    "draw_polygon",
    "add_text",
    "transform",
    "update_element",
    "remove_element",
    "undo",
    "zoom",
    "show_grid",
)
"""The canvas tool names of DESIGN.md, in its order."""

Width = Number


class Style(Args):
    color: Color | None = Field(None, description="stroke colour (CSS name or '#rrggbb'; default red)")
    width: Width | None = Field(None, gt=0, le=100, description="stroke width in pixels (default 3)")


class LineArgs(Style):
    start: Point = Field(description="[x, y] where the segment starts")
    end: Point = Field(description="[x, y] where it ends")
    dashed: bool | None = Field(None, description="dashed stroke")


class PointArgs(Args):
    at: Point = Field(description="[x, y] of the marker")
    label: str | None = Field(None, max_length=200, description="text shown next to the marker")
    color: Color | None = Field(None, description="marker colour (default red)")
    radius: Number | None = Field(None, gt=0, le=100, description="marker radius in pixels (default 5)")


class PathArgs(Style):
    points: list[Point] = Field(min_length=2, max_length=10000, description="[[x, y], ...] the polyline's points")
    closed: bool | None = Field(None, description="join the last point to the first")
    arrow: bool | None = Field(None, description="arrowhead at the last point")


class ArrowArgs(Style):
    start: Point = Field(description="[x, y] tail")
    end: Point = Field(description="[x, y] head")


class FillStyle(Style):
    fill: Color | None = Field(None, description="fill colour (none by default for circles)")
    opacity: Number | None = Field(None, ge=0, le=1, description="fill opacity from 0 to 1")


class CircleArgs(FillStyle):
    center: Point = Field(description="[x, y] centre")
    radius: Number = Field(gt=0, description="radius in pixels")


class PolygonArgs(FillStyle):
    points: list[Point] = Field(min_length=3, max_length=10000, description="[[x, y], ...] vertices in order")


class TextArgs(Args):
    at: Point = Field(description="[x, y] of the text's top-left corner")
    text: str = Field(min_length=1, max_length=1000, description="the label")
    color: Color | None = Field(None, description="text colour (default red)")
    size: Number | None = Field(None, gt=0, le=400, description="font size in pixels (default 16)")


class Rotate(Args):
    angle: Number = Field(description="degrees, counter-clockwise on screen")
    center: Point | None = Field(None, description="[x, y]; default the centre of what is moved")


class Reflect(Args):
    line: Segment = Field(description="mirror line [[x1, y1], [x2, y2]]")


class Scale(Args):
    factor: Number = Field(gt=0, description="scale factor (> 0)")
    center: Point | None = Field(None, description="[x, y]; default the centre of what is scaled")


class TransformArgs(Args):
    ids: list[str] | None = Field(None, min_length=1, max_length=5000, description="element ids to move, e.g. ['e1']")
    region: Box | None = Field(None, description="[x0, y0, x1, y1]: transform a copy of this part of the image")
    translate: list[Number] | None = Field(None, min_length=2, max_length=2, description="[dx, dy]")
    rotate: Rotate | None = None
    reflect: Reflect | None = None
    scale: Scale | None = None

    @model_validator(mode="after")
    def _check(self) -> TransformArgs:
        if (self.ids is None) == (self.region is None):
            raise ValueError("give exactly one of ids (element ids) or region ([x0, y0, x1, y1])")
        chosen = [k for k in ("translate", "rotate", "reflect", "scale") if getattr(self, k) is not None]
        if len(chosen) != 1:
            raise ValueError("give exactly one of translate, rotate, reflect or scale")
        return self


class UpdateArgs(Args):
    id: str = Field(min_length=1, max_length=20, description="the element to edit, e.g. 'e3'")
    color: Color | None = None
    width: Width | None = Field(None, gt=0, le=100)
    dashed: bool | None = None
    label: str | None = Field(None, max_length=200)
    radius: Number | None = Field(None, gt=0)
    fill: Color | None = None
    opacity: Number | None = Field(None, ge=0, le=1)
    text: str | None = Field(None, max_length=1000)
    size: Number | None = Field(None, gt=0, le=400)
    closed: bool | None = None
    arrow: bool | None = None
    start: Point | None = None
    end: Point | None = None
    at: Point | None = None
    center: Point | None = None
    points: list[Point] | None = Field(None, max_length=10000)

    @model_validator(mode="after")
    def _check(self) -> UpdateArgs:
        if not _given(self, exclude={"id"}):
            raise ValueError('give at least one property to change besides id, e.g. {"id": "e1", "color": "blue"}')
        return self


class IdArgs(Args):
    id: str = Field(min_length=1, max_length=20, description="the element id, e.g. 'e3'")


class NoArgs(Args):
    pass


class ZoomArgs(Args):
    region: Box = Field(description="[x0, y0, x1, y1] of the part to magnify")
    factor: Number | None = Field(None, gt=0, le=16, description="magnification (default 2)")


class GridArgs(Args):
    on: bool = Field(description="true to show the labelled grid, false to hide it")
    step: int | None = Field(None, ge=10, le=8192, description="grid spacing in pixels")


def _given(args: Args, exclude: set[str] | None = None) -> dict[str, Any]:
    return {k: v for k, v in args.model_dump(exclude_none=True, exclude=exclude).items()}


def _created(ctx: Context, op: str, args: Args, positional: tuple[str, ...]) -> Output:
    kw = _given(args)
    pos = [kw.pop(name) for name in positional]
    new_id = getattr(ctx.canvas, op)(*pos, **kw)
    return Output(f"{op}: created {new_id}", {"id": new_id}, drawn=[new_id])


@tool("canvas", example={"start": [10, 10], "end": [200, 120], "color": "blue"})
def draw_line(args: LineArgs, ctx: Context) -> Output:
    """Draw a segment from start to end (optional color, width, dashed). Returns data.id of the new element."""
    return _created(ctx, "draw_line", args, ("start", "end"))


@tool("canvas", example={"at": [100, 100], "label": "A"})
def mark_point(args: PointArgs, ctx: Context) -> Output:
    """Put a marker at a point with an optional label. Returns data.id of the new element."""
    return _created(ctx, "mark_point", args, ("at",))


@tool("canvas", example={"points": [[10, 10], [100, 50], [150, 150]], "arrow": True})
def trace_path(args: PathArgs, ctx: Context) -> Output:
    """Draw a polyline through points (optional closed, arrow, color, width). Returns data.id of the new element."""
    return _created(ctx, "trace_path", args, ("points",))


@tool("canvas", example={"start": [100, 100], "end": [160, 40]})
def draw_arrow(args: ArrowArgs, ctx: Context) -> Output:
    """Draw an arrow from start to end (forces, velocities, rays). Returns data.id of the new element."""
    return _created(ctx, "draw_arrow", args, ("start", "end"))


@tool("canvas", example={"center": [200, 200], "radius": 50})
def draw_circle(args: CircleArgs, ctx: Context) -> Output:
    """Draw a circle (optional fill and opacity). Returns data.id of the new element."""
    return _created(ctx, "draw_circle", args, ("center", "radius"))


@tool("canvas", example={"points": [[50, 50], [150, 50], [100, 130]], "fill": "yellow", "opacity": 0.3})
def draw_polygon(args: PolygonArgs, ctx: Context) -> Output:
    """Draw a closed polygon through points (optional fill, opacity). Returns data.id of the new element."""
    return _created(ctx, "draw_polygon", args, ("points",))


@tool("canvas", example={"at": [20, 20], "text": "F = ma"})
def add_text(args: TextArgs, ctx: Context) -> Output:
    """Write a text label with its top-left corner at `at`. Returns data.id of the new element."""
    return _created(ctx, "add_text", args, ("at", "text"))


@tool("canvas", example={"region": [0, 0, 100, 100], "translate": [200, 0]})
def transform(args: TransformArgs, ctx: Context) -> Output:
    """Move elements (ids) or a copy of an image region by one of translate [dx, dy], rotate {angle (degrees,
    counter-clockwise on screen), center}, reflect {line} or scale {factor, center}.

    Returns data.ids: the elements changed (or the new image-patch element for a region).
    """
    ids = ctx.canvas.transform(**_given(args))
    return Output(f"transform: changed {', '.join(ids)}", {"ids": ids, "id": ids[0] if ids else None}, drawn=list(ids))


@tool("canvas", example={"id": "e1", "color": "green"})
def update_element(args: UpdateArgs, ctx: Context) -> Output:
    """Edit properties of an element in place (color, width, label, points, …). Returns data.id."""
    kw = _given(args)
    element_id = ctx.canvas.update_element(kw.pop("id"), **kw)
    return Output(f"update_element: changed {element_id}", {"id": element_id}, drawn=[element_id])


@tool("canvas", example={"id": "e1"})
def remove_element(args: IdArgs, ctx: Context) -> Output:
    """Delete an element from the canvas. Returns data.id of the removed element."""
    ctx.canvas.remove_element(args.id)
    return Output(f"remove_element: removed {args.id}", {"id": args.id}, drawn=[args.id])


@tool("canvas", example={})
def undo(args: NoArgs, ctx: Context) -> Output:
    """Revert the last canvas operation. Returns data.undone (false when there was nothing to undo)."""
    done = bool(ctx.canvas.undo())
    return Output("undo: reverted the last operation" if done else "undo: nothing to undo", {"undone": done})


@tool("canvas", example={"region": [0, 0, 160, 160], "factor": 2})
def zoom(args: ZoomArgs, ctx: Context) -> Output:
    """Return a magnified view of a region as an image (the canvas is unchanged). Returns the image and its size."""
    kw = _given(args)
    image = ctx.canvas.zoom(kw["region"], kw.get("factor", 2.0))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    data = {"region": args.region, "factor": kw.get("factor", 2.0), "width": image.width, "height": image.height}
    return Output(
        f"zoom: {image.width}x{image.height} view of region {args.region} attached", data, image=buf.getvalue()
    )


@tool("canvas", example={"on": True, "step": 50})
def show_grid(args: GridArgs, ctx: Context) -> Output:
    """Show or hide a labelled pixel-coordinate grid overlay (optional step in pixels). Returns data.on and step."""
    ctx.canvas.show_grid(args.on, args.step)
    step = getattr(ctx.canvas, "grid_step", args.step)
    return Output(
        f"show_grid: grid {'on' if args.on else 'off'}" + (f", step {step} px" if args.on else ""),
        {"on": args.on, "step": step},
    )
