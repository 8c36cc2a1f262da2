"""Pixel helpers for the perception tools: colours, the canvas image as an array, connected regions, outlines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import contourpy
import numpy as np
from mcot.tools.budget import check_time
from mcot.tools.errors import ToolError
from PIL import Image, ImageColor

BASIC_COLORS: dict[str, tuple[int, int, int]] = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "gray": (128, 128, 128),
    "red": (220, 0, 0),
    "green": (0, 160, 0),
    "blue": (0, 0, 230),
    "yellow": (240, 220, 0),
    "orange": (255, 140, 0),
    "purple": (128, 0, 160),
    "magenta": (230, 0, 230),
    "cyan": (0, 200, 220),
    "brown": (140, 80, 20),
    "pink": (255, 150, 190),
    "lightblue": (173, 216, 230),
    "darkgray": (64, 64, 64),
    "navy": (0, 0, 128),
    "teal": (0, 128, 128),
    "lime": (120, 230, 0),
    "olive": (128, 128, 0),
    "maroon": (128, 0, 0),
}
"""Colour names used to describe pixel colours (nearest in RGB)."""


def parse_color(value: str) -> tuple[int, int, int]:
    """Return the RGB of a CSS colour name or hex string (ToolError when unknown)."""
    try:
        rgb = ImageColor.getrgb(value.strip())
    except (ValueError, AttributeError):
        raise ToolError(f"unknown colour {value!r}; use a CSS colour name such as 'red' or a hex '#rrggbb'") from None
    return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def color_name(rgb: tuple[int, int, int] | list[int]) -> str:
    """Return the nearest basic colour name of an RGB triple."""
    r, g, b = (int(c) for c in rgb)
    return min(BASIC_COLORS, key=lambda n: sum((x - y) ** 2 for x, y in zip(BASIC_COLORS[n], (r, g, b), strict=True)))


def source_image(canvas: Any, source: str = "image") -> Image.Image:
    """Return the canvas's base image ("image") or its rendering ("canvas") as a PIL image (not a copy)."""
    base = getattr(canvas, "base", None) if source == "image" else None
    if isinstance(base, Image.Image):
        return base
    rendering = getattr(canvas, "rendering", None)
    if callable(rendering):
        return rendering()
    import io

    return Image.open(io.BytesIO(canvas.snapshot().png))


def image_array(canvas: Any, source: str = "image", box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Return the pixels (H x W x 3, uint8) of the base image or the rendering, or of the part `box` of it."""
    img = source_image(canvas, source)
    if box is not None and box != (0, 0, img.width, img.height):
        img = img.crop(box)
    return np.asarray(img.convert("RGB") if img.mode != "RGB" else img, dtype=np.uint8)


def near(pixels: np.ndarray, rgb: tuple[int, int, int], tolerance: float) -> np.ndarray:
    """Return a boolean mask of pixels whose every channel is within `tolerance` of `rgb`."""
    mask = np.ones(pixels.shape[:2], dtype=bool)
    for channel, value in enumerate(rgb):  # channel by channel: a third of the memory of one int16 copy
        mask &= np.abs(pixels[..., channel].astype(np.int16) - value) <= tolerance
    return mask


@dataclass
class Region:
    """A connected region of a mask: its pixel count, bounding box (x0, y0, x1, y1 inclusive) and centroid."""

    label: int
    area: int
    box: tuple[int, int, int, int]
    centroid: tuple[float, float]


def label_regions(mask: np.ndarray) -> tuple[np.ndarray, list[Region]]:
    """Return (labels, regions) of the 8-connected regions of a boolean mask; labels are 1..n, 0 = background.

    Works on runs of each row joined with union-find, so the Python work grows with the number of runs.
    """
    h, w = mask.shape
    padded = np.zeros((h, w + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    edges = np.diff(padded, axis=1)
    rows_s, cols_s = np.nonzero(edges == 1)
    _rows_e, cols_e = np.nonzero(edges == -1)
    n = len(rows_s)
    if n > 400_000:
        raise ToolError(
            "the image has too many separate pieces of that colour to analyse; raise min_area or "
            "narrow the tolerance, or zoom into a region"
        )
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    row_start = np.searchsorted(rows_s, np.arange(h + 1))
    for r in range(1, h):
        if r % 64 == 0:
            check_time("labelling regions")
        a0, a1 = row_start[r - 1], row_start[r]
        b0, b1 = row_start[r], row_start[r + 1]
        i, j = a0, b0
        while i < a1 and j < b1:
            # runs [s, e) overlap with 8-connectivity when s_a <= e_b and s_b <= e_a
            if cols_s[i] <= cols_e[j] and cols_s[j] <= cols_e[i]:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
            if cols_e[i] < cols_e[j]:
                i += 1
            else:
                j += 1
    roots = np.array([find(i) for i in range(n)], dtype=np.int64)
    uniq, run_label = np.unique(roots, return_inverse=True)
    labels = np.zeros(h * w, dtype=np.int32)
    lengths = cols_e - cols_s
    if n:
        starts = rows_s * w + cols_s
        offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        labels[np.repeat(starts, lengths) + offsets] = np.repeat(run_label + 1, lengths)
    labels = labels.reshape(h, w)
    count = len(uniq)
    ys, xs = np.nonzero(labels)
    lab = labels[ys, xs]
    area = np.bincount(lab, minlength=count + 1)
    sx = np.bincount(lab, weights=xs, minlength=count + 1)
    sy = np.bincount(lab, weights=ys, minlength=count + 1)
    x0 = np.full(count + 1, w)
    y0 = np.full(count + 1, h)
    x1 = np.full(count + 1, -1)
    y1 = np.full(count + 1, -1)
    np.minimum.at(x0, lab, xs)
    np.minimum.at(y0, lab, ys)
    np.maximum.at(x1, lab, xs)
    np.maximum.at(y1, lab, ys)
    regions = [
        Region(
            k,
            int(area[k]),
            (int(x0[k]), int(y0[k]), int(x1[k]), int(y1[k])),
            (float(sx[k] / area[k]), float(sy[k] / area[k])),
        )
        for k in range(1, count + 1)
    ]
    return labels, regions


def outline(mask: np.ndarray) -> list[tuple[float, float]]:
    """Return the outer boundary of a filled-or-outlined region as a closed list of (x, y) pixel positions."""
    padded = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), dtype=np.float64)
    padded[1:-1, 1:-1] = mask
    lines = contourpy.contour_generator(z=padded, name="serial").lines(0.5)
    best: list[tuple[float, float]] = []
    best_area = -1.0
    for line in lines:
        points = np.asarray(line)
        if len(points) < 3:
            continue
        x, y = points[:, 0] - 1, points[:, 1] - 1
        area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
        if area > best_area:
            best_area, best = area, list(zip(x.tolist(), y.tolist(), strict=True))
    return best
