"""Rebuild what a trace drew: its tool steps' op records replayed on a real canvas, and the paths a verifier reads.

The records are applied with the canvas's own ``Canvas.apply`` (undo, redo, edits, removals and transforms
exactly as the canvas does them), on a blank canvas of the trace's size: no pixels are made, only elements.
Each element's path comes from its kind in the op table (``ElementKind.path``): lines and arrows are segments
that chain end to start, paths and polygons stand alone, markers, circles and text draw no path.

A record the canvas refuses never happened on a canvas (a canvas logs only what it did), so it is skipped; a
record's own id is kept as an alias of the id the replay gave, so later records that name it still resolve.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mcot.canvas import MAX_SIDE, Canvas, element_kind
from mcot.eval.verify.plane import Path, dist

MODEL, TOOL = "model", "tool"
"""Who drew an element: the model (a canvas tool it called) or a domain tool (``drawn_by: "tool"``)."""

_SVG_SIZE = re.compile(r'<svg[^>]*\swidth="(\d+)"[^>]*\sheight="(\d+)"')


def trace_ops(steps: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the canvas op records of a trace's tool steps, in order, each with `drawn_by` ("model" or "tool")."""
    ops: list[dict[str, Any]] = []
    for step in steps:
        if step.get("kind") == "tool" and isinstance(step.get("ops"), list):
            who = TOOL if step.get("drawn_by") == TOOL else MODEL
            ops.extend({**op, "drawn_by": who} for op in step["ops"] if isinstance(op, dict))
    return ops


def canvas_size(steps: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """Return the canvas size a trace's SVG layers state (the first that does), or None."""
    for step in steps:
        svg = step.get("svg") if isinstance(step, Mapping) else None
        match = _SVG_SIZE.search(svg) if isinstance(svg, str) else None
        if match:
            return int(match.group(1)), int(match.group(2))
    return None


def replay(ops: Sequence[Mapping[str, Any]], size: tuple[int, int] | None = None) -> list[tuple[Any, str]]:
    """Return the elements on the canvas after ``ops``, in drawing order, each with who drew it (MODEL or TOOL).

    ``size`` is the canvas's (width, height); unknown, the largest canvas, which refuses no record a smaller one
    accepted (only the grid step and a region's clipping depend on the size).
    """

    width, height = size if size is not None else (MAX_SIDE, MAX_SIDE)
    canvas = Canvas(size=(min(max(1, width), MAX_SIDE), min(max(1, height), MAX_SIDE)))
    creators: dict[str, str] = {}
    alias: dict[str, str] = {}
    for op in ops:
        record = {"op": op.get("op"), "args": _resolved(op.get("args"), alias)}
        try:
            created = canvas.apply(record)
        except Exception:  # a record the canvas refuses (or cannot read) never happened on a canvas
            continue
        if created is not None:
            recorded = op.get("id")
            if isinstance(recorded, str) and recorded != created:
                alias[recorded] = created
            creators[created] = TOOL if op.get("drawn_by") == TOOL else MODEL
    return [(element, creators.get(element.id, MODEL)) for element in canvas.elements.values()]


def drawn_paths(
    ops: Sequence[Mapping[str, Any]], *, size: tuple[int, int] | None = None
) -> list[tuple[str, Path, str]]:
    """Return (``"segment"`` | ``"path"``, points, who drew it) of every path-like element on the final canvas.

    One replay of ``ops``, in creation order; an element whose kind draws no path (a marker, a circle, text) is
    left out. Segments chain end to start (``chain``), paths stand alone.
    """

    out: list[tuple[str, Path, str]] = []
    for element, who in replay(ops, size):
        kind = element_kind(element.kind)
        if kind.path is not None:
            points = [(float(x), float(y)) for x, y in kind.path(element.props)]
            out.append(("segment" if kind.chains else "path", points, who))
    return out


def drawn_elements(
    ops: Sequence[Mapping[str, Any]], drawn_by: str | None = None, *, size: tuple[int, int] | None = None
) -> list[tuple[str, Path]]:
    """Return the ("segment" | "path", points) of every path-like element on the final canvas, in creation order.

    With `drawn_by` ("model" or "tool"), only the elements whose creating op has that `drawn_by` (absent: the
    model's); the other ops are still replayed so that undo, redo and ids resolve as on the canvas.
    """
    return [(kind, points) for kind, points, who in drawn_paths(ops, size=size) if drawn_by in (None, who)]


def candidate_paths(
    ops: Sequence[Mapping[str, Any]],
    join_tol: float = 6.0,
    drawn_by: str | None = None,
    *,
    size: tuple[int, int] | None = None,
) -> list[Path]:
    """Return every drawn path (of `drawn_by` only, when given): paths and polygons, lines/arrows chained end to start."""
    return chain(drawn_elements(ops, drawn_by, size=size), join_tol)


def chain(elements: Sequence[tuple[str, Path]], join_tol: float = 6.0) -> list[Path]:
    """Return the candidate paths of drawn elements: each path alone, consecutive segments joined end to start."""
    candidates: list[Path] = []
    current: Path = []
    for kind, points in elements:
        if len(points) < 2 or not all(math.isfinite(x) and math.isfinite(y) for x, y in points):
            continue
        if kind == "path":
            candidates.append(points)
            continue
        if current and dist(current[-1], points[0]) <= join_tol:
            current.extend(points[1:])
        elif current and dist(current[-1], points[-1]) <= join_tol:
            current.extend(points[-2::-1])
        else:
            if current:
                candidates.append(current)
            current = list(points)
    if current:
        candidates.append(current)
    return candidates


def _resolved(args: Any, alias: Mapping[str, str]) -> Any:
    """Return a record's arguments with the element ids it names mapped through ``alias``."""
    if not alias or not isinstance(args, Mapping):
        return args
    out = dict(args)
    if isinstance(out.get("id"), str):
        out["id"] = alias.get(out["id"], out["id"])
    if isinstance(out.get("ids"), list):
        out["ids"] = [alias.get(i, i) if isinstance(i, str) else i for i in out["ids"]]
    return out
