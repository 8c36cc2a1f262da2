"""Plane geometry of drawn paths for the verifiers: distances, sampling, crossings, reflection and refraction.

Points are (x, y) float tuples in canvas pixels (y down); a path is a list of them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from mcot.core.geometry import reflect_vector

Point = tuple[float, float]
Path = list[Point]


def pt(value: Any) -> Point:
    """Return the first two entries of ``value`` as a float point."""
    return (float(value[0]), float(value[1]))


def fmt(p: Point) -> str:
    """Return a point as a violation message writes it: ``(x, y)`` rounded to pixels."""
    return f"({p[0]:.0f}, {p[1]:.0f})"


def dist(a: Point, b: Point) -> float:
    """Return the distance between two points."""
    return math.hypot(a[0] - b[0], a[1] - b[1])


def sub(a: Point, b: Point) -> Point:
    """Return a - b."""
    return (a[0] - b[0], a[1] - b[1])


def unit(v: Point) -> Point:
    """Return ``v`` scaled to length 1 (a zero vector is returned unchanged)."""
    length = math.hypot(*v) or 1.0
    return (v[0] / length, v[1] / length)


def point_segment_distance(p: Point, a: Point, b: Point) -> float:
    """Return the distance from ``p`` to the segment a–b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return dist(p, a)
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return dist(p, (a[0] + t * dx, a[1] + t * dy))


def point_polyline_distance(p: Point, line: Sequence[Point]) -> float:
    """Return the distance from ``p`` to the polyline ``line``."""
    if len(line) == 1:
        return dist(p, line[0])
    return min(point_segment_distance(p, line[i], line[i + 1]) for i in range(len(line) - 1))


def angle_between(u: Point, v: Point) -> float:
    """Return the angle between two direction vectors in degrees (180 for a zero vector)."""
    nu, nv = math.hypot(*u), math.hypot(*v)
    if nu == 0 or nv == 0:
        return 180.0
    cos = max(-1.0, min(1.0, (u[0] * v[0] + u[1] * v[1]) / (nu * nv)))
    return math.degrees(math.acos(cos))


def simplify(points: Path, min_turn_deg: float = 1.0) -> Path:
    """Return ``points`` without repeated points and without vertices where the path does not turn."""
    cleaned: Path = []
    for point in points:
        if not cleaned or dist(cleaned[-1], point) > 0.5:
            cleaned.append(point)
    index = 1
    while index < len(cleaned) - 1:
        turn = angle_between(sub(cleaned[index], cleaned[index - 1]), sub(cleaned[index + 1], cleaned[index]))
        if turn < min_turn_deg:
            del cleaned[index]
        else:
            index += 1
    return cleaned


def samples(points: Path, step: float) -> list[Point]:
    """Return points along a polyline at most ``step`` apart (vertices included)."""
    out: list[Point] = [points[0]]
    for a, b in itertools.pairwise(points):
        count = max(1, math.ceil(dist(a, b) / step))
        out += [(a[0] + (b[0] - a[0]) * k / count, a[1] + (b[1] - a[1]) * k / count) for k in range(1, count + 1)]
    return out


def segment_intersection(p1: Point, p2: Point, q1: Point, q2: Point) -> Point | None:
    """Return where the segments p1–p2 and q1–q2 cross, or None."""
    r, s = sub(p2, p1), sub(q2, q1)
    denominator = r[0] * s[1] - r[1] * s[0]
    if abs(denominator) < 1e-12:
        return None
    qp = sub(q1, p1)
    t = (qp[0] * s[1] - qp[1] * s[0]) / denominator
    u = (qp[0] * r[1] - qp[1] * r[0]) / denominator
    if 0 <= t <= 1 and 0 <= u <= 1:
        return (p1[0] + t * r[0], p1[1] + t * r[1])
    return None


def inside(p: Point, polygon: Sequence[Point]) -> bool:
    """Return whether ``p`` lies inside ``polygon`` (even-odd rule)."""
    result = False
    for i in range(len(polygon)):
        a, b = polygon[i], polygon[(i + 1) % len(polygon)]
        if (a[1] > p[1]) != (b[1] > p[1]):
            x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if p[0] < x:
                result = not result
    return result


def line_normal(a: Point, b: Point) -> Point:
    """Return a unit normal of the line through a and b."""
    return unit((-(b[1] - a[1]), b[0] - a[0]))


def reflect_direction(d: Point, a: Point, b: Point) -> Point:
    """Return direction ``d`` reflected off the line through a and b."""
    return reflect_vector(d, line_normal(a, b))


def refract_direction(d: Point, a: Point, b: Point, n1: float, n2: float) -> Point | None:
    """Return the refracted direction of ``d`` crossing the line a–b from index n1 into n2 (None on TIR)."""
    d = unit(d)
    n = line_normal(a, b)
    cos_i = -(d[0] * n[0] + d[1] * n[1])
    if cos_i < 0:
        n, cos_i = (-n[0], -n[1]), -cos_i
    ratio = n1 / n2
    k = 1 - ratio * ratio * (1 - cos_i * cos_i)
    if k < 0:
        return None
    factor = ratio * cos_i - math.sqrt(k)
    return (ratio * d[0] + factor * n[0], ratio * d[1] + factor * n[1])


def polyline_length(points: Sequence[Point]) -> float:
    """Return the length of a polyline."""
    return sum(dist(a, b) for a, b in itertools.pairwise(points))


def prefix(points: Path, length: float) -> Path:
    """Return the start of polyline ``points`` up to arc length ``length``."""
    out: Path = [points[0]]
    walked = 0.0
    for a, b in itertools.pairwise(points):
        step = dist(a, b)
        if walked + step >= length:
            t = (length - walked) / step if step else 0.0
            out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
            return out
        out.append(b)
        walked += step
    return out
