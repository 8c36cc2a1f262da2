"""Geometry tools: intersections, distances, angles, transforms, constructions, circles, tangency, polygons."""

from __future__ import annotations

import math
from typing import Any, Literal

from mcot.tools import vec
from mcot.tools.args import Args, DrawArgs, Number, Point, Segment, Shape, check_segment
from mcot.tools.errors import ToolError
from mcot.tools.registry import Context, Output, tool
from pydantic import Field, model_validator
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.ops import nearest_points

_FAR = 1e5
"""Half-length used to stand a line or ray in for shapely (pixels)."""

_TOL = 1e-7


# ---------------------------------------------------------------- pure functions


def _linear(shape: Shape) -> tuple[vec.Vec, vec.Vec, float, float]:
    """Return (p, r, t_min, t_max): the shape as p + t r with its parameter range."""
    assert shape.points is not None
    p, q = vec.v(shape.points[0]), vec.v(shape.points[1])
    r = vec.sub(q, p)
    lo, hi = {"segment": (0.0, 1.0), "ray": (0.0, math.inf), "line": (-math.inf, math.inf)}[shape.kind]
    return p, r, lo, hi


def _edges(shape: Shape) -> list[Shape]:
    assert shape.points is not None
    pts = shape.points
    return [
        Shape(kind="segment", points=[pts[i], pts[(i + 1) % len(pts)]], center=None, radius=None)
        for i in range(len(pts))
        if math.dist(pts[i], pts[(i + 1) % len(pts)]) > 1e-12
    ]


def _in_range(t: float, lo: float, hi: float, scale: float) -> bool:
    tol = _TOL / max(scale, 1e-12)
    return lo - tol <= t <= hi + tol


def _linear_linear(a: Shape, b: Shape) -> list[vec.Vec]:
    p, r, alo, ahi = _linear(a)
    q, s, blo, bhi = _linear(b)
    hit = vec.ray_segment(p, r, q, vec.add(q, s))
    if hit is None:
        if abs(vec.cross(vec.sub(q, p), r)) > 1e-9 * vec.norm(r) * max(1.0, vec.norm(vec.sub(q, p))):
            return []  # parallel, distinct
        rr = vec.dot(r, r)  # collinear: overlap of the parameter ranges along a
        t0 = vec.dot(vec.sub(q, p), r) / rr
        t1 = vec.dot(vec.sub(vec.add(q, s), p), r) / rr
        ts = sorted([t0, t1])
        if b.kind == "ray":
            ts = [t0, math.inf] if t1 > t0 else [-math.inf, t0]
        elif b.kind == "line":
            ts = [-math.inf, math.inf]
        lo, hi = max(alo, ts[0]), min(ahi, ts[1])
        if lo > hi + _TOL or math.isinf(lo) or math.isinf(hi):
            if lo <= hi:
                raise ToolError("the two shapes overlap along an unbounded part of a line; intersect segments instead")
            return []
        return [vec.add(p, vec.mul(r, t)) for t in ([lo] if abs(hi - lo) < 1e-12 else [lo, hi])]
    t, u = hit
    if _in_range(t, alo, ahi, vec.norm(r)) and _in_range(u, blo, bhi, vec.norm(s)):
        return [vec.add(p, vec.mul(r, t))]
    return []


def _linear_circle(a: Shape, c: Shape) -> list[vec.Vec]:
    p, r, lo, hi = _linear(a)
    assert c.center is not None and c.radius is not None
    f = vec.sub(p, vec.v(c.center))
    qa, qb, qc = vec.dot(r, r), 2 * vec.dot(f, r), vec.dot(f, f) - c.radius**2
    disc = qb * qb - 4 * qa * qc
    if disc < -1e-9 * max(1.0, qb * qb):
        return []
    root = math.sqrt(max(disc, 0.0))
    ts = [(-qb - root) / (2 * qa), (-qb + root) / (2 * qa)]
    if root < 1e-12:
        ts = ts[:1]
    return [vec.add(p, vec.mul(r, t)) for t in ts if _in_range(t, lo, hi, vec.norm(r))]


def _circle_circle(a: Shape, b: Shape) -> list[vec.Vec]:
    assert a.center and b.center and a.radius and b.radius
    c0, c1 = vec.v(a.center), vec.v(b.center)
    d = math.dist(c0, c1)
    if d < 1e-12:
        if abs(a.radius - b.radius) < 1e-12:
            raise ToolError("the two circles are identical, so they meet everywhere; give two different circles")
        return []
    if d > a.radius + b.radius + 1e-9 or d < abs(a.radius - b.radius) - 1e-9:
        return []
    x = (d * d + a.radius**2 - b.radius**2) / (2 * d)
    h = math.sqrt(max(a.radius**2 - x * x, 0.0))
    e = vec.mul(vec.sub(c1, c0), 1 / d)
    base = vec.add(c0, vec.mul(e, x))
    if h < 1e-9:
        return [base]
    perp = (-e[1], e[0])
    return [vec.add(base, vec.mul(perp, h)), vec.sub(base, vec.mul(perp, h))]


def intersections(a: Shape, b: Shape) -> list[vec.Vec]:
    """Return the points where two shapes' outlines meet (for collinear overlaps: the overlap's ends)."""
    if a.kind == "point" or b.kind == "point":
        pt, other = (a, b) if a.kind == "point" else (b, a)
        assert pt.points is not None
        p = vec.v(pt.points[0])
        return [p] if distance_between(pt, other)[0] < 1e-6 else []
    if a.kind == "polygon" or b.kind == "polygon":
        poly, other = (a, b) if a.kind == "polygon" else (b, a)
        found: list[vec.Vec] = []
        for edge in _edges(poly):
            found.extend(intersections(edge, other))
        return _dedupe(found)
    if a.kind == "circle" and b.kind == "circle":
        return _circle_circle(a, b)
    if a.kind == "circle" or b.kind == "circle":
        circ, lin = (a, b) if a.kind == "circle" else (b, a)
        return _linear_circle(lin, circ)
    return _linear_linear(a, b)


def _dedupe(points: list[vec.Vec]) -> list[vec.Vec]:
    out: list[vec.Vec] = []
    for p in points:
        if all(math.dist(p, q) > 1e-6 for q in out):
            out.append(p)
    return out


def to_shapely(shape: Shape) -> SPoint | LineString | Polygon:
    """Return the shape as a shapely geometry (lines and rays are long segments; a circle is a disc)."""
    if shape.kind == "circle":
        assert shape.center is not None and shape.radius is not None
        return SPoint(shape.center).buffer(shape.radius, 256)
    assert shape.points is not None
    if shape.kind == "point":
        return SPoint(shape.points[0])
    if shape.kind == "polygon":
        poly = Polygon(shape.points)
        if not poly.is_valid or poly.area < 1e-12:
            raise ToolError("the polygon is degenerate or self-intersecting; list its vertices in order around it")
        return poly
    p, r, lo, hi = _linear(shape)
    u = vec.unit(r)
    start = p if lo == 0.0 else vec.sub(p, vec.mul(u, _FAR))
    end = vec.add(p, r) if hi == 1.0 else vec.add(p, vec.mul(u, _FAR))
    return LineString([start, end])


def distance_between(a: Shape, b: Shape) -> tuple[float, vec.Vec, vec.Vec]:
    """Return (distance, nearest point on a, nearest point on b); circles count as their discs' outlines."""
    ga, gb = _outline(a), _outline(b)
    pa, pb = nearest_points(ga, gb)
    return float(ga.distance(gb)), (pa.x, pa.y), (pb.x, pb.y)


def _outline(shape: Shape) -> SPoint | LineString | Polygon:
    if shape.kind == "circle":
        assert shape.center is not None and shape.radius is not None
        return SPoint(shape.center).buffer(shape.radius, 1024).exterior
    return to_shapely(shape)


def circle_from_points(p1: vec.Vec, p2: vec.Vec, p3: vec.Vec) -> tuple[vec.Vec, float]:
    """Return (centre, radius) of the circle through three points (ToolError when they are collinear)."""
    ax, ay = p1
    bx, by = p2
    cx, cy = p3
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    scale = max(1.0, max(abs(x) for x in (*p1, *p2, *p3))) ** 2
    if abs(d) < 1e-9 * scale:
        raise ToolError("the three points are collinear (or repeated), so no circle passes through them")
    a2, b2, c2 = ax * ax + ay * ay, bx * bx + by * by, cx * cx + cy * cy
    ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d
    uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d
    return (ux, uy), math.dist((ux, uy), p1)


def polygon_properties(points: list[vec.Vec]) -> dict[str, object]:
    """Return area, centroid, perimeter, convexity, side lengths and interior angles of a simple polygon."""
    poly = Polygon(points)
    if not poly.is_valid or poly.area < 1e-12:
        raise ToolError("the polygon is degenerate or self-intersecting; list at least 3 vertices in order around it")
    n = len(points)
    sides = [math.dist(points[i], points[(i + 1) % n]) for i in range(n)]
    orient = 1.0 if sum(vec.cross(points[i], points[(i + 1) % n]) for i in range(n)) > 0 else -1.0
    angles, turns = [], []
    for i in range(n):
        prev, cur, nxt = points[i - 1], points[i], points[(i + 1) % n]
        inner = vec.angle_between(vec.sub(prev, cur), vec.sub(nxt, cur))
        turn = vec.cross(vec.sub(cur, prev), vec.sub(nxt, cur)) * orient
        turns.append(turn)
        angles.append(inner if turn >= 0 else 360.0 - inner)
    c = poly.centroid
    return {
        "area": poly.area,
        "centroid": [c.x, c.y],
        "perimeter": poly.length,
        "convex": all(t >= -1e-9 for t in turns),
        "sides": sides,
        "angles": angles,
    }


def transform_points(points: list[vec.Vec], op: TransformOp) -> list[vec.Vec]:
    """Return the points translated, rotated or reflected as `op` says."""
    if op.translate is not None:
        t = vec.v(op.translate)
        return [vec.add(p, t) for p in points]
    if op.rotate is not None:
        return [vec.rotate(p, op.rotate.angle, vec.v(op.rotate.center)) for p in points]
    assert op.reflect is not None
    a, b = vec.v(op.reflect[0]), vec.v(op.reflect[1])
    return [vec.mirror_point(p, a, b) for p in points]


# ---------------------------------------------------------------- argument models


class TwoShapes(DrawArgs):
    a: Shape = Field(description="first shape")
    b: Shape = Field(description="second shape")


class AngleArgs(DrawArgs):
    vertex: Point = Field(description="the vertex of the angle")
    a: Point = Field(description="a point on the first arm")
    b: Point = Field(description="a point on the second arm")


class Rotation(Args):
    angle: Number = Field(description="degrees; positive turns counter-clockwise on screen (as canvas rotate)")
    center: Point = Field(description="centre of rotation")


class TransformOp(DrawArgs):
    shape: Shape = Field(description="the shape to map")
    translate: list[Number] | None = Field(None, min_length=2, max_length=2, description="[dx, dy]")
    rotate: Rotation | None = Field(None, description="rotation about a centre")
    reflect: Segment | None = Field(None, description="mirror line through two points [[x1, y1], [x2, y2]]")

    @model_validator(mode="after")
    def _one(self) -> TransformOp:
        given = [k for k in ("translate", "rotate", "reflect") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of translate, rotate or reflect")
        if self.reflect is not None:
            check_segment(self.reflect, "mirror line")
        return self


class ConstructArgs(DrawArgs):
    kind: Literal["perpendicular", "parallel"] = Field(description="the line to construct")
    line: Segment = Field(description="the reference line through two points")
    through: Point = Field(description="the point the new line passes through")

    @model_validator(mode="after")
    def _check(self) -> ConstructArgs:
        check_segment(self.line, "reference line")
        return self


class ThreePoints(DrawArgs):
    points: list[Point] = Field(min_length=3, max_length=3, description="three points [[x, y], [x, y], [x, y]]")


class TangentArgs(DrawArgs):
    circle: Shape = Field(description="a circle (kind circle, center, radius)")
    other: Shape = Field(description="a line, segment, ray or circle")
    tolerance: Number = Field(1.0, gt=0, le=100, description="pixels of gap or overlap still counted as tangent")

    @model_validator(mode="after")
    def _check(self) -> TangentArgs:
        if self.circle.kind != "circle":
            raise ValueError("`circle` must be a shape of kind 'circle'")
        if self.other.kind not in ("line", "segment", "ray", "circle"):
            raise ValueError("`other` must be a line, segment, ray or circle")
        return self


class PolygonArgs(DrawArgs):
    points: list[Point] = Field(min_length=3, max_length=2000, description="vertices in order [[x, y], ...]")


# ---------------------------------------------------------------- tools


def _fmt(p: vec.Vec) -> list[float]:
    return [round(p[0], 6), round(p[1], 6)]


@tool(
    "geometry",
    example={
        "a": {"kind": "segment", "points": [[0, 0], [100, 100]]},
        "b": {"kind": "circle", "center": [50, 50], "radius": 20},
    },
)
def intersect(args: TwoShapes, ctx: Context) -> Output:
    """Find where two shapes (point, segment, line, ray, circle, polygon outline) meet.

    Returns data.points ([[x, y], ...]) and, for two polygons, data.overlap_area; marks the points when draw.
    """
    pts = intersections(args.a, args.b)
    data: dict[str, object] = {"points": [_fmt(p) for p in pts], "count": len(pts)}
    if args.a.kind == "polygon" and args.b.kind == "polygon":
        data["overlap_area"] = to_shapely(args.a).intersection(to_shapely(args.b)).area
    if args.draw:
        for i, p in enumerate(pts[:50]):
            ctx.sketch.point(list(p), label=f"P{i + 1}", color=args.color)
    listed = ", ".join(f"({p[0]:.2f}, {p[1]:.2f})" for p in pts[:20]) or "none"
    return Output(f"{len(pts)} intersection point(s): {listed}.", data)


@tool(
    "geometry",
    example={"a": {"kind": "point", "points": [[10, 10]]}, "b": {"kind": "line", "points": [[0, 50], [100, 50]]}},
)
def measure_distance(args: TwoShapes, ctx: Context) -> Output:
    """Measure the shortest distance between two shapes (circles by their outline).

    Returns data.distance and data.closest ([point on a, point on b]); draws the connecting segment when draw.
    """
    d, pa, pb = distance_between(args.a, args.b)
    if args.draw and d > 1e-9:
        ctx.sketch.line(list(pa), list(pb), color=args.color, dashed=True)
    return Output(f"distance = {d:.4f} px", {"distance": d, "closest": [_fmt(pa), _fmt(pb)]})


@tool("geometry", example={"vertex": [100, 100], "a": [200, 100], "b": [100, 0]})
def measure_angle(args: AngleArgs, ctx: Context) -> Output:
    """Measure the angle at `vertex` between the arms towards `a` and `b`, in degrees.

    Returns data.angle (0 to 180), data.counterclockwise (from arm a to arm b, counter-clockwise on screen, 0 to
    360) and the arms' headings (degrees counter-clockwise on screen from +x).
    """
    o, a, b = vec.v(args.vertex), vec.v(args.a), vec.v(args.b)
    da, db = vec.sub(a, o), vec.sub(b, o)
    if vec.norm(da) < 1e-9 or vec.norm(db) < 1e-9:
        raise ToolError("`a` and `b` must differ from `vertex`; give a point on each arm")
    angle = vec.angle_between(da, db)
    ccw = (vec.heading(db) - vec.heading(da)) % 360.0
    if args.draw:
        ctx.sketch.line(args.vertex, args.a, color=args.color)
        ctx.sketch.line(args.vertex, args.b, color=args.color)
        ctx.sketch.text([o[0] + 8, o[1] - 8], f"{angle:.1f}°", color=args.color)
    data = {"angle": angle, "counterclockwise": ccw, "heading_a": vec.heading(da), "heading_b": vec.heading(db)}
    return Output(f"angle = {angle:.4f}° (counter-clockwise from a to b: {ccw:.4f}°)", data)


@tool(
    "geometry",
    example={
        "shape": {"kind": "polygon", "points": [[0, 0], [40, 0], [0, 30]]},
        "rotate": {"angle": 90, "center": [0, 0]},
    },
)
def transform_shape(args: TransformOp, ctx: Context) -> Output:
    """Translate, rotate (degrees, counter-clockwise on screen) or reflect a shape's coordinates (nothing is moved).

    Returns data.shape: the mapped shape in the same form as the input; draws it when draw.
    """
    shape = args.shape
    if shape.kind == "circle":
        assert shape.center is not None
        center = transform_points([vec.v(shape.center)], args)[0]
        out: dict[str, Any] = {"kind": "circle", "center": _fmt(center), "radius": shape.radius}
        if args.draw:
            ctx.sketch.circle(list(center), float(shape.radius or 0), color=args.color)
    else:
        assert shape.points is not None
        pts = transform_points([vec.v(p) for p in shape.points], args)
        out = {"kind": shape.kind, "points": [_fmt(p) for p in pts]}
        if args.draw:
            _draw_shape(ctx, shape.kind, pts, args.color)
    return Output(f"mapped {shape.kind}: {out}", {"shape": out})


def _draw_shape(ctx: Context, kind: str, pts: list[vec.Vec], color: str) -> None:
    if kind == "point":
        ctx.sketch.point(list(pts[0]), color=color)
    elif kind == "polygon":
        ctx.sketch.polygon([list(p) for p in pts], color=color)
    elif kind == "segment":
        ctx.sketch.line(list(pts[0]), list(pts[1]), color=color)
    else:
        ctx.sketch.arrow(list(pts[0]), list(pts[1]), color=color)


@tool("geometry", example={"kind": "perpendicular", "line": [[0, 100], [200, 100]], "through": [50, 20]})
def construct_line(args: ConstructArgs, ctx: Context) -> Output:
    """Construct the perpendicular or the parallel to a line through a given point.

    Returns data.points (two points of the new line), data.direction (unit) and, for a perpendicular, data.foot
    (where it meets the reference line); draws it when draw.
    """
    a, b = vec.v(args.line[0]), vec.v(args.line[1])
    p = vec.v(args.through)
    d = vec.unit(vec.sub(b, a))
    direction = (-d[1], d[0]) if args.kind == "perpendicular" else d
    foot = vec.add(a, vec.mul(d, vec.dot(vec.sub(p, a), d)))
    length = max(vec.norm(vec.sub(b, a)), 50.0)
    if args.kind == "perpendicular" and math.dist(foot, p) > 1e-9:
        q1, q2 = p, foot
    else:
        q1, q2 = vec.sub(p, vec.mul(direction, length / 2)), vec.add(p, vec.mul(direction, length / 2))
    data: dict[str, object] = {"points": [_fmt(q1), _fmt(q2)], "direction": _fmt(direction)}
    if args.kind == "perpendicular":
        data["foot"] = _fmt(foot)
        data["distance"] = math.dist(foot, p)
    if args.draw:
        ctx.sketch.line(list(q1), list(q2), color=args.color)
    return Output(f"{args.kind} through ({p[0]:g}, {p[1]:g}): {data}", data)


@tool("geometry", example={"points": [[0, 0], [100, 0], [0, 100]]})
def circle_through(args: ThreePoints, ctx: Context) -> Output:
    """Find the circle through three points.

    Returns data.center and data.radius; draws the circle when draw.
    """
    c, r = circle_from_points(*(vec.v(p) for p in args.points))
    if args.draw:
        ctx.sketch.circle(list(c), r, color=args.color)
    return Output(f"circle centre ({c[0]:.4f}, {c[1]:.4f}), radius {r:.4f}", {"center": _fmt(c), "radius": r})


@tool(
    "geometry",
    example={
        "circle": {"kind": "circle", "center": [100, 100], "radius": 50},
        "other": {"kind": "line", "points": [[0, 50], [200, 50]]},
    },
)
def check_tangent(args: TangentArgs, ctx: Context) -> Output:
    """Test whether a line, segment, ray or circle is tangent to a circle (within `tolerance` pixels).

    Returns data.tangent (bool), data.gap (distance minus the touching distance; negative = they cross) and
    data.point (the touching point) when tangent; marks the point when draw.
    """
    circ, other = args.circle, args.other
    assert circ.center is not None and circ.radius is not None
    c = vec.v(circ.center)
    if other.kind == "circle":
        assert other.center is not None and other.radius is not None
        d = math.dist(c, vec.v(other.center))
        outer, inner = d - (circ.radius + other.radius), d - abs(circ.radius - other.radius)
        gap = outer if abs(outer) <= abs(inner) else inner
        e = vec.unit(vec.sub(vec.v(other.center), c)) if d > 1e-12 else (1.0, 0.0)
        sign = 1.0 if abs(outer) <= abs(inner) or circ.radius >= other.radius else -1.0
        point = vec.add(c, vec.mul(e, sign * circ.radius))
    else:
        centre_dist, _, foot = distance_between(Shape(kind="point", points=[list(c)], center=None, radius=None), other)
        gap = centre_dist - circ.radius
        point = foot
    tangent = abs(gap) <= args.tolerance
    data: dict[str, object] = {"tangent": tangent, "gap": gap}
    if tangent:
        data["point"] = _fmt(point)
        if args.draw:
            ctx.sketch.point(list(point), label="T", color=args.color)
    verdict = "tangent" if tangent else ("apart" if gap > 0 else "crossing")
    return Output(f"{verdict}: gap {gap:.4f} px (tolerance {args.tolerance:g})", data)


@tool("geometry", example={"points": [[0, 0], [100, 0], [100, 50], [0, 50]]})
def analyze_polygon(args: PolygonArgs, ctx: Context) -> Output:
    """Compute a polygon's area, centroid, perimeter, side lengths, interior angles and convexity.

    Returns those in data (area in px², angles in degrees); marks the centroid when draw.
    """
    props = polygon_properties([vec.v(p) for p in args.points])
    if args.draw:
        c = props["centroid"]
        assert isinstance(c, list)
        ctx.sketch.point(c, label="G", color=args.color)
    return Output(
        f"area {props['area']:.4f} px², centroid ({props['centroid'][0]:.4f}, {props['centroid'][1]:.4f}), "  # type: ignore[index]
        f"perimeter {props['perimeter']:.4f} px, convex: {props['convex']}",
        props,
    )
