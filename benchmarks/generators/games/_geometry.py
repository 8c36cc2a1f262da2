"""Closed-form plane geometry for the answer keys: vectors, ray-segment hits, reflection and Snell's law.

Pure functions over (x, y) float tuples; y points down as in image pixels. Independent of tools/ on purpose;
rotation and reflection are mcot.core.geometry's, the ones the canvas and the tools use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mcot.core import geometry

Vec = tuple[float, float]


def sub(a: Sequence[float], b: Sequence[float]) -> Vec:
    """Return a - b."""
    return (a[0] - b[0], a[1] - b[1])


def add(a: Sequence[float], b: Sequence[float]) -> Vec:
    """Return a + b."""
    return (a[0] + b[0], a[1] + b[1])


def scale(a: Sequence[float], k: float) -> Vec:
    """Return k * a."""
    return (a[0] * k, a[1] * k)


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """Return the dot product of a and b."""
    return a[0] * b[0] + a[1] * b[1]


def cross(a: Sequence[float], b: Sequence[float]) -> float:
    """Return the z component of a x b."""
    return a[0] * b[1] - a[1] * b[0]


def length(a: Sequence[float]) -> float:
    """Return the Euclidean length of a."""
    return math.hypot(a[0], a[1])


def unit(a: Sequence[float]) -> Vec:
    """Return a scaled to length 1."""
    n = length(a)
    return (a[0] / n, a[1] / n)


def rotate(a: Sequence[float], degrees: float) -> Vec:
    """Return a rotated by `degrees` (positive turns +x towards +y, i.e. clockwise on screen)."""
    return geometry.rotate_vector(a, -degrees)


def ray_segment(origin: Vec, direction: Vec, a: Sequence[float], b: Sequence[float]) -> tuple[float, float] | None:
    """Return (t, u) where origin + t*direction meets a + u*(b - a) with t > 0 and 0 <= u <= 1, else None."""
    edge = sub(b, a)
    denom = cross(direction, edge)
    if abs(denom) < 1e-12:
        return None
    rel = sub(a, origin)
    t = cross(rel, edge) / denom
    u = cross(rel, direction) / denom
    if t <= 1e-9 or u < 0.0 or u > 1.0:
        return None
    return t, u


def point_segment_distance(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    """Return the distance from point p to the segment ab."""
    ab = sub(b, a)
    denom = dot(ab, ab)
    u = 0.0 if denom == 0 else max(0.0, min(1.0, dot(sub(p, a), ab) / denom))
    return length(sub(p, add(a, scale(ab, u))))


def segments_distance(a: Sequence[float], b: Sequence[float], c: Sequence[float], d: Sequence[float]) -> float:
    """Return the distance between segments ab and cd (0 when they cross)."""
    d1, d2 = cross(sub(b, a), sub(c, a)), cross(sub(b, a), sub(d, a))
    d3, d4 = cross(sub(d, c), sub(a, c)), cross(sub(d, c), sub(b, c))
    if d1 * d2 < 0 and d3 * d4 < 0:
        return 0.0
    return min(
        point_segment_distance(a, c, d),
        point_segment_distance(b, c, d),
        point_segment_distance(c, a, b),
        point_segment_distance(d, a, b),
    )


def reflect(direction: Vec, normal: Vec) -> Vec:
    """Return `direction` mirrored in a surface with unit `normal` (either orientation)."""
    return geometry.reflect_vector(direction, normal)


def refract(direction: Vec, normal: Vec, n1: float, n2: float) -> Vec | None:
    """Return the unit refracted direction by Snell's law, or None on total internal reflection.

    `direction` is a unit vector, `normal` a unit normal of the surface (either orientation).
    """
    if dot(direction, normal) > 0:
        normal = (-normal[0], -normal[1])
    cos_i = -dot(direction, normal)
    eta = n1 / n2
    k = 1.0 - eta * eta * (1.0 - cos_i * cos_i)
    if k < 0.0:
        return None
    f = eta * cos_i - math.sqrt(k)
    return unit((eta * direction[0] + f * normal[0], eta * direction[1] + f * normal[1]))


def incidence_degrees(direction: Vec, normal: Vec) -> float:
    """Return the angle between `direction` and the surface normal, in degrees (0 = head-on, 90 = grazing)."""
    c = abs(dot(unit(direction), unit(normal)))
    return math.degrees(math.acos(min(1.0, c)))


def normal_of(a: Sequence[float], b: Sequence[float]) -> Vec:
    """Return a unit normal of the segment ab."""
    e = unit(sub(b, a))
    return (-e[1], e[0])
