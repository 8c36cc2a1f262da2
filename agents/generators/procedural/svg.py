"""A small SVG writer for the schematic scenes: fixed-precision coordinates, so a scene gives the same bytes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from xml.sax.saxutils import escape

FONT = "DejaVu Sans"
"""Font family of the scene labels (the canvas uses the same one)."""

Point = tuple[float, float]


def num(v: float) -> str:
    """Return a coordinate with two decimals and no trailing zeros ("-0" written as "0")."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _pts(points: Sequence[Point]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in points)


class Svg:
    """An SVG document being written, element by element, in drawing order."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._parts: list[str] = []

    def document(self) -> str:
        """Return the whole SVG document."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}">'
        )
        return head + "".join(self._parts) + "</svg>"

    def rect(self, x: float, y: float, w: float, h: float, fill: str, *, stroke: str | None = None) -> None:
        """Add an axis-aligned rectangle."""
        line = f' stroke="{stroke}" stroke-width="1.5"' if stroke else ""
        self._parts.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" fill="{fill}"{line}/>')

    def line(
        self, a: Point, b: Point, color: str, width: float = 2.0, *, dash: str | None = None, cap: str = "round"
    ) -> None:
        """Add a segment from ``a`` to ``b`` (dashed when ``dash`` is an SVG dash array)."""
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self._parts.append(
            f'<line x1="{num(a[0])}" y1="{num(a[1])}" x2="{num(b[0])}" y2="{num(b[1])}" stroke="{color}" '
            f'stroke-width="{num(width)}" stroke-linecap="{cap}"{extra}/>'
        )

    def polyline(self, points: Sequence[Point], color: str, width: float = 2.0, *, dash: str | None = None) -> None:
        """Add an open polyline."""
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self._parts.append(
            f'<polyline points="{_pts(points)}" fill="none" stroke="{color}" stroke-width="{num(width)}" '
            f'stroke-linejoin="round" stroke-linecap="butt"{extra}/>'
        )

    def polygon(self, points: Sequence[Point], fill: str, *, stroke: str | None = None, width: float = 1.5) -> None:
        """Add a filled polygon (outlined when ``stroke`` is given)."""
        line = f' stroke="{stroke}" stroke-width="{num(width)}" stroke-linejoin="round"' if stroke else ""
        self._parts.append(f'<polygon points="{_pts(points)}" fill="{fill}"{line}/>')

    def circle(
        self, c: Point, r: float, fill: str, *, stroke: str | None = None, width: float = 1.5, dash: str | None = None
    ) -> None:
        """Add a circle."""
        line = f' stroke="{stroke}" stroke-width="{num(width)}"' if stroke else ""
        if dash:
            line += f' stroke-dasharray="{dash}"'
        self._parts.append(f'<circle cx="{num(c[0])}" cy="{num(c[1])}" r="{num(r)}" fill="{fill}"{line}/>')

    def ellipse(
        self, c: Point, rx: float, ry: float, fill: str, *, stroke: str | None = None, dash: str | None = None
    ) -> None:
        """Add an axis-aligned ellipse."""
        line = f' stroke="{stroke}" stroke-width="1.5"' if stroke else ""
        if dash:
            line += f' stroke-dasharray="{dash}"'
        self._parts.append(
            f'<ellipse cx="{num(c[0])}" cy="{num(c[1])}" rx="{num(rx)}" ry="{num(ry)}" fill="{fill}"{line}/>'
        )

    def arc(self, a: Point, b: Point, radius: float, color: str, width: float, *, sweep: bool) -> None:
        """Add a circular arc of ``radius`` from ``a`` to ``b`` (the short way; ``sweep`` picks the side)."""
        self._parts.append(
            f'<path d="M {num(a[0])} {num(a[1])} A {num(radius)} {num(radius)} 0 0 {int(sweep)} '
            f'{num(b[0])} {num(b[1])}" fill="none" stroke="{color}" stroke-width="{num(width)}" stroke-linecap="butt"/>'
        )

    def text(self, at: Point, text: str, *, size: float = 13.0, color: str = "#222222", anchor: str = "start") -> None:
        """Add a label with its baseline starting at ``at`` (``anchor``: start, middle or end)."""
        self._parts.append(
            f'<text x="{num(at[0])}" y="{num(at[1])}" font-family="{FONT}" font-size="{num(size)}" fill="{color}" '
            f'text-anchor="{anchor}">{escape(text)}</text>'
        )

    def arrow(
        self, tail: Point, tip: Point, color: str, width: float = 4.0, *, head: float = 0.0, dash: str | None = None
    ) -> None:
        """Add an arrow from ``tail`` to ``tip``: a shaft stopping at the head's base and a filled head."""
        length = head or max(12.0, 3.5 * width)
        dx, dy = tip[0] - tail[0], tip[1] - tail[1]
        norm = math.hypot(dx, dy)
        if norm == 0:
            return
        ux, uy = dx / norm, dy / norm
        keep = max(norm - length, 0.0)
        base = (tail[0] + ux * keep, tail[1] + uy * keep)
        self.line(tail, base, color, width, dash=dash, cap="butt")
        half = length * 0.5
        self.polygon(
            [tip, (base[0] - uy * half, base[1] + ux * half), (base[0] + uy * half, base[1] - ux * half)], color
        )

    def ray(self, points: Sequence[Point], color: str, width: float = 2.0, *, dash: str | None = None) -> None:
        """Add a light ray along ``points`` with a small arrowhead halfway along its first segment."""
        self.polyline(points, color, width, dash=dash)
        (x0, y0), (x1, y1) = points[0], points[1]
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy)
        if norm < 20:
            return
        ux, uy = dx / norm, dy / norm
        mx, my = x0 + dx * 0.5, y0 + dy * 0.5
        tip = (mx + ux * 5, my + uy * 5)
        back = (mx - ux * 5, my - uy * 5)
        self.polygon([tip, (back[0] - uy * 4, back[1] + ux * 4), (back[0] + uy * 4, back[1] - ux * 4)], color)
