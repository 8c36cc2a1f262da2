"""Shared drawing for game images: aliased Pillow strokes so that every named colour is exact in the PNG."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

RGB = tuple[int, int, int]

WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
START_GREEN: RGB = (0, 170, 0)
SOURCE_RED: RGB = (220, 0, 0)
MIRROR_GREY: RGB = (64, 64, 64)
GLASS_BLUE: RGB = (173, 216, 230)

# Colours that label exits, targets, balloons and bricks: far apart, none equal to a reserved colour above.
LABEL_COLORS: dict[str, RGB] = {
    "red": (220, 0, 0),
    "blue": (0, 90, 220),
    "orange": (255, 140, 0),
    "purple": (150, 0, 200),
    "magenta": (230, 0, 160),
    "teal": (0, 150, 150),
    "brown": (140, 80, 20),
    "gold": (230, 190, 0),
}


def blank(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """Return a white RGB image of the given size and a drawing context on it."""
    image = Image.new("RGB", (width, height), WHITE)
    return image, ImageDraw.Draw(image)


def disc(draw: ImageDraw.ImageDraw, center: Sequence[float], radius: float, color: RGB) -> None:
    """Fill a disc of `radius` px around `center`."""
    x, y = center
    draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=color)


def arrow(draw: ImageDraw.ImageDraw, start: Sequence[float], tip: Sequence[float], color: RGB, width: int = 3) -> None:
    """Draw a shaft from `start` towards `tip` and a filled triangular head whose apex is exactly `tip`."""
    sx, sy = start
    tx, ty = tip
    length = math.hypot(tx - sx, ty - sy)
    ux, uy = (tx - sx) / length, (ty - sy) / length
    head = min(14.0, 0.45 * length)
    bx, by = tx - ux * head, ty - uy * head
    draw.line([(sx, sy), (bx, by)], fill=color, width=width)
    half = head * 0.45
    draw.polygon([(tx, ty), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)], fill=color)


def text(draw: ImageDraw.ImageDraw, center: Sequence[float], label: str, color: RGB = BLACK, size: int = 18) -> None:
    """Write `label` centred on `center` with Pillow's embedded font (the same glyphs on every machine)."""
    font = ImageFont.load_default(size=size)
    draw.fontmode = "1"  # aliased glyphs: the label keeps its exact colour
    draw.text((center[0], center[1]), label, fill=color, font=font, anchor="mm")


def png_bytes(image: Image.Image) -> bytes:
    """Return the image as PNG bytes; the same image always gives the same bytes."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()
