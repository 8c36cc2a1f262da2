"""The vector layer as an SVG document (what a trace stores beside each image)."""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

from mcot.canvas._render import FONT_FACE, default_grid_step
from mcot.canvas._types import Element
from PIL import Image


def _n(v: float) -> str:
    """Return a compact decimal form of a coordinate."""
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _pts(points: Iterable[list[float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _stroke(p: dict) -> str:
    return f'stroke="{p["color"]}" stroke-width="{_n(p["width"])}" stroke-linecap="round" stroke-linejoin="round"'


def _head(tip: list[float], tail: list[float], width: float, color: str) -> str:
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        return ""
    ux, uy = dx / norm, dy / norm
    length, half = max(12.0, 4.0 * width), max(5.0, 2.0 * width)
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    corners = [tip, [bx - uy * half, by + ux * half], [bx + uy * half, by - ux * half]]
    return f'<polygon points="{_pts(corners)}" fill="{color}"/>'


def element_svg(element: Element, base: Image.Image | None) -> str:
    """Return the SVG fragment of one element, a ``<g>`` whose id is the element id."""
    p, kind = element.props, element.kind
    if kind == "line":
        dash = (
            f' stroke-dasharray="{_n(max(6.0, 4 * p["width"]))} {_n(max(4.0, 2.5 * p["width"]))}"'
            if p["dashed"]
            else ""
        )
        (x1, y1), (x2, y2) = p["start"], p["end"]
        body = f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" {_stroke(p)}{dash}/>'
    elif kind == "arrow":
        (x1, y1), (x2, y2) = p["start"], p["end"]
        body = f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" {_stroke(p)}/>'
        body += _head(p["end"], p["start"], p["width"], p["color"])
    elif kind == "path":
        tag = "polygon" if p["closed"] else "polyline"
        body = f'<{tag} points="{_pts(p["points"])}" fill="none" {_stroke(p)}/>'
        if p["arrow"] and not p["closed"]:
            body += _head(p["points"][-1], p["points"][-2], p["width"], p["color"])
    elif kind == "circle":
        fill = f'fill="{p["fill"]}" fill-opacity="{_n(p["opacity"])}"' if p["fill"] else 'fill="none"'
        cx, cy = p["center"]
        body = f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(p["radius"])}" {fill} {_stroke(p)}/>'
    elif kind == "polygon":
        fill = p["fill"] or p["color"]
        body = f'<polygon points="{_pts(p["points"])}" fill="{fill}" fill-opacity="{_n(p["opacity"])}" {_stroke(p)}/>'
    elif kind == "point":
        x, y = p["at"]
        body = f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(p["radius"])}" fill="{p["color"]}" stroke="white"/>'
        if p["label"]:
            r = p["radius"]
            body += _text(x + r + 3, y - r - 3, p["label"], max(14.0, 2 * r + 4), p["color"], baseline=True)
    elif kind == "text":
        x, y = p["at"]
        body = _text(x, y, p["text"], p["size"], p["color"], baseline=False)
    else:  # patch
        body = _patch(p, base)
    return f'<g id="{element.id}" class="{kind}">{body}</g>'


def _text(x: float, y: float, text: str, size: float, color: str, *, baseline: bool) -> str:
    anchor = "" if baseline else ' dominant-baseline="text-before-edge"'
    font = f'x="{_n(x)}" y="{_n(y)}" font-family="{FONT_FACE}" font-weight="bold" font-size="{_n(size)}"{anchor}'
    # the white halo and the letters are two elements, halo first: renderers that ignore paint-order
    # (cairosvg among them) would otherwise paint the halo over the letters
    halo = f'<text {font} fill="none" stroke="white" stroke-width="{_n(max(2.0, size / 6))}">{escape(text)}</text>'
    return f'{halo}<text {font} fill="{color}">{escape(text)}</text>'



def _patch(p: dict, base: Image.Image | None) -> str:
    x0, y0, x1, y1 = p["region"]
    href = ""
    if base is not None:
        buffer = io.BytesIO()
        base.crop((x0, y0, x1, y1)).save(buffer, format="PNG", compress_level=1)
        href = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    matrix = " ".join(_n(v) for v in p["matrix"])
    return (
        f'<image transform="matrix({matrix})" x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
        f'opacity="{_n(p["opacity"])}" href={quoteattr(href)}/>'
    )


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
