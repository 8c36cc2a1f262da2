"""Drawing elements and the grid with cairo, and moving pixels between cairo surfaces and Pillow images.

Every drawing function is self-contained (it saves and restores the cairo state), so drawing elements one at a
time onto a cached surface gives exactly the pixels of drawing them all at once onto a fresh copy of the base.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import cast

import cairocffi as cairo
from mcot.canvas._ops import DrawFn, element_kind, resolve
from mcot.canvas._pixels import CAIRO_RAW_MODE, cairo_buffer
from mcot.canvas._style import FONT_FACE, HALO, arrow_head, dash, halo_width, label_place
from mcot.canvas._types import Element
from mcot.canvas._validate import rgb
from PIL import Image


def surface_from_image(image: Image.Image) -> tuple[cairo.ImageSurface, bytearray]:
    """Return a cairo RGB24 surface holding a copy of an RGB Pillow image, and the buffer behind it."""
    width, height = image.size
    buffer = cairo_buffer(image)
    surface = cairo.ImageSurface.create_for_data(buffer, cairo.FORMAT_RGB24, width, height, width * 4)
    return surface, buffer


def copy_surface(buffer: bytes | bytearray, width: int, height: int) -> tuple[cairo.ImageSurface, bytearray]:
    """Return a new RGB24 surface over a copy of ``buffer`` (the pixels of another surface), and that copy."""
    copy = bytearray(buffer)
    surface = cairo.ImageSurface.create_for_data(copy, cairo.FORMAT_RGB24, width, height, width * 4)
    return surface, copy


def image_from_buffer(buffer: bytes | bytearray, width: int, height: int) -> Image.Image:
    """Return a new RGB Pillow image with the pixels of an RGB24 surface buffer."""
    # the cast: Pillow < 13's stubs (which the `openenv` extra's gradio pins) do not list bytearray; it is taken
    return Image.frombuffer("RGB", (width, height), cast(bytes, buffer), "raw", CAIRO_RAW_MODE, width * 4, 1)


def draw_elements(surface: cairo.ImageSurface, elements: list[Element], base: cairo.ImageSurface) -> None:
    """Draw ``elements`` in the given order onto ``surface``, each by its kind's ``draw``; patches copy from ``base``."""
    ctx = cairo.Context(surface)
    ctx.select_font_face(FONT_FACE, cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_BOLD)
    drawers: dict[str, DrawFn] = {}
    for element in elements:
        draw = drawers.get(element.kind)
        if draw is None:
            draw = drawers[element.kind] = resolve(element_kind(element.kind).draw)
        ctx.save()
        draw(ctx, element.props, base)
        ctx.restore()
    surface.flush()


def _stroke_style(ctx: cairo.Context, props: dict, *, dashed: bool = False) -> None:
    width = props["width"]
    ctx.set_line_width(width)
    ctx.set_line_join(cairo.LINE_JOIN_ROUND)
    if dashed:
        ctx.set_line_cap(cairo.LINE_CAP_BUTT)
        ctx.set_dash(list(dash(width)), 0.0)
    else:
        ctx.set_line_cap(cairo.LINE_CAP_ROUND)
    ctx.set_source_rgb(*rgb(props["color"]))


def _head_base(tip: list[float], tail: list[float], length: float) -> list[float] | None:
    """Return where the shaft should stop so the head's tip is sharp (None when the segment is degenerate)."""
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        return None
    keep = max(norm - length, 0.0)
    return [tail[0] + dx / norm * keep, tail[1] + dy / norm * keep]


def _fill_head(ctx: cairo.Context, tip: list[float], tail: list[float], width: float) -> None:
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        return
    ux, uy = dx / norm, dy / norm
    length, half = arrow_head(width)
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    ctx.new_path()
    ctx.move_to(tip[0], tip[1])
    ctx.line_to(bx - uy * half, by + ux * half)
    ctx.line_to(bx + uy * half, by - ux * half)
    ctx.close_path()
    ctx.fill()


def draw_line(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a line element (returns nothing)."""
    _stroke_style(ctx, p, dashed=p["dashed"])
    ctx.move_to(*p["start"])
    ctx.line_to(*p["end"])
    ctx.stroke()


def draw_arrow(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a arrow element (returns nothing)."""
    _stroke_style(ctx, p)
    start, end = p["start"], p["end"]
    stop = _head_base(end, start, arrow_head(p["width"])[0] * 0.6)
    if stop is None:
        return
    ctx.move_to(*start)
    ctx.line_to(*stop)
    ctx.stroke()
    _fill_head(ctx, end, start, p["width"])


def draw_path(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a path element (returns nothing)."""
    _stroke_style(ctx, p)
    pts = p["points"]
    head = p["arrow"] and not p["closed"]
    last = pts[-1]
    if head:
        stop = _head_base(pts[-1], pts[-2], arrow_head(p["width"])[0] * 0.6)
        last = stop if stop is not None else pts[-1]
    ctx.move_to(*pts[0])
    for q in pts[1:-1]:
        ctx.line_to(*q)
    ctx.line_to(*last)
    if p["closed"]:
        ctx.close_path()
    ctx.stroke()
    if head:
        _fill_head(ctx, pts[-1], pts[-2], p["width"])


def draw_circle(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a circle element (returns nothing)."""
    cx, cy = p["center"]
    ctx.arc(cx, cy, p["radius"], 0.0, 2 * math.pi)
    if p["fill"] is not None and p["opacity"] > 0:
        ctx.set_source_rgba(*rgb(p["fill"]), p["opacity"])
        ctx.fill_preserve()
    _stroke_style(ctx, p)
    ctx.stroke()


def draw_polygon(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a polygon element (returns nothing)."""
    pts = p["points"]
    ctx.move_to(*pts[0])
    for q in pts[1:]:
        ctx.line_to(*q)
    ctx.close_path()
    if p["opacity"] > 0:
        ctx.set_source_rgba(*rgb(p["fill"] or p["color"]), p["opacity"])
        ctx.fill_preserve()
    _stroke_style(ctx, p)
    ctx.stroke()


def _halo_text(ctx: cairo.Context, x: float, y: float, text: str, size: float, color: str) -> None:
    """Draw ``text`` with its baseline starting at (x, y), outlined in white for legibility."""
    ctx.set_font_size(size)
    ctx.move_to(x, y)
    ctx.text_path(text)
    ctx.set_line_join(cairo.LINE_JOIN_ROUND)
    ctx.set_line_width(halo_width(size))
    ctx.set_source_rgb(*HALO)
    ctx.stroke_preserve()
    ctx.set_source_rgb(*rgb(color))
    ctx.fill()


def draw_point(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a point element (returns nothing)."""
    x, y = p["at"]
    r = p["radius"]
    ctx.arc(x, y, r, 0.0, 2 * math.pi)
    ctx.set_source_rgb(*rgb(p["color"]))
    ctx.fill_preserve()
    ctx.set_line_width(1.5)
    ctx.set_source_rgb(*HALO)
    ctx.stroke()
    if p["label"]:
        lx, ly, size = label_place(x, y, r)
        _halo_text(ctx, lx, ly, p["label"], size, p["color"])


def draw_text(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a text element (returns nothing)."""
    x, y = p["at"]
    ctx.set_font_size(p["size"])
    ascent = ctx.font_extents()[0]
    _halo_text(ctx, x, y + ascent, p["text"], p["size"], p["color"])


def draw_patch(ctx: cairo.Context, p: dict, base: cairo.ImageSurface) -> None:
    """Draw a patch element (returns nothing)."""
    x0, y0, x1, y1 = p["region"]
    ctx.transform(cairo.Matrix(*p["matrix"]))
    ctx.rectangle(x0, y0, x1 - x0, y1 - y0)
    ctx.clip()
    ctx.set_source_surface(base, 0, 0)
    ctx.paint_with_alpha(p["opacity"])


@lru_cache(maxsize=8)
def grid_layer(width: int, height: int, step: int) -> cairo.ImageSurface:
    """Return a transparent ARGB surface with grid lines every ``step`` px, labelled with pixel coordinates."""
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, height)
    ctx = cairo.Context(surface)
    ctx.set_line_width(1.0)
    ctx.set_source_rgba(0.0, 0.35, 1.0, 0.45)
    for x in range(step, width, step):
        ctx.move_to(x + 0.5, 0)
        ctx.line_to(x + 0.5, height)
    for y in range(step, height, step):
        ctx.move_to(0, y + 0.5)
        ctx.line_to(width, y + 0.5)
    ctx.stroke()
    ctx.select_font_face(FONT_FACE, cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_BOLD)
    size = 11.0
    ctx.set_font_size(size)
    every = max(1, math.ceil(40 / step))
    labels = [(x, str(x), True) for x in range(step, width, step) if (x // step) % every == 0]
    labels += [(y, str(y), False) for y in range(step, height, step) if (y // step) % every == 0]
    for pos, text, vertical in labels:
        extents = ctx.text_extents(text)
        tw, th = extents[4], size
        bx, by = (pos + 2.0, 1.0) if vertical else (1.0, pos + 2.0)
        ctx.set_source_rgba(1.0, 1.0, 1.0, 0.8)
        ctx.rectangle(bx - 1, by, tw + 2, th + 2)
        ctx.fill()
        ctx.set_source_rgba(0.0, 0.2, 0.8, 1.0)
        ctx.move_to(bx, by + th - 1)
        ctx.show_text(text)
    surface.flush()
    return surface


def paint_grid(surface: cairo.ImageSurface, width: int, height: int, step: int) -> None:
    """Paint the grid layer for (width, height, step) over ``surface``."""
    ctx = cairo.Context(surface)
    ctx.set_source_surface(grid_layer(width, height, step), 0, 0)
    ctx.paint()
    surface.flush()
