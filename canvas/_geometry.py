"""Affine transforms of the plane in canvas pixel coordinates (x right, y down)."""

from __future__ import annotations

import math
from dataclasses import dataclass

_NDIGITS = 9
"""Transformed coordinates are rounded to this many decimals so that 90-degree turns land on exact values."""


@dataclass(frozen=True)
class Affine:
    """The map (x, y) -> (a*x + c*y + e, b*x + d*y + f), the same layout as a cairo matrix."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0

    def apply(self, p: list[float]) -> list[float]:
        """Return the image of point ``p`` rounded to 9 decimals."""
        x, y = p
        return [_clean(self.a * x + self.c * y + self.e), _clean(self.b * x + self.d * y + self.f)]

    def then(self, other: Affine) -> Affine:
        """Return the transform that applies ``self`` first and ``other`` second."""
        o = other
        return Affine(
            a=o.a * self.a + o.c * self.b,
            b=o.b * self.a + o.d * self.b,
            c=o.a * self.c + o.c * self.d,
            d=o.b * self.c + o.d * self.d,
            e=o.a * self.e + o.c * self.f + o.e,
            f=o.b * self.e + o.d * self.f + o.f,
        )

    def as_list(self) -> list[float]:
        """Return ``[a, b, c, d, e, f]`` rounded to 9 decimals."""
        return [_clean(v) for v in (self.a, self.b, self.c, self.d, self.e, self.f)]

    @property
    def scale_factor(self) -> float:
        """Return the factor by which the transform scales lengths (sqrt of |det|)."""
        return math.sqrt(abs(self.a * self.d - self.b * self.c))


def translation(dx: float, dy: float) -> Affine:
    """Return the translation by (dx, dy)."""
    return Affine(e=dx, f=dy)


def rotation(angle_deg: float, center: list[float]) -> Affine:
    """Return the rotation by ``angle_deg`` degrees counter-clockwise as seen on screen about ``center``.

    The canvas y axis points down, so a counter-clockwise turn on screen takes (1, 0) to (0, -1).
    """
    t = math.radians(angle_deg)
    cos_t, sin_t = _snap(math.cos(t)), _snap(math.sin(t))
    cx, cy = center
    # (x, y) -> (cx + cos*dx + sin*dy, cy - sin*dx + cos*dy)
    return Affine(a=cos_t, b=-sin_t, c=sin_t, d=cos_t, e=cx - cos_t * cx - sin_t * cy, f=cy + sin_t * cx - cos_t * cy)


def reflection(p1: list[float], p2: list[float]) -> Affine:
    """Return the reflection across the line through ``p1`` and ``p2`` (the points must differ)."""
    ux, uy = p2[0] - p1[0], p2[1] - p1[1]
    norm = math.hypot(ux, uy)
    ux, uy = ux / norm, uy / norm
    a, b = ux * ux - uy * uy, 2 * ux * uy
    c, d = 2 * ux * uy, uy * uy - ux * ux
    x1, y1 = p1
    return Affine(a=a, b=b, c=c, d=d, e=x1 - a * x1 - c * y1, f=y1 - b * x1 - d * y1)


def scaling(factor: float, center: list[float]) -> Affine:
    """Return the uniform scaling by ``factor`` about ``center``."""
    cx, cy = center
    return Affine(a=factor, d=factor, e=cx - factor * cx, f=cy - factor * cy)


def _snap(v: float) -> float:
    """Return ``v`` with values within 1e-12 of -1, 0 or 1 snapped to them (exact right angles)."""
    for target in (-1.0, 0.0, 1.0):
        if abs(v - target) < 1e-12:
            return target
    return v


def _clean(v: float) -> float:
    """Return ``v`` rounded to 9 decimals, with negative zero made positive."""
    r = round(v, _NDIGITS)
    return 0.0 if r == 0 else r
