"""The canvas's SVG export rasterised by cairosvg against its own raster snapshot (cairocffi).

`Canvas.svg()` holds the vector layer only: the elements (and the grid when shown), not the base image; a patch
(a moved copy of a base region) carries its crop as a data URI. So the cairosvg rendering (transparent where
nothing is drawn) is composited over `Canvas.base` before comparing with `Canvas.snapshot()`.

Measured on cairo 1.16 / cairosvg 2.9 (both renderers end in the same cairo rasteriser):
- solid lines, polygons and circles: identical up to 1 level; over an image base with moved and rotated patches,
  within 3 levels except a rotated patch's anti-aliased border (up to 11 levels on a few dozen pixels), mean
  absolute difference < 0.01 per channel;
- arrows, arrowed paths, dashed lines and point markers: the export's stroke details differ (the arrow shaft
  runs to the tip with a round cap, where the snapshot stops it at the head's base; dashes get round caps, the
  snapshot's are butt; a point's white outline is 1 px, the snapshot's 1.5 px), so ~15 pixels differ per
  arrowhead and ~2 per dash end, all within 3 px of the drawn ink: the bound below is on where things are;
- text: the export writes the white halo and the letters as two elements, since cairosvg ignores `paint-order`.
"""

from __future__ import annotations

import io

import cairosvg
import numpy as np
from mcot.canvas import Canvas
from PIL import Image, ImageFilter

SIZE = (400, 300)


def _pair(canvas: Canvas) -> tuple[np.ndarray, np.ndarray]:
    """Return (snapshot, cairosvg rendering of svg() composited over the base) as int RGB arrays."""
    snapshot = Image.open(io.BytesIO(canvas.snapshot().png)).convert("RGB")
    layer = Image.open(io.BytesIO(cairosvg.svg2png(bytestring=canvas.svg().encode("utf-8")))).convert("RGBA")
    assert layer.size == snapshot.size == (canvas.width, canvas.height)
    composed = Image.alpha_composite(canvas.base.convert("RGBA"), layer).convert("RGB")
    return np.asarray(snapshot).astype(int), np.asarray(composed).astype(int)


def _ink(image: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Return where an image differs clearly (> 64 levels) from its background."""
    return np.abs(image - background).max(axis=-1) > 64


def _grow(mask: np.ndarray, pixels: int) -> np.ndarray:
    """Return ``mask`` dilated by ``pixels`` in every direction."""
    image = Image.fromarray(mask.astype(np.uint8) * 255)
    return np.asarray(image.filter(ImageFilter.MaxFilter(2 * pixels + 1))) > 0


def _gradient() -> Image.Image:
    yy, xx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]]
    rgb = np.stack([xx * 255 // SIZE[0], yy * 255 // SIZE[1], (xx + yy) % 256], axis=-1).astype(np.uint8)
    return Image.fromarray(rgb, "RGB")


def test_lines_polygons_and_circles_match_pixel_for_pixel() -> None:
    canvas = Canvas(size=SIZE)
    canvas.draw_line([20, 30], [380, 250], color="red", width=3)
    canvas.draw_line([10.5, 290], [390, 12.25], color="#1f77b4", width=1.5)
    canvas.draw_line([200, 10], [200, 290], color="black", width=6)
    canvas.draw_polygon([[50, 50], [200, 60], [150, 180]], color="green", fill="yellow", opacity=0.4)
    canvas.draw_polygon([[250, 200], [390, 210], [330, 290], [260, 280]], color="navy", width=2, opacity=0.0)
    canvas.draw_circle([300, 100], 60, color="purple", width=4, fill="orange", opacity=0.5)
    canvas.draw_circle([90, 230], 35.5, color="teal", width=2)
    snapshot, composed = _pair(canvas)
    diff = np.abs(snapshot - composed)
    assert diff.max() <= 2
    assert diff.mean() < 0.01


def test_elements_and_patches_over_an_image_base() -> None:
    canvas = Canvas(base=_gradient())
    canvas.draw_line([20, 30], [380, 250], color="red", width=3)
    canvas.draw_circle([300, 100], 60, color="purple", width=4, fill="orange", opacity=0.5)
    canvas.transform(region=[20, 20, 120, 100], translate=[200, 150])
    canvas.transform(region=[150, 150, 250, 230], rotate={"angle": 30})
    snapshot, composed = _pair(canvas)
    diff = np.abs(snapshot - composed)
    # the rotated patch is resampled by each renderer: its anti-aliased border, where it lies over the moved
    # patch, differs by up to 11 levels on 34 pixels (measured); everywhere else within 3 levels
    assert diff.max() <= 16
    assert (diff.max(axis=-1) > 4).sum() <= 100
    assert diff.mean() < 0.01


def test_arrows_paths_points_and_dashes_are_drawn_at_the_same_places() -> None:
    canvas = Canvas(size=SIZE)
    canvas.draw_arrow([40, 250], [200, 200], color="black", width=3)
    canvas.trace_path([[220, 250], [260, 200], [300, 260], [360, 210]], color="teal", width=3, arrow=True)
    canvas.draw_line([20, 280], [380, 120], color="blue", width=2, dashed=True)
    canvas.mark_point([100, 200], color="blue")
    canvas.mark_point([320, 60], color="red", radius=8)
    snapshot, composed = _pair(canvas)
    diff = np.abs(snapshot - composed)
    white = np.full_like(snapshot, 255)
    ink_snapshot, ink_svg = _ink(snapshot, white), _ink(composed, white)
    differing = diff.max(axis=-1) > 32
    assert diff.mean() < 0.3  # measured 0.17
    assert differing.sum() < 0.01 * differing.size  # measured 0.23 % of the pixels
    # every pixel either renderer inks lies within 3 px of the other's ink, and they overlap almost wholly
    assert not (ink_svg & ~_grow(ink_snapshot, 3)).any()
    assert not (ink_snapshot & ~_grow(ink_svg, 3)).any()
    assert (ink_svg & ink_snapshot).sum() / (ink_svg | ink_snapshot).sum() > 0.9


def test_text_renders_alike() -> None:
    canvas = Canvas(size=(200, 60))
    canvas.add_text([20, 10], "F = ma", color="black", size=24)
    snapshot, composed = _pair(canvas)
    white = np.full_like(snapshot, 255)
    ink_snapshot, ink_svg = _ink(snapshot, white), _ink(composed, white)
    assert (ink_svg & ink_snapshot).sum() / (ink_svg | ink_snapshot).sum() > 0.8
