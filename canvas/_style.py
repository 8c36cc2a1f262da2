"""How elements look, in numbers the cairo renderer and the SVG writer share: fonts, halos, dashes, arrowheads.

Kept apart from the renderer so that the SVG writer (and the op table) load without cairo.
"""

from __future__ import annotations

FONT_FACE = "DejaVu Sans"
"""Font used for labels, text and grid labels (the toy cairo font API through fontconfig)."""

HALO = (1.0, 1.0, 1.0)
"""Colour of the outline drawn around text and markers so they stay legible on any image."""


def dash(width: float) -> tuple[float, float]:
    """Return (dash, gap) lengths of a dashed stroke of ``width``."""
    return max(6.0, 4.0 * width), max(4.0, 2.5 * width)


def arrow_head(width: float) -> tuple[float, float]:
    """Return (length, half-width) of an arrowhead for a stroke of ``width``."""
    return max(12.0, 4.0 * width), max(5.0, 2.0 * width)


def halo_width(size: float) -> float:
    """Return the width of the white halo around text of font ``size``."""
    return max(2.0, size / 6.0)


def label_place(x: float, y: float, radius: float) -> tuple[float, float, float]:
    """Return (x, y, font size) of the label of a marker of ``radius`` at (x, y): its baseline's start."""
    return x + radius + 3.0, y - radius - 3.0, max(14.0, 2.0 * radius + 4.0)


def default_grid_step(width: int, height: int) -> int:
    """Return a round grid spacing giving about ten to twenty lines across the longer side."""
    target = max(width, height) / 12.0
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000):
        if step >= target:
            return step
    return 2500
