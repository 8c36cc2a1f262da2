"""Sampling one free shape of a given kind under the paper's rules (unit square, y up)."""

from __future__ import annotations

import math

import numpy as np
from mcot.benchmarks.generators.gepbench import shapes as sh
from mcot.benchmarks.generators.gepbench.shapes import Shape

MARGIN = 0.02  # every outline point stays this far inside the canvas
MIN_AREA = 0.02
MIN_EDGE = 0.05
MIN_ANGLE, MAX_ANGLE = 0.15 * math.pi, 0.85 * math.pi
LINE_LENGTH = (0.2, 0.8)
STAR_OUTER = (0.15, 0.4)
STAR_INNER = (0.4, 0.7)
SECTOR_SPAN = (math.pi / 12, 5 * math.pi / 12)
MIN_ASPECT_DIFF = 0.2  # rectangles' sides and ellipses' axes differ by at least 20 %


def inside_canvas(shape: Shape) -> bool:
    """Return True when every outline point lies at least MARGIN inside the unit square."""
    (x0, y0), (x1, y1) = shape.box
    return min(x0, y0) >= MARGIN and max(x1, y1) <= 1 - MARGIN


def polygon_rules_hold(points: list[tuple[float, float]] | tuple[tuple[float, float], ...]) -> bool:
    """Return True when a polygon obeys the paper's area, edge and interior-angle rules."""
    if sh.shoelace_area(points) <= MIN_AREA or min(sh.edge_lengths(points)) <= MIN_EDGE:
        return False
    angles = sh.interior_angles(points)
    return all(MIN_ANGLE <= a <= MAX_ANGLE for a in angles) and abs(sum(angles) - (len(points) - 2) * math.pi) < 1e-6


def _center(rng: np.random.Generator, reach: float) -> tuple[float, float]:
    lo, hi = MARGIN + reach, 1 - MARGIN - reach
    if lo >= hi:
        return (0.5, 0.5)
    return (float(rng.uniform(lo, hi)), float(rng.uniform(lo, hi)))


def _irregular(rng: np.random.Generator, n: int, scale: float, kind: str) -> Shape | None:
    radius = float(rng.uniform(0.12, 0.3)) * scale
    center = _center(rng, radius)
    for _ in range(12):
        angles = np.sort(rng.uniform(0, 2 * math.pi, n))
        radii = radius * rng.uniform(0.7, 1.0, n)
        pts = [(center[0] + r * math.cos(a), center[1] + r * math.sin(a)) for a, r in zip(angles, radii, strict=True)]
        if polygon_rules_hold(pts) and not _looks_special(pts):
            return sh.polygon(kind, pts)
    return None


def sample_shape(kind: str, rng: np.random.Generator, scale: float = 1.0) -> Shape | None:
    """Return a random shape of `kind` that obeys the paper's rules, or None when this draw failed.

    `scale` (0, 1] shrinks the size range, which constructive placement uses when a figure gets crowded.
    """
    rot = float(rng.uniform(0, 2 * math.pi))
    shape: Shape | None
    if kind in ("triangle", "quadrilateral", "pentagon", "hexagon"):
        n = {"triangle": 3, "quadrilateral": 4, "pentagon": 5, "hexagon": 6}[kind]
        shape = _irregular(rng, n, scale, kind)
    elif kind in ("equilateral triangle", "square", "regular pentagon", "regular hexagon"):
        n = {"equilateral triangle": 3, "square": 4, "regular pentagon": 5, "regular hexagon": 6}[kind]
        lo = math.sqrt(MIN_AREA / (0.5 * n * math.sin(2 * math.pi / n))) * 1.05
        radius = max(lo, float(rng.uniform(0.1, 0.28)) * scale)
        shape = sh.regular(kind, _center(rng, radius), radius, n, rot)
    elif kind == "rectangle":
        w = float(rng.uniform(0.15, 0.45)) * scale
        ratio = float(rng.uniform(0.35, 1 - MIN_ASPECT_DIFF))
        h = max(w * ratio, MIN_EDGE * 1.2)
        if w * h <= MIN_AREA or min(w, h) / max(w, h) > 1 - MIN_ASPECT_DIFF:
            return None
        shape = rectangle(_center(rng, math.hypot(w, h) / 2), w, h, rot)
    elif kind in ("pentagram", "hexagram"):
        outer = max(STAR_OUTER[0], float(rng.uniform(*STAR_OUTER)) * scale)
        inner = outer * float(rng.uniform(*STAR_INNER))
        shape = sh.star(_center(rng, outer), outer, inner, 5 if kind == "pentagram" else 6, rot)
    elif kind == "circle":
        r = max(0.06, float(rng.uniform(0.06, 0.25)) * scale)
        shape = sh.ellipse(_center(rng, r), r, r, 0.0)
    elif kind == "ellipse":
        a = max(0.08, float(rng.uniform(0.1, 0.3)) * scale)
        b = a * float(rng.uniform(0.35, 1 - MIN_ASPECT_DIFF))
        shape = sh.ellipse(_center(rng, a), a, b, rot)
    elif kind == "sector":
        r = max(0.15, float(rng.uniform(0.15, 0.35)) * scale)
        span = float(rng.uniform(*SECTOR_SPAN))
        shape = sh.sector(_center(rng, r), r, rot, span)
    elif kind == "line":
        length = max(LINE_LENGTH[0], float(rng.uniform(*LINE_LENGTH)) * scale)
        c = _center(rng, length / 2)
        dx, dy = 0.5 * length * math.cos(rot), 0.5 * length * math.sin(rot)
        shape = sh.segment((c[0] - dx, c[1] - dy), (c[0] + dx, c[1] + dy))
    elif kind == "spiral":
        outer = max(0.08, float(rng.uniform(0.08, 0.2)) * scale)
        shape = sh.spiral(_center(rng, outer), outer, float(rng.uniform(1.5, 3.0)), rot)
    else:
        raise ValueError(f"unknown shape kind {kind!r}; known kinds: {', '.join(sh.KINDS)}")
    if shape is None or not inside_canvas(shape):
        return None
    return shape


def rectangle(center: tuple[float, float], w: float, h: float, rotation: float) -> Shape:
    """Return a rectangle (a square when w == h) of width w and height h, rotated about its centre."""
    c, s = math.cos(rotation), math.sin(rotation)
    corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    pts = [(center[0] + c * x - s * y, center[1] + s * x + c * y) for x, y in corners]
    kind = "square" if math.isclose(w, h) else "rectangle"
    return sh.polygon(kind, pts, center=list(center), width=w, height=h, rotation=rotation)


def _looks_special(points: list[tuple[float, float]]) -> bool:
    """True when an irregular polygon could pass for a regular one (or a quadrilateral for a rectangle)."""
    n = len(points)
    angles = sh.interior_angles(points)
    regular_angle = (n - 2) * math.pi / n
    if all(abs(a - regular_angle) < 0.15 for a in angles):
        edges = sh.edge_lengths(points)
        if n == 4 or min(edges) / max(edges) > 0.8:
            return True
    return False
