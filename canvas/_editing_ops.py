"""The operations that edit elements, walk the history or change the view, each declared once, and the patch kind.

Each is a method of Canvas of the same name; its declaration gives the tool its arguments (with defaults),
description, example, the sentence of the system prompt, and how the tool reports what it did (``perform``).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from mcot.canvas._args import Box, ElementId, ElementIds, Matrix, Number, Opacity, OpArgs, PatchRegion, Point
from mcot.canvas._elements import mapped, matrix_list
from mcot.canvas._limits import MAX_SCALE, MAX_SIDE, MAX_ZOOM, MIN_GRID_STEP
from mcot.canvas._ops import ElementKind, OpSpec, Outcome, UpdateTarget
from mcot.canvas._svg import patch_svg
from pydantic import Field

from mcot.core.geometry import Affine, Vec

DEFAULT_ZOOM = 2.0
"""Magnification of a zoom that names none."""


class PatchProps(OpArgs):
    region: PatchRegion = Field(description="[x0, y0, x1, y1] of the base the patch copies")
    matrix: Matrix = Field([1.0, 0.0, 0.0, 1.0, 0.0, 0.0], description="where the copy goes (cairo matrix)")
    opacity: Opacity = Field(1.0, description="opacity of the copy")


def _move_patch(p: dict[str, Any], t: Affine) -> dict[str, Any]:
    return {**p, "matrix": matrix_list(Affine(*p["matrix"]).then(t))}


def _patch_corners(p: Mapping[str, Any]) -> list[Vec]:
    x0, y0, x1, y1 = p["region"]
    m = Affine(*p["matrix"])
    return [(q[0], q[1]) for q in (mapped(m, c) for c in ([x0, y0], [x1, y0], [x1, y1], [x0, y1]))]


PATCH = ElementKind(
    "patch",
    "mcot.canvas._render:draw_patch",
    patch_svg,
    props=PatchProps,
    move=_move_patch,
    anchors=_patch_corners,
    read_only=frozenset({"region"}),
)
"""A copy of a region of the base image under an affine matrix (``transform`` with ``region``)."""


class Rotate(OpArgs):
    angle: Number = Field(ge=-3600, le=3600, description="degrees, counter-clockwise on screen")
    center: Point | None = Field(None, description="[x, y]; default the centre of what is moved")


class Reflect(OpArgs):
    line: list[Point] = Field(min_length=2, max_length=2, description="mirror line [[x1, y1], [x2, y2]]")


class Scale(OpArgs):
    factor: Number = Field(ge=1 / MAX_SCALE, le=MAX_SCALE, description="scale factor")
    center: Point | None = Field(None, description="[x, y]; default the centre of what is scaled")


class TransformArgs(OpArgs):
    ids: ElementIds | None = Field(None, description="element ids to move, e.g. ['e1']")
    region: Box | None = Field(None, description="[x0, y0, x1, y1]: transform a copy of this part of the image")
    translate: list[Number] | None = Field(None, min_length=2, max_length=2, description="[dx, dy]")
    rotate: Rotate | None = None
    reflect: Reflect | None = None
    scale: Scale | None = None


class IdArgs(OpArgs):
    id: ElementId = Field(description="the element id, e.g. 'e3'")


class NoArgs(OpArgs):
    pass


class ZoomArgs(OpArgs):
    region: Box = Field(description="[x0, y0, x1, y1] of the part to magnify")
    factor: Number = Field(DEFAULT_ZOOM, gt=0, le=MAX_ZOOM, description="magnification")


class GridArgs(OpArgs):
    on: bool = Field(description="true to show the labelled grid, false to hide it")
    step: int | None = Field(None, ge=MIN_GRID_STEP, le=MAX_SIDE, description="grid spacing in pixels")


def _transform(canvas: Any, args: dict[str, Any]) -> Outcome:
    ids = canvas.transform(**args)
    return Outcome(f"transform: changed {', '.join(ids)}", {"ids": ids, "id": ids[0] if ids else None}, list(ids))


def _update(canvas: Any, args: dict[str, Any]) -> Outcome:
    changes = dict(args)
    element_id = canvas.update_element(changes.pop("id"), **changes)
    return Outcome(f"update_element: changed {element_id}", {"id": element_id}, [element_id])


def _remove(canvas: Any, args: dict[str, Any]) -> Outcome:
    canvas.remove_element(args["id"])
    return Outcome(f"remove_element: removed {args['id']}", {"id": args["id"]}, [args["id"]])


def _undo(canvas: Any, args: dict[str, Any]) -> Outcome:
    done = bool(canvas.undo())
    return Outcome("undo: reverted the last operation" if done else "undo: nothing to undo", {"undone": done})


def _redo(canvas: Any, args: dict[str, Any]) -> Outcome:
    done = bool(canvas.redo())
    return Outcome("redo: re-applied the last undone operation" if done else "redo: nothing to redo", {"redone": done})


def _zoom(canvas: Any, args: dict[str, Any]) -> Outcome:
    region, factor = args["region"], args.get("factor", DEFAULT_ZOOM)
    image = canvas.zoom(region, factor)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    data = {"region": region, "factor": factor, "width": image.width, "height": image.height}
    text = f"zoom: {image.width}x{image.height} view of region {region} attached"
    return Outcome(text, data, image=buffer.getvalue())


def _show_grid(canvas: Any, args: dict[str, Any]) -> Outcome:
    on, step = args["on"], args.get("step")
    canvas.show_grid(on, step)
    step = getattr(canvas, "grid_step", step)
    return Outcome(
        f"show_grid: grid {'on' if on else 'off'}" + (f", step {step} px" if on else ""), {"on": on, "step": step}
    )


EDITING_OPS: tuple[OpSpec, ...] = (
    OpSpec(
        "transform",
        TransformArgs,
        "Move elements (ids) or a copy of an image region by one of translate [dx, dy], rotate {angle (degrees, "
        "counter-clockwise on screen), center}, reflect {line} or scale {factor, center}.\n\n"
        "Returns data.ids: the elements changed (or the new image-patch element for a region).",
        {"region": [0, 0, 100, 100], "translate": [200, 0]},
        role="edit",
        element=PATCH,
        perform=_transform,
    ),
    OpSpec(
        "update_element",
        UpdateTarget,
        "Edit properties of an element in place (color, width, label, points, …). Returns data.id.",
        {"id": "e1", "color": "green"},
        role="edit",
        perform=_update,
    ),
    OpSpec(
        "remove_element",
        IdArgs,
        "Delete an element from the canvas. Returns data.id of the removed element.",
        {"id": "e1"},
        role="edit",
        perform=_remove,
    ),
    OpSpec(
        "undo",
        NoArgs,
        "Revert the last canvas operation. Returns data.undone (false when there was nothing to undo).",
        {},
        role="history",
        perform=_undo,
        hint="undo reverts the last operation.",
    ),
    OpSpec(
        "redo",
        NoArgs,
        "Re-apply the last undone canvas operation. Returns data.redone (false when there was nothing to redo).",
        {},
        role="history",
        perform=_redo,
        tool=False,
    ),
    OpSpec(
        "zoom",
        ZoomArgs,
        "Return a magnified view of a region as an image (the canvas is unchanged). Returns the image and its size.",
        {"region": [0, 0, 160, 160], "factor": 2},
        role="view",
        perform=_zoom,
        hint="zoom returns a magnified view of a region without changing the canvas.",
        changes_canvas=False,
    ),
    OpSpec(
        "show_grid",
        GridArgs,
        "Show or hide a labelled pixel-coordinate grid overlay (optional step in pixels). Returns data.on and step.",
        {"on": True, "step": 50},
        role="view",
        perform=_show_grid,
        hint="show_grid overlays a labelled coordinate grid to help you read positions.",
    ),
)
