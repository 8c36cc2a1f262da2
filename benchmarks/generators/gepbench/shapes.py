"""Shapes of a GePBench figure: kind, outline in the unit square (y up) and the measures questions ask about."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

# The paper's 15 shapes, plus the equilateral triangle, which is a special triangle (the public engine treats it
# as a type of its own; here it is a triangle that also answers to "equilateral triangle").
KINDS: tuple[str, ...] = (
    "line",
    "triangle",
    "equilateral triangle",
    "quadrilateral",
    "rectangle",
    "square",
    "pentagon",
    "regular pentagon",
    "hexagon",
    "regular hexagon",
    "pentagram",
    "hexagram",
    "ellipse",
    "circle",
    "sector",
    "spiral",
)
OPEN_KINDS = frozenset({"line", "spiral"})
POLYGON_KINDS = frozenset(
    {
        "triangle",
        "equilateral triangle",
        "quadrilateral",
        "rectangle",
        "square",
        "pentagon",
        "regular pentagon",
        "hexagon",
        "regular hexagon",
    }
)


@dataclass(frozen=True)
class Shape:
    """One drawn shape: its most specific kind, its outline (unit square, y up) and its defining parameters."""

    kind: str
    outline: tuple[tuple[float, float], ...]
    closed: bool
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @cached_property
    def array(self) -> np.ndarray:
        """Return the outline as an (N, 2) float array."""
        return np.asarray(self.outline, dtype=float)

    @cached_property
    def geometry(self) -> BaseGeometry:
        """Return the outline as a shapely LineString or LinearRing."""
        # built from the array (shapely's vectorised constructors): ten times faster than from tuples
        return shapely.linearrings(self.array) if self.closed else shapely.linestrings(self.array)

    @cached_property
    def region(self) -> Polygon | None:
        """Return the enclosed region of a closed shape, None for an open one."""
        return shapely.polygons(self.array) if self.closed else None

    @cached_property
    def _moments(self) -> tuple[float, float, float]:
        """Return (signed area, area centroid x, y) of a closed outline by the shoelace formula."""
        a = self.array
        x, y = a[:, 0], a[:, 1]
        xn, yn = np.concatenate((x[1:], x[:1])), np.concatenate((y[1:], y[:1]))  # np.roll, without its overhead
        cross = x * yn - xn * y
        signed = 0.5 * float(cross.sum())
        if signed == 0.0:
            return 0.0, float(x.mean()), float(y.mean())
        return signed, float(((x + xn) * cross).sum()) / (6 * signed), float(((y + yn) * cross).sum()) / (6 * signed)

    @cached_property
    def area(self) -> float:
        """Return the enclosed area (0 for lines and spirals)."""
        return abs(self._moments[0]) if self.closed else 0.0

    @cached_property
    def centroid(self) -> tuple[float, float]:
        """Return the area centroid of a closed shape, the length-weighted centroid of an open one."""
        if self.closed:
            return (self._moments[1], self._moments[2])
        a = self.array
        mid = 0.5 * (a[1:] + a[:-1])
        weight = np.hypot(*np.diff(a, axis=0).T)
        return (float(mid[:, 0] @ weight / weight.sum()), float(mid[:, 1] @ weight / weight.sum()))

    @cached_property
    def segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return the outline's segments as arrays (start x, start y, dx, dy, squared length, floored at 1e-18)."""
        a = np.vstack([self.array, self.array[:1]]) if self.closed else self.array
        d = np.diff(a, axis=0)
        length2 = np.maximum(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1], 1e-18)
        return a[:-1, 0], a[:-1, 1], d[:, 0], d[:, 1], length2

    @cached_property
    def box(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """Return the outline's bounding box as ((xmin, ymin), (xmax, ymax))."""
        a = self.array
        lo, hi = a.min(axis=0), a.max(axis=0)
        return ((float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1])))

    @cached_property
    def spans(self) -> tuple[float, float]:
        """Return the (horizontal, vertical) extent of the outline."""
        (x0, y0), (x1, y1) = self.box
        return (x1 - x0, y1 - y0)

    @cached_property
    def vertices(self) -> tuple[tuple[float, float], ...]:
        """Return the corner points of a polygon or star, the end points of a line, else ()."""
        return tuple(self.params.get("points", ()))

    def native(self) -> dict[str, Any]:
        """Return the shape as a public-engine-style rules dict (unit square, y up, rounded to 4 decimals)."""
        out: dict[str, Any] = {"type": self.kind}
        for key, value in self.params.items():
            out[key] = _round(value)
        return out


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, (list, tuple)):
        return [_round(v) for v in value]
    return value


def polygon(kind: str, points: list[tuple[float, float]], **extra: Any) -> Shape:
    """Return a polygon-like closed shape through `points` (counter-clockwise or not)."""
    return Shape(kind, tuple(points), True, {"points": [list(p) for p in points], **extra})


def segment(p: tuple[float, float], q: tuple[float, float]) -> Shape:
    """Return a line segment from p to q."""
    return Shape("line", (p, q), False, {"points": [list(p), list(q)]})


def regular_points(center: tuple[float, float], radius: float, n: int, rotation: float) -> list[tuple[float, float]]:
    """Return the n vertices of a regular polygon, counter-clockwise from angle `rotation`."""
    cx, cy = center
    return [
        (cx + radius * math.cos(rotation + 2 * math.pi * k / n), cy + radius * math.sin(rotation + 2 * math.pi * k / n))
        for k in range(n)
    ]


def regular(kind: str, center: tuple[float, float], radius: float, n: int, rotation: float) -> Shape:
    """Return a regular polygon of circumradius `radius` (kind names which: square, regular hexagon, ...)."""
    return polygon(kind, regular_points(center, radius, n, rotation), center=list(center), radius=radius)


def star(center: tuple[float, float], outer: float, inner: float, points: int, rotation: float) -> Shape:
    """Return a pentagram (points=5) or hexagram (points=6) with the given outer and inner radii."""
    cx, cy = center
    ring = []
    for k in range(2 * points):
        r = outer if k % 2 == 0 else inner
        a = rotation + math.pi * k / points
        ring.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    kind = "pentagram" if points == 5 else "hexagram"
    tips = ring[0::2]
    return Shape(
        kind,
        tuple(ring),
        True,
        {"center": list(center), "outer_radius": outer, "inner_radius": inner, "rotation": rotation, "points": tips},
    )


def ellipse(center: tuple[float, float], a: float, b: float, rotation: float, samples: int = 96) -> Shape:
    """Return an ellipse with semi-axes a >= b (a circle when a == b), rotated by `rotation` radians."""
    t = np.linspace(0.0, 2 * math.pi, samples, endpoint=False)
    c, s = math.cos(rotation), math.sin(rotation)
    x = a * np.cos(t)
    y = b * np.sin(t)
    array = np.stack([center[0] + c * x - s * y, center[1] + s * x + c * y], axis=1)
    kind = "circle" if math.isclose(a, b) else "ellipse"
    params = {"center": list(center), "major_axis": a, "minor_axis": b, "rotation": rotation}
    return _with_array(Shape(kind, tuple(map(tuple, array.tolist())), True, params), array)


def _with_array(shape: Shape, array: np.ndarray) -> Shape:
    """Return `shape` with its `array` already set (the same numbers as its outline; saves re-reading the tuples)."""
    shape.__dict__["array"] = array  # what cached_property would store on first use
    return shape


def sector(center: tuple[float, float], radius: float, start: float, span: float) -> Shape:
    """Return a circular sector (two radii and an arc) from angle `start` over `span` radians."""
    n = max(8, int(48 * span / math.pi))
    arc = [
        (center[0] + radius * math.cos(start + span * k / n), center[1] + radius * math.sin(start + span * k / n))
        for k in range(n + 1)
    ]
    return Shape(
        "sector",
        ((center[0], center[1]), *arc),
        True,
        {"center": list(center), "radius": radius, "start_angle": start, "end_angle": start + span},
    )


def spiral(center: tuple[float, float], outer: float, turns: float, rotation: float) -> Shape:
    """Return an Archimedean spiral from its centre out to radius `outer` after `turns` turns."""
    n = max(40, int(40 * turns))
    theta = np.linspace(0.0, 2 * math.pi * turns, n)
    r = outer * theta / theta[-1]
    x = center[0] + r * np.cos(theta + rotation)
    y = center[1] + r * np.sin(theta + rotation)
    array = np.stack([x, y], axis=1)
    params = {"center": list(center), "outer_radius": outer, "turns": turns, "rotation": rotation}
    return _with_array(Shape("spiral", tuple(map(tuple, array.tolist())), False, params), array)


def interior_angles(points: list[tuple[float, float]] | tuple[tuple[float, float], ...]) -> list[float]:
    """Return the interior angles (radians) of a convex polygon given in order."""
    n = len(points)
    out = []
    for k in range(n):
        (px, py), (x, y), (qx, qy) = points[k - 1], points[k], points[(k + 1) % n]
        ux, uy, vx, vy = px - x, py - y, qx - x, qy - y
        cos = (ux * vx + uy * vy) / (math.hypot(ux, uy) * math.hypot(vx, vy))
        out.append(math.acos(min(1.0, max(-1.0, cos))))
    return out


def shoelace_area(points: list[tuple[float, float]] | tuple[tuple[float, float], ...]) -> float:
    """Return the area enclosed by a simple polygon given in order."""
    n = len(points)
    twice = 0.0
    for k in range(n):
        (x0, y0), (x1, y1) = points[k], points[(k + 1) % n]
        twice += x0 * y1 - x1 * y0
    return 0.5 * abs(twice)


def edge_lengths(points: list[tuple[float, float]] | tuple[tuple[float, float], ...]) -> list[float]:
    """Return the lengths of the edges of a closed polygon."""
    n = len(points)
    return [math.dist(points[k], points[(k + 1) % n]) for k in range(n)]
