"""Plane geometry in image pixel coordinates (x right, y down): affine maps, rotation, reflection, scaling.

Pure functions on ``(x, y)`` pairs, on the ground floor: the canvas, the tools, the generators and the trace
verifiers all use these, so that "rotate 30° about c" or "mirror in the line ab" means one thing everywhere.
Angles are degrees counter-clockwise *as seen on screen*: the y axis points down, so ``(1, 0)`` turned by 90°
is ``(0, -1)``. Two reflections are different operations and both live here: a point mirrored in a line
(``reflect_point``, ``reflection``) and a direction bounced off a surface with a given normal
(``reflect_vector``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Vec = tuple[float, float]
"""A point or a direction in pixels."""

_SNAP = 1e-12
"""cos and sin within this of -1, 0 or 1 are taken as exact, so that right angles map onto exact values."""


@dataclass(frozen=True)
class Affine:
    """The map (x, y) -> (a*x + c*y + e, b*x + d*y + f): the layout of a cairo matrix."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0

    def apply(self, p: Sequence[float]) -> Vec:
        """Return the image of point ``p``."""
        x, y = p[0], p[1]
        return (self.a * x + self.c * y + self.e, self.b * x + self.d * y + self.f)

    def then(self, other: Affine) -> Affine:
        """Return the map that applies ``self`` first and ``other`` second."""
        o = other
        return Affine(
            a=o.a * self.a + o.c * self.b,
            b=o.b * self.a + o.d * self.b,
            c=o.a * self.c + o.c * self.d,
            d=o.b * self.c + o.d * self.d,
            e=o.a * self.e + o.c * self.f + o.e,
            f=o.b * self.e + o.d * self.f + o.f,
        )

    def as_tuple(self) -> tuple[float, float, float, float, float, float]:
        """Return ``(a, b, c, d, e, f)``."""
        return (self.a, self.b, self.c, self.d, self.e, self.f)

    @property
    def scale_factor(self) -> float:
        """Return the factor by which the map scales lengths (the square root of |det|)."""
        return math.sqrt(abs(self.a * self.d - self.b * self.c))


IDENTITY = Affine()
"""The map that moves nothing."""


def turn(degrees: float) -> Vec:
    """Return (cos, sin) of a turn by ``degrees``, with values within 1e-12 of -1, 0 or 1 made exact."""
    t = math.radians(degrees)
    return _snap(math.cos(t)), _snap(math.sin(t))


def translation(dx: float, dy: float) -> Affine:
    """Return the translation by (dx, dy)."""
    return Affine(e=dx, f=dy)


def rotation(degrees: float, center: Sequence[float] = (0.0, 0.0)) -> Affine:
    """Return the rotation by ``degrees`` counter-clockwise on screen about ``center``."""
    cos_t, sin_t = turn(degrees)
    cx, cy = center[0], center[1]
    # (x, y) -> (cx + cos*dx + sin*dy, cy - sin*dx + cos*dy)
    return Affine(a=cos_t, b=-sin_t, c=sin_t, d=cos_t, e=cx - cos_t * cx - sin_t * cy, f=cy + sin_t * cx - cos_t * cy)


def reflection(p1: Sequence[float], p2: Sequence[float]) -> Affine:
    """Return the reflection in the line through ``p1`` and ``p2``; raise ValueError when they coincide."""
    ux, uy = p2[0] - p1[0], p2[1] - p1[1]
    norm = math.hypot(ux, uy)
    if norm == 0:
        raise ValueError("a mirror line needs two distinct points")
    ux, uy = ux / norm, uy / norm
    a, b = ux * ux - uy * uy, 2 * ux * uy
    c, d = 2 * ux * uy, uy * uy - ux * ux
    x1, y1 = p1[0], p1[1]
    return Affine(a=a, b=b, c=c, d=d, e=x1 - a * x1 - c * y1, f=y1 - b * x1 - d * y1)


def scaling(factor: float, center: Sequence[float] = (0.0, 0.0)) -> Affine:
    """Return the uniform scaling by ``factor`` about ``center``."""
    cx, cy = center[0], center[1]
    return Affine(a=factor, d=factor, e=cx - factor * cx, f=cy - factor * cy)


def rotate_point(p: Sequence[float], degrees: float, center: Sequence[float] = (0.0, 0.0)) -> Vec:
    """Return ``p`` rotated by ``degrees`` counter-clockwise on screen about ``center``."""
    return rotation(degrees, center).apply(p)


def rotate_vector(v: Sequence[float], degrees: float) -> Vec:
    """Return the direction ``v`` turned by ``degrees`` counter-clockwise on screen (a rotation about the origin)."""
    cos_t, sin_t = turn(degrees)
    return (cos_t * v[0] + sin_t * v[1], cos_t * v[1] - sin_t * v[0])


def reflect_point(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> Vec:
    """Return ``p`` mirrored in the line through ``a`` and ``b``; raise ValueError when they coincide."""
    return reflection(a, b).apply(p)


def reflect_vector(d: Sequence[float], normal: Sequence[float]) -> Vec:
    """Return the direction ``d`` bounced off a surface with unit ``normal`` (either side): d - 2 (d·n) n."""
    k = 2.0 * (d[0] * normal[0] + d[1] * normal[1])
    return (d[0] - k * normal[0], d[1] - k * normal[1])


def reflect_points(points: Any, point: Any, direction: Any) -> Any:
    """Return the rows of ``points`` mirrored in the line through ``point`` with unit ``direction`` (numpy arrays).

    The vectorised form of ``reflect_point`` for a whole polygon at once: it takes arrays (points as rows) and
    works through their operators, so this module needs no numpy. Its float rounding is numpy's, not the scalar
    form's, which is why a generator that must stay byte-identical for a seed keeps to one of the two.
    """
    rel = points - point
    along = rel @ direction
    return point + 2.0 * along[:, None] * direction - rel


def _snap(value: float) -> float:
    for target in (-1.0, 0.0, 1.0):
        if abs(value - target) < _SNAP:
            return target
    return value
