"""Small 2-D vector helpers on (x, y) tuples, shared by geometry, optics and physics.

Rotation and the two reflections are mcot.core.geometry's (the canvas's own), named here as the tools call them.
"""

from __future__ import annotations

import math

from mcot.core import geometry

Vec = tuple[float, float]

EPS = 1e-9


def v(p: list[float] | tuple[float, float]) -> Vec:
    """Return the point as a float tuple."""
    return (float(p[0]), float(p[1]))


def add(a: Vec, b: Vec) -> Vec:
    """Return a + b."""
    return (a[0] + b[0], a[1] + b[1])


def sub(a: Vec, b: Vec) -> Vec:
    """Return a - b."""
    return (a[0] - b[0], a[1] - b[1])


def mul(a: Vec, k: float) -> Vec:
    """Return a scaled by k."""
    return (a[0] * k, a[1] * k)


def dot(a: Vec, b: Vec) -> float:
    """Return the dot product."""
    return a[0] * b[0] + a[1] * b[1]


def cross(a: Vec, b: Vec) -> float:
    """Return the z component of the cross product a × b."""
    return a[0] * b[1] - a[1] * b[0]


def norm(a: Vec) -> float:
    """Return the length of a."""
    return math.hypot(a[0], a[1])


def unit(a: Vec) -> Vec:
    """Return a scaled to length 1 (raise ValueError for a zero vector)."""
    n = norm(a)
    if n < EPS:
        raise ValueError("zero-length direction")
    return (a[0] / n, a[1] / n)


def reflect(d: Vec, n: Vec) -> Vec:
    """Return direction d mirrored about a surface with unit normal n: d - 2 (d·n) n."""
    return geometry.reflect_vector(d, n)


def rotate(p: Vec, angle_deg: float, center: Vec = (0.0, 0.0)) -> Vec:
    """Return p rotated by angle_deg about center (positive = counter-clockwise on screen, as canvas rotate)."""
    return geometry.rotate_point(p, angle_deg, center)


def mirror_point(p: Vec, a: Vec, b: Vec) -> Vec:
    """Return p reflected in the line through a and b (raise ValueError when a and b coincide)."""
    return geometry.reflect_point(p, a, b)


def heading(d: Vec) -> float:
    """Return the direction of d in degrees counter-clockwise on screen from +x (east): atan2(-dy, dx)."""
    return math.degrees(math.atan2(-d[1], d[0]))


def angle_between(a: Vec, b: Vec) -> float:
    """Return the unsigned angle between two vectors in degrees, in [0, 180]."""
    c = dot(a, b) / (norm(a) * norm(b))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def ray_segment(o: Vec, d: Vec, a: Vec, b: Vec) -> tuple[float, float] | None:
    """Return (t, u) where o + t d meets a + u (b - a), or None when parallel."""
    e = sub(b, a)
    den = cross(d, e)
    if abs(den) < 1e-12 * max(1.0, norm(d) * norm(e)):
        return None
    ao = sub(a, o)
    return cross(ao, e) / den, cross(ao, d) / den


def ray_box_exit(o: Vec, d: Vec, box: tuple[float, float, float, float]) -> tuple[float, Vec]:
    """Return (t, outward normal) where the ray from o (inside the box) along d leaves the box."""
    x0, y0, x1, y1 = box
    best = (math.inf, (0.0, 0.0))
    if d[0] > EPS:
        best = min(best, ((x1 - o[0]) / d[0], (1.0, 0.0)))
    if d[0] < -EPS:
        best = min(best, ((x0 - o[0]) / d[0], (-1.0, 0.0)))
    if d[1] > EPS:
        best = min(best, ((y1 - o[1]) / d[1], (0.0, 1.0)))
    if d[1] < -EPS:
        best = min(best, ((y0 - o[1]) / d[1], (0.0, -1.0)))
    return max(best[0], 0.0), best[1]
