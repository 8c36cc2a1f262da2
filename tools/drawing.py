"""A sketch: drawings a tool queues while it computes, applied to the canvas only once the tool has succeeded."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcot.canvas import MAX_ELEMENTS  # a canvas exists, so the package is already imported
from mcot.tools.errors import ToolError

MAX_DRAWINGS = 200
"""Most canvas elements one tool call may add."""


@dataclass
class Sketch:
    """Queued canvas operations (method name, positional and keyword arguments), committed all or nothing."""

    ops: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)

    def _add(self, op: str, *args: Any, **kwargs: Any) -> None:
        if len(self.ops) >= MAX_DRAWINGS:
            raise ToolError(f"the drawing would need more than {MAX_DRAWINGS} elements; pass draw=false")
        self.ops.append((op, args, {k: v for k, v in kwargs.items() if v is not None}))

    def line(self, start: list[float], end: list[float], **style: Any) -> None:
        """Queue a segment; returns nothing (ids come from `commit`)."""
        self._add("draw_line", _pt(start), _pt(end), **style)

    def arrow(self, start: list[float], end: list[float], **style: Any) -> None:
        """Queue an arrow; returns nothing."""
        self._add("draw_arrow", _pt(start), _pt(end), **style)

    def path(self, points: list[list[float]], **style: Any) -> None:
        """Queue a polyline (a single point is drawn as a marker); returns nothing."""
        pts = [_pt(p) for p in points]
        if len(pts) >= 2:
            self._add("trace_path", pts, **style)

    def point(self, at: list[float], label: str | None = None, **style: Any) -> None:
        """Queue a point marker with an optional label; returns nothing."""
        self._add("mark_point", _pt(at), label=label, **style)

    def circle(self, center: list[float], radius: float, **style: Any) -> None:
        """Queue a circle; returns nothing."""
        self._add("draw_circle", _pt(center), float(radius), **style)

    def polygon(self, points: list[list[float]], **style: Any) -> None:
        """Queue a polygon; returns nothing."""
        self._add("draw_polygon", [_pt(p) for p in points], **style)

    def text(self, at: list[float], text: str, **style: Any) -> None:
        """Queue a text label; returns nothing."""
        self._add("add_text", _pt(at), text, **style)

    def commit(self, canvas: Any) -> list[str]:
        """Apply the queued operations in order and return the new element ids; on failure roll them all back.

        The rollback restores the canvas exactly (``Canvas.rollback``): nothing is logged, nothing can be redone.
        """
        ids: list[str] = []
        _check_room(canvas, len(self.ops))
        mark = checkpoint(canvas)
        try:
            for op, args, kwargs in self.ops:
                ids.append(getattr(canvas, op)(*args, **kwargs))
        except Exception:
            rollback(canvas, mark, len(ids))
            raise
        finally:
            self.ops = []
        return ids


def _check_room(canvas: Any, count: int) -> None:
    """Raise ToolError when `count` new elements would not fit on the canvas (before drawing any of them)."""
    elements = getattr(canvas, "elements", None)
    if elements is None or count == 0:
        return

    room = MAX_ELEMENTS - len(elements)
    if count > room:
        raise ToolError(
            f"the drawing needs {count} new elements but the canvas has room for {max(0, room)} more "
            f"(at most {MAX_ELEMENTS}); pass draw=false, or remove elements first"
        )


def checkpoint(canvas: Any) -> Any:
    """Return the canvas's checkpoint (``Canvas.checkpoint``), or None for a canvas without one."""
    take = getattr(canvas, "checkpoint", None)
    return take() if callable(take) else None


def rollback(canvas: Any, mark: Any, applied: int) -> None:
    """Bring `canvas` back to `mark` exactly; a canvas without checkpoints has its `applied` operations undone."""
    if mark is not None:
        canvas.rollback(mark)
        return
    for _ in range(applied):
        canvas.undo()


_LIMIT = 999_999.0
"""Drawn coordinates are clamped to the canvas's coordinate range (the canvas clips what lies off the image)."""


def _pt(p: Any) -> list[float]:
    return [round(max(-_LIMIT, min(_LIMIT, float(c))), 3) for c in (p[0], p[1])]
