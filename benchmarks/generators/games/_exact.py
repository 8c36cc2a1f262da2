"""Exact (rational) segment geometry for the counting tasks: intersections, collinearity, point on segment."""

from __future__ import annotations

from fractions import Fraction

Point = tuple[Fraction, Fraction]
Segment = tuple[Point, Point]


def point(x: float, y: float) -> Point:
    """Return an exact point from integer (or exactly representable) coordinates."""
    return (Fraction(x), Fraction(y))


def orient(a: Point, b: Point, c: Point) -> Fraction:
    """Return twice the signed area of triangle abc (0 exactly when collinear)."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def on_segment(p: Point, a: Point, b: Point) -> bool:
    """Return True when p lies on the closed segment ab."""
    return (
        orient(a, b, p) == 0
        and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
        and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])
    )


def intersection(s: Segment, t: Segment) -> Point | None:
    """Return the single point where closed segments s and t meet, or None (also None when they overlap)."""
    (a, b), (c, d) = s, t
    r = (b[0] - a[0], b[1] - a[1])
    q = (d[0] - c[0], d[1] - c[1])
    denom = r[0] * q[1] - r[1] * q[0]
    if denom == 0:
        return None
    ac = (c[0] - a[0], c[1] - a[1])
    u = (ac[0] * q[1] - ac[1] * q[0]) / denom
    v = (ac[0] * r[1] - ac[1] * r[0]) / denom
    if 0 <= u <= 1 and 0 <= v <= 1:
        return (a[0] + u * r[0], a[1] + u * r[1])
    return None


def as_floats(p: Point) -> list[float]:
    """Return an exact point as [x, y] floats rounded to 4 decimals."""
    return [round(float(p[0]), 4), round(float(p[1]), 4)]
