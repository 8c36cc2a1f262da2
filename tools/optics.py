"""Optics tools: light rays through mirrors, refracting interfaces and blocks; thin lenses; spherical and plane mirrors."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from mcot.tools import vec
from mcot.tools.args import MAX_ITEMS, Args, DrawArgs, Number, Point, Segment, Vector, check_segment
from mcot.tools.budget import check_time
from mcot.tools.errors import ToolError
from mcot.tools.registry import Context, Output, tool
from pydantic import Field, model_validator
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon

_EPS_T = 1e-7


class Surface(Args):
    """A mirror (segment), a refracting interface (segment with n1, n2) or a refracting block (polygon with n)."""

    kind: Literal["mirror", "interface", "block"] = Field(
        description="mirror: points=[[x1, y1], [x2, y2]]; interface: points plus n1 (side the ray first comes "
        "from) and n2; block: polygon=[[x, y], ...] and n"
    )
    points: Segment | None = Field(None, description="the segment's two end points (mirror, interface)")
    polygon: list[Point] | None = Field(None, min_length=3, max_length=500, description="block vertices in order")
    n1: Number | None = Field(None, ge=1.0, le=5.0, description="interface: refractive index on the incoming side")
    n2: Number | None = Field(None, ge=1.0, le=5.0, description="interface: refractive index on the other side")
    n: Number | None = Field(None, ge=1.0, le=5.0, description="block: refractive index inside")

    @model_validator(mode="after")
    def _check(self) -> Surface:
        if self.kind in ("mirror", "interface"):
            if self.points is None:
                raise ValueError(f"a {self.kind} needs 'points': [[x1, y1], [x2, y2]]")
            check_segment(self.points, self.kind)
            if self.kind == "interface" and (self.n1 is None or self.n2 is None):
                raise ValueError("an interface needs 'n1' and 'n2' (refractive indices, at least 1)")
        else:
            if self.polygon is None or self.n is None:
                raise ValueError("a block needs 'polygon': [[x, y], ...] (3+ vertices) and 'n' (index, at least 1)")
            poly = Polygon(self.polygon)
            if not poly.is_valid or poly.area < 1e-9:
                raise ValueError("the block polygon is degenerate or self-intersecting; list its vertices in order")
        return self


class LightRayArgs(DrawArgs):
    origin: Point = Field(description="where the ray starts")
    direction: Vector = Field(description="direction [dx, dy] (any length but not zero)")
    surfaces: list[Surface] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="mirrors, interfaces, blocks"
    )
    max_events: int = Field(20, ge=1, le=500, description="stop after this many reflections/refractions")
    n_ambient: Number = Field(1.0, ge=1.0, le=5.0, description="refractive index outside every block")


@dataclass
class _Edge:
    a: vec.Vec
    b: vec.Vec
    surface: int
    kind: str


@dataclass
class RayTrace:
    """The result of tracing a ray: its polyline and the events along it."""

    points: list[vec.Vec]
    events: list[dict[str, object]]


def _normal_against(a: vec.Vec, b: vec.Vec, d: vec.Vec) -> vec.Vec:
    e = vec.unit(vec.sub(b, a))
    n = (-e[1], e[0])
    return n if vec.dot(n, d) < 0 else (-n[0], -n[1])


def trace_ray(
    origin: vec.Vec,
    direction: vec.Vec,
    surfaces: list[Surface],
    box: tuple[float, float, float, float],
    max_events: int = 20,
    n_ambient: float = 1.0,
) -> RayTrace:
    """Return the path of a light ray from `origin` along `direction` until it leaves `box` or max_events pass.

    Mirrors reflect; interfaces and block edges refract by Snell's law (n1 sin θ1 = n2 sin θ2) or reflect
    totally beyond the critical angle. Angles in events are measured from the surface normal, in degrees.
    """
    x0, y0, x1, y1 = box
    if not (x0 <= origin[0] <= x1 and y0 <= origin[1] <= y1):
        raise ToolError(f"the origin {list(origin)} lies outside the canvas [{x0:g}, {y0:g}, {x1:g}, {y1:g}]")
    try:
        d = vec.unit(direction)
    except ValueError:
        raise ToolError("the direction is [0, 0]; give a non-zero direction [dx, dy]") from None
    edges: list[_Edge] = []
    blocks: dict[int, Polygon] = {}
    for i, s in enumerate(surfaces):
        if s.kind == "block":
            assert s.polygon is not None
            poly = Polygon(s.polygon)
            blocks[i] = poly
            if poly.buffer(-1e-9).contains(SPoint(origin)):
                raise ToolError(
                    f"the origin lies inside block {i}; start the ray outside every block "
                    "(or model the boundary it starts behind as an 'interface')"
                )
            pts = [vec.v(p) for p in s.polygon]
            for k in range(len(pts)):
                a, b = pts[k], pts[(k + 1) % len(pts)]
                if math.dist(a, b) > 1e-12:
                    edges.append(_Edge(a, b, i, "block"))
        else:
            assert s.points is not None
            edges.append(_Edge(vec.v(s.points[0]), vec.v(s.points[1]), i, s.kind))
    n1_side: dict[int, float] = {}
    p = origin
    points = [origin]
    events: list[dict[str, object]] = []
    while True:
        check_time("tracing the light ray")
        best_t, best = math.inf, None
        for edge in edges:
            hit = vec.ray_segment(p, d, edge.a, edge.b)
            if hit is None:
                continue
            t, u = hit
            if t > _EPS_T and -1e-9 <= u <= 1 + 1e-9 and t < best_t:
                best_t, best = t, edge
        t_exit, border_n = vec.ray_box_exit(p, d, box)
        if best is None or best_t >= t_exit:
            q = vec.add(p, vec.mul(d, t_exit))
            points.append(q)
            cos_b = max(-1.0, min(1.0, vec.dot(d, border_n)))
            ang = math.degrees(math.acos(cos_b))
            events.append({"type": "exit", "at": [q[0], q[1]], "angle_in": ang, "angle_out": ang})
            break
        q = vec.add(p, vec.mul(d, best_t))
        points.append(q)
        n = _normal_against(best.a, best.b, d)
        cos_i = -vec.dot(n, d)
        theta_i = math.degrees(math.acos(max(-1.0, min(1.0, cos_i))))
        if best.kind == "mirror":
            d = vec.unit(vec.reflect(d, n))
            events.append(
                {
                    "type": "reflect",
                    "at": [q[0], q[1]],
                    "angle_in": theta_i,
                    "angle_out": theta_i,
                    "surface": best.surface,
                }
            )
        else:
            if best.kind == "interface":
                s = surfaces[best.surface]
                side = math.copysign(1.0, vec.cross(vec.sub(best.b, best.a), vec.sub(p, best.a)))
                first = n1_side.setdefault(best.surface, side)
                n_from, n_to = (s.n1, s.n2) if side == first else (s.n2, s.n1)
            else:
                s = surfaces[best.surface]
                inside = blocks[best.surface].contains(SPoint(vec.add(q, vec.mul(d, -1e-6))))
                n_from, n_to = (s.n, n_ambient) if inside else (n_ambient, s.n)
            assert n_from is not None and n_to is not None
            eta = n_from / n_to
            sin_t2 = eta * eta * (1.0 - cos_i * cos_i)
            if sin_t2 > 1.0:
                d = vec.unit(vec.reflect(d, n))
                events.append(
                    {
                        "type": "tir",
                        "at": [q[0], q[1]],
                        "angle_in": theta_i,
                        "angle_out": theta_i,
                        "surface": best.surface,
                        "n1": n_from,
                        "n2": n_to,
                    }
                )
            else:
                cos_t = math.sqrt(1.0 - sin_t2)
                d = vec.unit(vec.add(vec.mul(d, eta), vec.mul(n, eta * cos_i - cos_t)))
                events.append(
                    {
                        "type": "refract",
                        "at": [q[0], q[1]],
                        "angle_in": theta_i,
                        "angle_out": math.degrees(math.asin(min(1.0, math.sqrt(sin_t2)))),
                        "surface": best.surface,
                        "n1": n_from,
                        "n2": n_to,
                    }
                )
        p = q
        if len(events) >= max_events:
            break
    return RayTrace(points, events)


@tool(
    "optics",
    example={
        "origin": [50, 300],
        "direction": [1, 0.3],
        "surfaces": [
            {"kind": "block", "polygon": [[200, 200], [400, 200], [400, 500], [200, 500]], "n": 1.5},
            {"kind": "mirror", "points": [[550, 100], [600, 600]]},
        ],
    },
)
def trace_light_ray(args: LightRayArgs, ctx: Context) -> Output:
    """Trace a light ray through mirrors (segments), refracting interfaces (segments, n1 on the side the ray first
    comes from, n2 beyond) and refracting blocks (polygons with index n), by the law of reflection, Snell's law
    and total internal reflection, until it leaves the canvas or max_events pass.

    Returns data.points (the polyline) and data.events ([{type: reflect|refract|tir|exit, at, angle_in,
    angle_out}], angles from the normal in degrees); draws the path when draw.
    """
    box = (0.0, 0.0, float(ctx.canvas.width), float(ctx.canvas.height))
    trace = trace_ray(vec.v(args.origin), vec.v(args.direction), args.surfaces, box, args.max_events, args.n_ambient)
    points = [[p[0], p[1]] for p in trace.points]
    if args.draw:
        ctx.sketch.path(points, arrow=True, color=args.color)
    summary = "; ".join(
        f"{e['type']} at ({e['at'][0]:.1f}, {e['at'][1]:.1f}) in {e['angle_in']:.2f}° out {e['angle_out']:.2f}°"  # type: ignore[index]
        for e in trace.events[:30]
    )
    return Output(f"{len(trace.events)} event(s): {summary}", {"points": points, "events": trace.events})


class LensArgs(DrawArgs):
    focal_length: Number = Field(description="focal length (positive: converging, negative: diverging)")
    object_distance: Number = Field(gt=0, description="distance of the object from the lens (> 0)")
    object_height: Number = Field(1.0, description="height of the object (up positive)")
    center: Point | None = Field(None, description="lens centre on the canvas, to draw the ray diagram")

    @model_validator(mode="after")
    def _check(self) -> LensArgs:
        if abs(self.focal_length) < 1e-12:
            raise ValueError("focal_length must not be 0")
        return self


class MirrorArgs(DrawArgs):
    kind: Literal["concave", "convex"] = Field(description="concave (converging) or convex (diverging)")
    focal_length: Number | None = Field(None, gt=0, description="|f| (> 0); or give radius")
    radius: Number | None = Field(None, gt=0, description="radius of curvature |R| = 2|f|")
    object_distance: Number = Field(gt=0, description="distance of the object in front of the mirror (> 0)")
    object_height: Number = Field(1.0, description="height of the object (up positive)")
    center: Point | None = Field(None, description="mirror vertex on the canvas, to draw the diagram")

    @model_validator(mode="after")
    def _check(self) -> MirrorArgs:
        if (self.focal_length is None) == (self.radius is None):
            raise ValueError("give exactly one of focal_length or radius")
        return self


def image_of(f: float, d_o: float) -> dict[str, object]:
    """Return the image by 1/f = 1/d_o + 1/d_i: distance (None at infinity), magnification, real, upright."""
    if abs(d_o - f) < 1e-12 * max(1.0, abs(f)):
        return {"image_distance": None, "magnification": None, "real": None, "upright": None, "at_infinity": True}
    d_i = 1.0 / (1.0 / f - 1.0 / d_o)
    m = -d_i / d_o
    return {
        "image_distance": d_i,
        "magnification": m,
        "real": d_i > 0,
        "upright": m > 0,
        "enlarged": abs(m) > 1,
        "at_infinity": False,
    }


def _describe(res: dict[str, object], height: float) -> str:
    if res["at_infinity"]:
        return "the object is at the focal point: the image is at infinity (parallel rays)"
    m = float(res["magnification"])  # type: ignore[arg-type]
    return (
        f"image distance {res['image_distance']:.4f}, magnification {m:.4f}, image height {m * height:.4f}: "
        f"{'real' if res['real'] else 'virtual'}, {'upright' if res['upright'] else 'inverted'}, "
        f"{'enlarged' if res['enlarged'] else 'reduced'}"
    )


@tool("optics", example={"focal_length": 10, "object_distance": 30, "object_height": 2})
def thin_lens(args: LensArgs, ctx: Context) -> Output:
    """Image formed by a thin lens: 1/f = 1/d_o + 1/d_i, m = -d_i/d_o (d_i > 0: real image behind the lens).

    Returns data.image_distance, magnification, image_height, real, upright; with `center` and draw, draws the
    axis, lens, object, image and principal rays (object to the left, distances in pixels).
    """
    res = image_of(args.focal_length, args.object_distance)
    if not res["at_infinity"]:
        res["image_height"] = float(res["magnification"]) * args.object_height  # type: ignore[arg-type]
    if args.draw and args.center is not None:
        _diagram(ctx, args.center, args.focal_length, args.object_distance, args.object_height, res, args.color, False)
    return Output(_describe(res, args.object_height), res)


@tool("optics", example={"kind": "concave", "focal_length": 10, "object_distance": 15})
def spherical_mirror(args: MirrorArgs, ctx: Context) -> Output:
    """Image formed by a concave or convex spherical mirror: 1/f = 1/d_o + 1/d_i with f = R/2 (negative for
    convex), m = -d_i/d_o (d_i > 0: real image in front of the mirror).

    Returns data.focal_length (signed), image_distance, magnification, image_height, real, upright; with `center`
    and draw, draws the diagram (object to the left of the mirror).
    """
    f = args.focal_length if args.focal_length is not None else float(args.radius or 0) / 2
    f = f if args.kind == "concave" else -f
    res = image_of(f, args.object_distance)
    res["focal_length"] = f
    if not res["at_infinity"]:
        res["image_height"] = float(res["magnification"]) * args.object_height  # type: ignore[arg-type]
    if args.draw and args.center is not None:
        _diagram(ctx, args.center, f, args.object_distance, args.object_height, res, args.color, True)
    return Output(f"f = {f:g}: " + _describe(res, args.object_height), res)


def _diagram(
    ctx: Context, center: list[float], f: float, d_o: float, h: float, res: dict[str, object], color: str, mirror: bool
) -> None:
    cx, cy = center
    span = max(abs(h) * 1.5, 40.0)
    reach = 3 * max(abs(f), d_o)
    ctx.sketch.line([cx - reach, cy], [cx + reach, cy], color="gray", width=1.0, dashed=True)
    ctx.sketch.line([cx, cy - span], [cx, cy + span], color="black", width=2.0)
    for sign in (1, -1):
        ctx.sketch.point([cx + sign * abs(f), cy], label="F", color="black", radius=3.0)
    obj_top = [cx - d_o, cy - h]
    ctx.sketch.arrow([cx - d_o, cy], obj_top, color="green")
    if res["at_infinity"]:
        return
    d_i = float(res["image_distance"])  # type: ignore[arg-type]
    m = float(res["magnification"])  # type: ignore[arg-type]
    ix = cx - d_i if mirror else cx + d_i
    img_top = [ix, cy - m * h]
    ctx.sketch.arrow([ix, cy], img_top, color=color)
    ctx.sketch.path([obj_top, [cx, cy - h], img_top], color=color, width=1.5)
    ctx.sketch.path([obj_top, [cx, cy], img_top], color=color, width=1.5)


class MirrorImageArgs(DrawArgs):
    mirror: Segment = Field(description="the plane mirror as two points [[x1, y1], [x2, y2]] (extended as a line)")
    points: list[Point] = Field(min_length=1, max_length=2000, description="points of the object [[x, y], ...]")
    closed: bool = Field(False, description="draw the image as a closed polygon (the object is a shape)")

    @model_validator(mode="after")
    def _check(self) -> MirrorImageArgs:
        check_segment(self.mirror, "mirror")
        return self


@tool(
    "optics", example={"mirror": [[300, 0], [300, 600]], "points": [[200, 100], [250, 150], [200, 200]], "closed": True}
)
def mirror_image(args: MirrorImageArgs, ctx: Context) -> Output:
    """Image of a point or shape in a plane mirror (the mirror line extended): each point reflected across it.

    Returns data.points (the image points, in the same order); draws them when draw.
    """
    a, b = vec.v(args.mirror[0]), vec.v(args.mirror[1])
    img = [vec.mirror_point(vec.v(p), a, b) for p in args.points]
    pts = [[p[0], p[1]] for p in img]
    if args.draw:
        if len(pts) == 1:
            ctx.sketch.point(pts[0], label="I", color=args.color)
        elif args.closed and len(pts) >= 3:
            ctx.sketch.polygon(pts, color=args.color)
        else:
            ctx.sketch.path(pts, color=args.color)
    return Output("image points: " + ", ".join(f"({p[0]:.2f}, {p[1]:.2f})" for p in pts[:40]), {"points": pts})
