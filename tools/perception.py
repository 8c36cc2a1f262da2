"""Perception tools on pixels: measure, find_color, detect_shapes (the maze reader lives in maze_image)."""

from __future__ import annotations

import itertools
import math
from typing import Any, Literal

import numpy as np
from mcot.tools import vec
from mcot.tools.args import Args, Box, Color, DrawArgs, Number, Point
from mcot.tools.errors import ToolError
from mcot.tools.raster import color_name, image_array, label_regions, near, outline, parse_color, source_image
from mcot.tools.registry import Context, Output, tool
from pydantic import Field
from shapely.geometry import Polygon

Source = Literal["image", "canvas"]
_SOURCE_HELP = "image: the original picture; canvas: the picture with the drawings on it"


class PixelArgs(Args):
    """Arguments of a tool that reads pixels."""

    source: Source = Field("image", description=_SOURCE_HELP)
    region: Box | None = Field(None, description="only look inside [x0, y0, x1, y1]")
    draw: bool = Field(False, description="mark what was found on the canvas")


MAX_READ_PIXELS = 8_000_000
"""Most pixels one perception call reads (a larger image is read a region at a time), so that a call stays fast."""


def crop(ctx: Context, args: PixelArgs) -> tuple[np.ndarray, int, int]:
    """Return the pixels to analyse and the (x, y) offset of their top-left corner in the canvas."""
    image = source_image(ctx.canvas, args.source)
    w, h = image.size
    if args.region is None:
        ix0, iy0, ix1, iy1 = 0, 0, w, h
    else:
        x0, y0, x1, y1 = args.region
        ix0, iy0 = max(0, math.floor(min(x0, x1))), max(0, math.floor(min(y0, y1)))
        ix1, iy1 = min(w, math.ceil(max(x0, x1))), min(h, math.ceil(max(y0, y1)))
        if ix1 - ix0 < 1 or iy1 - iy0 < 1:
            raise ToolError(f"the region {args.region} lies outside the image (0, 0, {w}, {h}); give [x0, y0, x1, y1]")
    count = (ix1 - ix0) * (iy1 - iy0)
    if count > MAX_READ_PIXELS:
        what = "the image" if args.region is None else f"the region {[ix0, iy0, ix1, iy1]}"
        raise ToolError(
            f"{what} has {ix1 - ix0}x{iy1 - iy0} = {count:,} pixels; one call reads at most {MAX_READ_PIXELS:,}: "
            "pass region=[x0, y0, x1, y1] to read a part of it"
        )
    return image_array(ctx.canvas, args.source, (ix0, iy0, ix1, iy1)), ix0, iy0


# ---------------------------------------------------------------- measure


class MeasureArgs(DrawArgs):
    points: list[Point] = Field(min_length=2, max_length=200, description="pixel points [[x, y], ...] in order")
    closed: bool = Field(False, description="also measure from the last point back to the first")
    scale: Number | None = Field(None, gt=0, description="real units per pixel, to convert lengths")
    draw: bool = Field(False, description="draw the measured polyline with its lengths")


@tool("perception", example={"points": [[0, 0], [30, 40], [30, 100]]})
def measure(args: MeasureArgs, ctx: Context) -> Output:
    """Measure distances and angles between pixel points: each segment's length and heading (degrees
    counter-clockwise on screen from +x), the angle at every inner vertex, and all pairwise distances.

    Returns data.lengths, data.total, data.headings, data.angles ([{at: index, angle}]) and data.pairwise.
    """
    pts = [vec.v(p) for p in args.points]
    chain = [*pts, pts[0]] if args.closed and len(pts) >= 3 else pts
    lengths = [math.dist(a, b) for a, b in itertools.pairwise(chain)]
    headings = [vec.heading(vec.sub(b, a)) if math.dist(a, b) > 0 else None for a, b in itertools.pairwise(chain)]
    angles = []
    idx = range(len(pts)) if args.closed and len(pts) >= 3 else range(1, len(pts) - 1)
    for i in idx:
        a, o, b = pts[i - 1], pts[i], pts[(i + 1) % len(pts)]
        if math.dist(a, o) > 0 and math.dist(b, o) > 0:
            angles.append({"at": i, "angle": vec.angle_between(vec.sub(a, o), vec.sub(b, o))})
    pairwise = [
        {"i": i, "j": j, "distance": math.dist(pts[i], pts[j])} for i, j in itertools.combinations(range(len(pts)), 2)
    ][:200]
    data: dict[str, object] = {
        "lengths": lengths,
        "total": sum(lengths),
        "headings": headings,
        "angles": angles,
        "pairwise": pairwise,
    }
    if args.scale is not None:
        data["lengths_scaled"] = [x * args.scale for x in lengths]
    if args.draw:
        ctx.sketch.path([list(p) for p in chain], color=args.color, width=2.0)
        for (a, b), length in zip(itertools.pairwise(chain), lengths, strict=True):
            ctx.sketch.text(
                [(a[0] + b[0]) / 2 + 4, (a[1] + b[1]) / 2 + 4], f"{length:.1f}", color=args.color, size=12.0
            )
    text = "lengths " + ", ".join(f"{x:.2f}" for x in lengths) + f" px (total {sum(lengths):.2f})"
    if angles:
        text += "; angles " + ", ".join(f"at {a['at']}: {a['angle']:.2f}°" for a in angles)
    return Output(text, data)


# ---------------------------------------------------------------- find_color


class FindColorArgs(PixelArgs):
    color: str = Field(min_length=1, max_length=40, description="the colour to find: CSS name ('red') or '#rrggbb'")
    tolerance: Number = Field(
        40, ge=0, le=255, description="largest per-channel difference still counted as that colour"
    )
    min_area: int = Field(4, ge=1, le=10_000_000, description="ignore regions with fewer pixels")
    max_regions: int = Field(50, ge=1, le=500, description="report at most this many regions (largest first)")


@tool("perception", example={"color": "red", "tolerance": 40})
def find_color(args: FindColorArgs, ctx: Context) -> Output:
    """Find the connected regions of a colour (name or hex, within a per-channel tolerance) in the image.

    Returns data.regions ([{centroid, box: [x0, y0, x1, y1], area}], largest first), data.count and
    data.pixels (how many pixels match in all); marks the centroids when draw.
    """
    rgb = parse_color(args.color)
    pix, ox, oy = crop(ctx, args)
    mask = near(pix, rgb, args.tolerance)
    _, regions = label_regions(mask)
    kept = sorted((r for r in regions if r.area >= args.min_area), key=lambda r: (-r.area, r.box))
    listed: list[dict[str, Any]] = [
        {
            "centroid": [round(r.centroid[0] + ox, 2), round(r.centroid[1] + oy, 2)],
            "box": [r.box[0] + ox, r.box[1] + oy, r.box[2] + ox + 1, r.box[3] + oy + 1],
            "area": r.area,
        }
        for r in kept[: args.max_regions]
    ]
    if args.draw:
        for i, r in enumerate(listed[:50]):
            ctx.sketch.point(r["centroid"], label=str(i + 1), color="magenta", radius=4.0)
    data = {"color": list(rgb), "count": len(kept), "pixels": int(mask.sum()), "regions": listed}
    summary = "; ".join(
        f"centroid ({r['centroid'][0]:.1f}, {r['centroid'][1]:.1f}) area {r['area']}" for r in listed[:20]
    )
    return Output(f"{len(kept)} region(s) of {args.color} {list(rgb)}: {summary or 'none'}", data)


# ---------------------------------------------------------------- detect_shapes


class DetectArgs(PixelArgs):
    color: Color | None = Field(None, description="only shapes of this colour (default: anything not background)")
    background: Color | None = Field(None, description="background colour (default: the commonest border colour)")
    tolerance: Number = Field(40, ge=0, le=255, description="per-channel colour tolerance")
    min_area: int = Field(50, ge=1, le=10_000_000, description="ignore regions with fewer pixels")
    max_shapes: int = Field(30, ge=1, le=200, description="report at most this many shapes (largest first)")
    mode: Literal["regions", "faces"] = Field(
        "regions",
        description="regions: connected marks (filled or outlined shapes standing apart); faces: the closed areas "
        "that lines enclose (for line drawings whose shapes touch, overlap or nest)",
    )


def _background(pix: np.ndarray) -> tuple[int, int, int]:
    border = np.concatenate([pix[0], pix[-1], pix[:, 0], pix[:, -1]])
    values, counts = np.unique(border, axis=0, return_counts=True)
    c = values[int(np.argmax(counts))]
    return (int(c[0]), int(c[1]), int(c[2]))


def classify_outline(points: list[tuple[float, float]], pixel_area: int) -> dict[str, object]:
    """Return the shape of a closed outline: kind, vertices (polygon approximation), centroid, area, filled."""
    poly = Polygon(points).buffer(0)
    if poly.is_empty or poly.area <= 0:
        raise ToolError("degenerate outline")
    if poly.geom_type != "Polygon":
        poly = max(poly.geoms, key=lambda g: g.area)
    perimeter = poly.length
    simple = poly.simplify(max(1.0, 0.015 * perimeter), preserve_topology=True)
    verts = list(simple.exterior.coords)[:-1]
    area = poly.area
    c = poly.centroid
    xs = np.array([p[0] for p in points]) - c.x
    ys = np.array([p[1] for p in points]) - c.y
    cov = np.cov(np.vstack([xs, ys]))
    evals, evecs = np.linalg.eigh(cov)
    kind = _polygon_name(verts)
    ellipse = None
    if len(verts) >= 7 and evals.min() > 0:
        inv = np.linalg.inv(cov)
        r = np.sqrt(np.einsum("ij,jk,ik->i", np.vstack([xs, ys]).T, inv, np.vstack([xs, ys]).T))
        spread = float(r.std() / r.mean())
        if spread < 0.045:
            k = math.sqrt(area / (math.pi * math.sqrt(evals[0] * evals[1])))
            a, b = float(k * math.sqrt(evals[1])), float(k * math.sqrt(evals[0]))
            kind = "circle" if a / b < 1.08 else "ellipse"
            angle = math.degrees(math.atan2(-evecs[1, 1], evecs[0, 1]))
            ellipse = {"center": [c.x, c.y], "axes": [a, b], "angle": angle % 180}
    out: dict[str, object] = {
        "kind": kind,
        "vertices": [[round(x, 1), round(y, 1)] for x, y in verts] if ellipse is None else [],
        "centroid": [round(c.x, 2), round(c.y, 2)],
        "area": round(area, 1),
        "filled": pixel_area >= 0.7 * area,
    }
    if ellipse is not None:
        out["ellipse"] = ellipse
        out["radius"] = round(math.sqrt(area / math.pi), 2) if kind == "circle" else None
    return out


def _polygon_name(verts: list[tuple[float, float]]) -> str:
    n = len(verts)
    if n == 4:
        angles = [
            vec.angle_between(vec.sub(verts[i - 1], verts[i]), vec.sub(verts[(i + 1) % 4], verts[i])) for i in range(4)
        ]
        if all(abs(a - 90) < 8 for a in angles):
            sides = [math.dist(verts[i], verts[(i + 1) % 4]) for i in range(4)]
            return "square" if max(sides) / min(sides) < 1.1 else "rectangle"
        return "quadrilateral"
    return {3: "triangle", 5: "pentagon", 6: "hexagon"}.get(n, "polygon")


@tool("perception", example={"min_area": 50})
def detect_shapes(args: DetectArgs, ctx: Context) -> Output:
    """Detect closed shapes in the image (filled or outlined regions that differ from the background, or of one
    colour; or, in mode "faces", the closed areas the lines enclose) and approximate each as a polygon or an
    ellipse.

    Returns data.shapes ([{kind: triangle|square|rectangle|quadrilateral|pentagon|hexagon|polygon|circle|ellipse,
    vertices, centroid, area, box, color, filled}], largest first); outlines them when draw.
    """
    pix, ox, oy = crop(ctx, args)
    if args.color is not None:
        mask = near(pix, parse_color(args.color), args.tolerance)
    else:
        bg = parse_color(args.background) if args.background else _background(pix)
        mask = ~near(pix, bg, args.tolerance)
    h, w = mask.shape
    if args.mode == "faces":
        mask = ~mask  # the background, split into pieces by the lines; pieces touching the border are outside
    labels, regions = label_regions(mask)
    if args.mode == "faces":
        regions = [r for r in regions if r.box[0] > 0 and r.box[1] > 0 and r.box[2] < w - 1 and r.box[3] < h - 1]
    kept = sorted((r for r in regions if r.area >= args.min_area), key=lambda r: (-r.area, r.box))
    shapes = []
    for r in kept[: args.max_shapes]:
        x0, y0, x1, y1 = r.box
        sub = labels[y0 : y1 + 1, x0 : x1 + 1] == r.label
        line = outline(sub)
        if len(line) < 3:
            continue
        try:
            shape = classify_outline([(x + x0 + ox, y + y0 + oy) for x, y in line], r.area)
        except ToolError:
            continue
        mean = pix[y0 : y1 + 1, x0 : x1 + 1][sub].mean(axis=0)
        rgb = [round(float(v)) for v in mean]
        shape.update({"box": [x0 + ox, y0 + oy, x1 + ox + 1, y1 + oy + 1], "color": color_name(rgb), "rgb": rgb})
        shapes.append(shape)
    if args.draw:
        for s in shapes[:50]:
            verts = s["vertices"]
            if isinstance(verts, list) and len(verts) >= 3:
                ctx.sketch.polygon(verts, color="magenta", width=2.0, opacity=0.0)
            else:
                ctx.sketch.point(s["centroid"], label=str(s["kind"]), color="magenta", radius=3.0)  # type: ignore[arg-type]
    summary = "; ".join(
        f"{s['kind']} ({s['color']}) at ({s['centroid'][0]:.0f}, {s['centroid'][1]:.0f}) area {s['area']:.0f}"  # type: ignore[index]
        for s in shapes[:20]
    )
    return Output(f"{len(shapes)} shape(s): {summary or 'none'}", {"count": len(shapes), "shapes": shapes})
