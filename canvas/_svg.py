"""The vector layer as an SVG document (what a trace stores beside each image): one writer per element kind."""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterable
from typing import Any

from mcot.canvas._ops import element_kind, resolve
from mcot.canvas._style import FONT_FACE, arrow_head, dash, default_grid_step, halo_width, label_place
from mcot.canvas._types import Element
from PIL import Image


def number(v: float) -> str:
    """Return a compact decimal form of a coordinate."""
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def point_list(points: Iterable[list[float]]) -> str:
    """Return points as an SVG ``points`` attribute value: ``x,y x,y …``."""
    return " ".join(f"{number(x)},{number(y)}" for x, y in points)


def escape(text: str) -> str:
    """Return ``text`` with ``&``, ``<`` and ``>`` escaped for SVG character data."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def stroke(p: dict[str, Any]) -> str:
    """Return the stroke attributes of an element with ``color`` and ``width``."""
    return f'stroke="{p["color"]}" stroke-width="{number(p["width"])}" stroke-linecap="round" stroke-linejoin="round"'


def _head(tip: list[float], tail: list[float], width: float, color: str) -> str:
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        return ""
    ux, uy = dx / norm, dy / norm
    length, half = arrow_head(width)
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    corners = [tip, [bx - uy * half, by + ux * half], [bx + uy * half, by - ux * half]]
    return f'<polygon points="{point_list(corners)}" fill="{color}"/>'


def _segment(p: dict[str, Any], extra: str = "") -> str:
    (x1, y1), (x2, y2) = p["start"], p["end"]
    return f'<line x1="{number(x1)}" y1="{number(y1)}" x2="{number(x2)}" y2="{number(y2)}" {stroke(p)}{extra}/>'


def line_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a line element."""
    on, off = dash(p["width"])
    return _segment(p, f' stroke-dasharray="{number(on)} {number(off)}"' if p["dashed"] else "")


def arrow_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of an arrow element."""
    return _segment(p) + _head(p["end"], p["start"], p["width"], p["color"])


def path_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a path element."""
    tag = "polygon" if p["closed"] else "polyline"
    body = f'<{tag} points="{point_list(p["points"])}" fill="none" {stroke(p)}/>'
    if p["arrow"] and not p["closed"]:
        body += _head(p["points"][-1], p["points"][-2], p["width"], p["color"])
    return body


def circle_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a circle element."""
    fill = f'fill="{p["fill"]}" fill-opacity="{number(p["opacity"])}"' if p["fill"] else 'fill="none"'
    cx, cy = p["center"]
    return f'<circle cx="{number(cx)}" cy="{number(cy)}" r="{number(p["radius"])}" {fill} {stroke(p)}/>'


def polygon_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a polygon element."""
    fill = p["fill"] or p["color"]
    return (
        f'<polygon points="{point_list(p["points"])}" fill="{fill}" fill-opacity="{number(p["opacity"])}" {stroke(p)}/>'
    )


def point_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a point element (marker and label)."""
    x, y = p["at"]
    r = p["radius"]
    body = f'<circle cx="{number(x)}" cy="{number(y)}" r="{number(r)}" fill="{p["color"]}" stroke="white"/>'
    if p["label"]:
        lx, ly, size = label_place(x, y, r)
        body += text_svg_at(lx, ly, p["label"], size, p["color"], baseline=True)
    return body


def text_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a text element."""
    x, y = p["at"]
    return text_svg_at(x, y, p["text"], p["size"], p["color"], baseline=False)


def text_svg_at(x: float, y: float, text: str, size: float, color: str, *, baseline: bool) -> str:
    """Return haloed bold text at (x, y): its baseline's start when ``baseline``, else its top-left corner."""
    anchor = "" if baseline else ' dominant-baseline="text-before-edge"'
    font = (
        f'x="{number(x)}" y="{number(y)}" font-family="{FONT_FACE}" font-weight="bold" font-size="{number(size)}"'
        f"{anchor}"
    )
    # the white halo and the letters are two elements, halo first: renderers that ignore paint-order
    # (cairosvg among them) would otherwise paint the halo over the letters
    halo = f'<text {font} fill="none" stroke="white" stroke-width="{number(halo_width(size))}">{escape(text)}</text>'
    return f'{halo}<text {font} fill="{color}">{escape(text)}</text>'


def patch_svg(p: dict[str, Any], base: Image.Image | None) -> str:
    """Return the SVG of a patch element: the copied region as an embedded PNG under its matrix."""
    x0, y0, x1, y1 = p["region"]
    href = ""
    if base is not None:
        buffer = io.BytesIO()
        base.crop((x0, y0, x1, y1)).save(buffer, format="PNG", compress_level=1)
        href = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    matrix = " ".join(number(v) for v in p["matrix"])
    return (
        f'<image transform="matrix({matrix})" x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
        f'opacity="{number(p["opacity"])}" href="{escape(href)}"/>'
    )


def element_svg(element: Element, base: Image.Image | None) -> str:
    """Return the SVG fragment of one element, a ``<g>`` whose id is the element id, written by its kind."""
    body = resolve(element_kind(element.kind).svg)(element.props, base)
    return f'<g id="{element.id}" class="{element.kind}">{body}</g>'


def svg_document(
    width: int, height: int, elements: Iterable[Element], base: Image.Image | None, grid_step: int | None
) -> str:
    """Return an SVG document of the given size holding the elements in drawing order (and the grid if on)."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
    ]
    parts.extend(element_svg(e, base) for e in elements)
    if grid_step is not None:
        step = grid_step or default_grid_step(width, height)
        lines = [f'<line x1="{x}.5" y1="0" x2="{x}.5" y2="{height}"/>' for x in range(step, width, step)]
        lines += [f'<line x1="0" y1="{y}.5" x2="{width}" y2="{y}.5"/>' for y in range(step, height, step)]
        parts.append(f'<g id="grid" stroke="rgb(0,89,255)" stroke-opacity="0.45" stroke-width="1">{"".join(lines)}</g>')
    parts.append("</svg>")
    return "".join(parts)
