"""Rasterising a figure: 640x640 8-bit grayscale, clean black strokes (easy) or hand-drawn grey strokes (hard).

cairo draws anti-aliased strokes into an alpha-only surface (one byte a pixel); the image is 255 minus that
alpha. Hard figures get a smooth sideways wobble along each stroke, a grey level and width per shape, and the
paper's pixel noise (noise.py: Gaussian noise on half of them, salt-and-pepper specks, a Perlin texture inside
shapes). Images are stored as JPEG, like the public release.

Optional hard-level effects (off by default, as in the public engine's released figures): a faint Perlin
texture over the whole image (it lightens or darkens by at most TEXTURE_MAX grey levels, so the background stays
well above the validator's dark threshold) and 1-3 thin white strokes that occlude parts of the outlines. The
random draws for them happen only when they are on, so the default output is unchanged by their existence.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, replace

import cairocffi as cairo
import numpy as np
from mcot.benchmarks.generators.gepbench.noise import (
    NOISE_MODELS,
    NoiseModel,
    gaussian,
    gradient_noise,
    perlin_darkening,
    salt_and_pepper,
)
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.shapes import Shape
from PIL import Image

SIZE = 640
JPEG_QUALITY = 92
WOBBLE_PX = 1.2  # largest sideways displacement of a hand-drawn stroke
TEXTURE_MAX = 16.0  # grey levels: the largest texture amplitude
TEXTURE_CELLS = (4, 9)  # Perlin lattice cells across the image (coarse to fine)
TEXTURE_RES = 160  # the texture is computed at this resolution and upsampled smoothly
OCCLUDER_WIDTH = (2.0, 3.5)  # px: white occluding strokes stay thinner than the 4 px pooling of the validator
OCCLUDER_LENGTH = (40.0, 140.0)  # px


@dataclass(frozen=True)
class Style:
    """How one figure is drawn: per-shape grey levels and widths, wobble on or off, Gaussian noise sigma
    (0 = none), the salt-and-pepper share (0 = none), the shapes with a Perlin texture and its parameters."""

    greys: tuple[int, ...]
    widths: tuple[float, ...]
    hand_drawn: bool
    noise_sigma: float
    salt_pepper: float = 0.0
    perlin_shapes: tuple[int, ...] = ()
    perlin: tuple[int, float, float] = (0, 0.0, 0.0)  # lattice cells, power, bias
    texture: float = 0.0  # Perlin texture amplitude in grey levels (0: none)
    texture_cells: int = 0
    occluders: tuple[tuple[float, float, float, float, float], ...] = ()  # white strokes: x0, y0, x1, y1, width (px)

    def as_meta(self) -> dict[str, object]:
        """Return the style as a JSON-ready dict for an item's meta (effects only when they are on)."""
        meta: dict[str, object] = {
            "greys": list(self.greys),
            "widths": list(self.widths),
            "hand_drawn": self.hand_drawn,
            "noise_sigma": self.noise_sigma,
        }
        if self.salt_pepper > 0:
            meta["salt_pepper"] = self.salt_pepper
        if self.perlin_shapes:
            cells, power, bias = self.perlin
            meta["perlin"] = {"shapes": list(self.perlin_shapes), "cells": cells, "power": power, "bias": bias}
        if self.texture > 0:
            meta["texture"] = {"amplitude": self.texture, "cells": self.texture_cells}
        if self.occluders:
            meta["occluders"] = [list(o) for o in self.occluders]
        return meta


def choose_style(
    figure: Figure, rng: np.random.Generator, effects: bool = False, noise: NoiseModel = NOISE_MODELS["paper"]
) -> Style:
    """Return the drawing style: black 2.5 px strokes for easy, grey wobbly strokes and `noise` (the paper's by
    default) for hard; with `effects`, hard figures also get a faint texture and 1-3 occluding white strokes."""
    n = len(figure.shapes)
    if figure.level == "easy":
        return Style((0,) * n, (2.5,) * n, False, 0.0)
    greys = tuple(int(g) for g in rng.integers(30, 140, n))
    widths = tuple(round(float(w), 2) for w in rng.uniform(2.0, 3.2, n))
    sigma = noise.gaussian_sigma if rng.random() < noise.gaussian_p else 0.0
    speckle = noise.salt_pepper_share if rng.random() < noise.salt_pepper_p else 0.0
    textured = rng.random(n) < noise.perlin_p
    shapes = figure.shapes
    perlin = tuple(i for i in range(n) if textured[i] and (shapes[i].closed or shapes[i].kind == "line"))
    params = (noise.perlin_cells, noise.perlin_power, noise.perlin_bias) if perlin else (0, 0.0, 0.0)
    plain = Style(greys, widths, True, sigma, speckle, perlin, params)
    if not effects:
        return plain
    amplitude = round(float(rng.uniform(0.5, 1.0)) * TEXTURE_MAX, 2)
    cells = int(rng.integers(TEXTURE_CELLS[0], TEXTURE_CELLS[1] + 1))
    occluders = []
    for _ in range(int(rng.integers(1, 4))):
        outline = figure.shapes[int(rng.integers(n))].array  # centred on an outline, so that it occludes
        x, y = (float(v) for v in to_pixels(outline[int(rng.integers(len(outline)))][None, :])[0])
        length, ang = float(rng.uniform(*OCCLUDER_LENGTH)), float(rng.uniform(0, math.pi))
        dx, dy = 0.5 * length * math.cos(ang), 0.5 * length * math.sin(ang)
        width = float(rng.uniform(*OCCLUDER_WIDTH))
        occluders.append(tuple(round(v, 2) for v in (x - dx, y - dy, x + dx, y + dy, width)))
    return replace(plain, texture=amplitude, texture_cells=cells, occluders=tuple(occluders))  # type: ignore[arg-type]


def perlin(cells: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Return a (size, size) Perlin gradient-noise field on a `cells` x `cells` lattice, scaled into [-1, 1]."""
    field = gradient_noise(cells, size, rng)
    return field / max(float(np.abs(field).max()), 1e-9)


def _texture(style: Style, rng: np.random.Generator) -> np.ndarray:
    """Return the texture as int16 grey-level darkenings, (SIZE, SIZE), within [0, style.texture]."""
    small = perlin(style.texture_cells, TEXTURE_RES, rng).astype(np.float32)
    big = np.asarray(Image.fromarray(small, mode="F").resize((SIZE, SIZE), Image.Resampling.BILINEAR))
    return np.rint((big + 1.0) * (0.5 * style.texture)).astype(np.int16)


def to_pixels(points: np.ndarray) -> np.ndarray:
    """Return unit-square points (y up) as pixel coordinates (y down)."""
    out = np.empty_like(points)
    out[:, 0] = points[:, 0] * SIZE
    out[:, 1] = (1.0 - points[:, 1]) * SIZE
    return out


def _densify(px: np.ndarray, closed: bool, step: float = 10.0) -> np.ndarray:
    pts = np.vstack([px, px[:1]]) if closed else px
    seg = np.diff(pts, axis=0)
    counts = np.maximum(1, np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / step).astype(int))
    owner = np.repeat(np.arange(len(seg)), counts)
    frac = (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)) / counts[owner]
    return np.vstack([pts[owner] + seg[owner] * frac[:, None], pts[-1:]])


def _wobble(px: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    seg = np.gradient(px, axis=0)
    norm = np.hypot(seg[:, 0], seg[:, 1])
    norm[norm == 0] = 1.0
    normal = np.stack([-seg[:, 1] / norm, seg[:, 0] / norm], axis=1)
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(px, axis=0).T))])
    offset = np.zeros(len(px))
    for amp, wave in ((0.65, 220.0), (0.35, 90.0)):
        offset += amp * np.sin(2 * math.pi * s / (wave * float(rng.uniform(0.7, 1.3))) + float(rng.uniform(0, 6.3)))
    return px + normal * (offset * WOBBLE_PX)[:, None]


def _stroke_points(shape: Shape, hand_drawn: bool, rng: np.random.Generator) -> np.ndarray:
    px = to_pixels(shape.array)
    if hand_drawn:
        px = _wobble(_densify(px, shape.closed), rng)
    elif shape.closed:
        px = np.vstack([px, px[:1]])
    return px


def _ellipse_path(ctx: cairo.Context, shape: Shape) -> None:
    """Add an exact ellipse path (cairo's own arc) in pixel coordinates."""
    p = shape.params
    cx, cy = p["center"]
    ctx.save()
    ctx.translate(cx * SIZE, (1.0 - cy) * SIZE)
    ctx.rotate(-p["rotation"])  # y points down in pixels
    ctx.scale(p["major_axis"] * SIZE, p["minor_axis"] * SIZE)
    ctx.arc(0.0, 0.0, 1.0, 0.0, 2 * math.pi)
    ctx.restore()  # the stroke keeps a uniform width: the path is built scaled, stroked unscaled


def render(figure: Figure, style: Style, rng: np.random.Generator) -> np.ndarray:
    """Return the figure as a (640, 640) uint8 array, white background, dark strokes."""
    surface = cairo.ImageSurface(cairo.FORMAT_A8, SIZE, SIZE)
    ctx = cairo.Context(surface)
    ctx.set_line_join(cairo.LINE_JOIN_BEVEL)
    ctx.set_line_cap(cairo.LINE_CAP_ROUND)
    for shape, grey, width in zip(figure.shapes, style.greys, style.widths, strict=True):
        ctx.set_source_rgba(0, 0, 0, 1.0 - grey / 255.0)
        ctx.set_line_width(width)
        if not style.hand_drawn and shape.kind in ("circle", "ellipse"):
            _ellipse_path(ctx, shape)
        else:
            pts = _stroke_points(shape, style.hand_drawn, rng)
            ctx.move_to(float(pts[0, 0]), float(pts[0, 1]))
            for x, y in pts[1:].tolist():
                ctx.line_to(x, y)
        ctx.stroke()
    if style.occluders:
        ctx.set_operator(cairo.OPERATOR_CLEAR)  # white: no ink
        for x0, y0, x1, y1, width in style.occluders:
            ctx.set_line_width(width)
            ctx.move_to(x0, y0)
            ctx.line_to(x1, y1)
            ctx.stroke()
    surface.flush()
    alpha = _alpha(surface)
    if style.noise_sigma <= 0 and style.texture <= 0 and not style.perlin_shapes and style.salt_pepper <= 0:
        return np.bitwise_not(alpha)  # 255 - alpha for bytes
    image = 255 - alpha.astype(np.int16)
    mask = _perlin_mask(figure, style) if style.perlin_shapes else None
    if mask is not None:
        x0, y0, x1, y1 = box = _textured_box(figure, style)  # the texture is only computed where it is used
        image[y0:y1, x0:x1] -= perlin_darkening(*style.perlin, rng, box) * mask[y0:y1, x0:x1]
    if style.texture > 0:
        texture = _texture(style, rng)  # darkens by at most TEXTURE_MAX: the background stays far from DARK
        image -= texture if mask is None else texture * (1 - mask)  # never on top of the paper's texture
    if style.noise_sigma > 0:
        image += gaussian(image.shape, style.noise_sigma, rng)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if style.salt_pepper > 0:
        salt_and_pepper(out, style.salt_pepper, rng)
    return out


def _alpha(surface: cairo.ImageSurface) -> np.ndarray:
    """Return an A8 surface's pixels as a (SIZE, SIZE) uint8 view."""
    stride = surface.get_stride()
    return np.frombuffer(surface.get_data(), dtype=np.uint8).reshape(SIZE, stride)[:, :SIZE]


def _textured_box(figure: Figure, style: Style) -> tuple[int, int, int, int]:
    """Return the pixel box (x0, y0, x1, y1) around the textured shapes, on multiples of 4 px, within the image."""
    boxes = [figure.shapes[i].box for i in style.perlin_shapes]
    lo = to_pixels(np.array([[min(b[0][0] for b in boxes), max(b[1][1] for b in boxes)]]))[0] - 4
    hi = to_pixels(np.array([[max(b[1][0] for b in boxes), min(b[0][1] for b in boxes)]]))[0] + 4
    x0, y0 = (max(0, 4 * int(v // 4)) for v in lo)
    x1, y1 = (min(SIZE, 4 * int(-(-v // 4))) for v in hi)
    return x0, y0, x1, y1


def _perlin_mask(figure: Figure, style: Style) -> np.ndarray:
    """Return 1 inside the textured shapes (closed shapes filled, lines along their stroke), else 0, as int16."""
    surface = cairo.ImageSurface(cairo.FORMAT_A8, SIZE, SIZE)
    ctx = cairo.Context(surface)
    for i in style.perlin_shapes:
        shape = figure.shapes[i]
        pts = to_pixels(shape.array)
        ctx.move_to(float(pts[0, 0]), float(pts[0, 1]))
        for x, y in pts[1:].tolist():
            ctx.line_to(x, y)
        if shape.closed:
            ctx.close_path()
            ctx.fill()
        else:
            ctx.set_line_width(style.widths[i])
            ctx.stroke()
    surface.flush()
    return (_alpha(surface) > 128).astype(np.int16)


def encode_jpeg(image: np.ndarray) -> bytes:
    """Return the image as 8-bit grayscale JPEG bytes (deterministic for the same pixels)."""
    buffer = io.BytesIO()
    Image.fromarray(image, mode="L").save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return buffer.getvalue()


def decode(data: bytes) -> np.ndarray:
    """Return encoded image bytes as a (H, W) uint8 array."""
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("L"))
