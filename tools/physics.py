"""Physics tools on pymunk geometry: a ray among walls, a projectile among obstacles, a ball bouncing among bricks."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from mcot.tools import vec
from mcot.tools.args import MAX_ITEMS, Args, Box, DrawArgs, Number, Point, Segment, Vector, check_segment
from mcot.tools.budget import check_time
from mcot.tools.errors import ToolError
from mcot.tools.registry import Context, Output, tool
from pydantic import Field, model_validator

if TYPE_CHECKING:
    import pymunk  # imported where it is used: 0.1-0.2 s that a run not calling these tools never pays

_MAX_DRAWN_POINTS = 400


def _space() -> pymunk.Space:
    import pymunk

    return pymunk.Space()


def _first_hit(
    space: pymunk.Space, start: vec.Vec, end: vec.Vec, radius: float, min_dist: float = 0.0
) -> pymunk.SegmentQueryInfo | None:
    """Return the nearest hit along start→end that the mover meets head-on (not one it is leaving)."""
    length = math.dist(start, end)
    if length < 1e-12:
        return None
    d = vec.mul(vec.sub(end, start), 1 / length)
    best = None
    # Each shape is asked directly: the space's broad phase culls by the shapes' bounding boxes without the
    # query's radius, so a ball grazing a brick's face would be missed (pymunk 7.3).
    for shape in space.shapes:
        info = shape.segment_query(start, end, radius)
        if info is None or info.shape is None:
            continue
        if vec.dot(d, (info.normal.x, info.normal.y)) >= -1e-12:
            continue  # touching but moving away or sliding along
        if info.alpha * length < min_dist:
            continue  # the surface just left
        if best is None or info.alpha < best.alpha:
            best = info
    return best


# ---------------------------------------------------------------- cast_ray


class CastRayArgs(DrawArgs):
    origin: Point = Field(description="where the ray starts")
    direction: Vector = Field(description="direction [dx, dy] (not zero)")
    walls: list[Segment] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="mirror walls [[[x1, y1], [x2, y2]], ...]"
    )
    max_bounces: int = Field(20, ge=0, le=500, description="stop after this many bounces")
    border: Literal["stop", "reflect"] = Field("stop", description="what the canvas border does to the ray")

    @model_validator(mode="after")
    def _check(self) -> CastRayArgs:
        for w in self.walls:
            check_segment(w, "wall")
        return self


def cast(
    origin: vec.Vec,
    direction: vec.Vec,
    walls: list[list[list[float]]],
    box: tuple[float, float, float, float],
    max_bounces: int = 20,
    border: str = "stop",
) -> dict[str, object]:
    """Return the path of a ray bouncing specularly off wall segments (and the border when it reflects).

    Result: {"points", "hits": [{"wall": index | "border", "at", "angle_in"}], "end": "border"|"max_bounces"}.
    """
    x0, y0, x1, y1 = box
    if not (x0 <= origin[0] <= x1 and y0 <= origin[1] <= y1):
        raise ToolError(f"the origin {list(origin)} lies outside the canvas [{x0:g}, {y0:g}, {x1:g}, {y1:g}]")
    try:
        d = vec.unit(direction)
    except ValueError:
        raise ToolError("the direction is [0, 0]; give a non-zero direction [dx, dy]") from None
    import pymunk

    space = _space()
    labels: dict[pymunk.Shape, int | str] = {}
    for i, (a, b) in enumerate(walls):
        seg = pymunk.Segment(space.static_body, vec.v(a), vec.v(b), 0.0)
        space.add(seg)
        labels[seg] = i
    if border == "reflect":
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        for k in range(4):
            seg = pymunk.Segment(space.static_body, corners[k], corners[(k + 1) % 4], 0.0)
            space.add(seg)
            labels[seg] = "border"
    reach = 2 * math.hypot(x1 - x0, y1 - y0) + 10
    p = origin
    points = [origin]
    hits: list[dict[str, object]] = []
    while True:
        check_time("casting the ray")
        end = vec.add(p, vec.mul(d, reach))
        info = _first_hit(space, p, end, 0.0, min_dist=1e-7)
        t_exit, _ = vec.ray_box_exit(p, d, box)
        if info is None or (labels[info.shape] != "border" and info.alpha * reach > t_exit + 1e-9):
            q = vec.add(p, vec.mul(d, t_exit))
            points.append(q)
            return {"points": [list(pt) for pt in points], "hits": hits, "end": "border"}
        q = (info.point.x, info.point.y)
        n = (info.normal.x, info.normal.y)
        angle_in = math.degrees(math.acos(max(-1.0, min(1.0, -vec.dot(d, n)))))
        points.append(q)
        hits.append({"wall": labels[info.shape], "at": [q[0], q[1]], "angle_in": angle_in})
        if len(hits) > max_bounces:
            hits.pop()
            return {"points": [list(pt) for pt in points], "hits": hits, "end": "max_bounces"}
        d = vec.unit(vec.reflect(d, n))
        p = q


@tool("physics", example={"origin": [20, 20], "direction": [1, 1], "walls": [[[300, 0], [300, 640]]]})
def cast_ray(args: CastRayArgs, ctx: Context) -> Output:
    """Cast a ray among wall segments; it bounces specularly (angle in = angle out) until it leaves the canvas
    (border "stop") or has bounced max_bounces times.

    Returns data.points (the polyline), data.hits ([{wall: index or "border", at, angle_in}] in order, angles
    from the normal in degrees) and data.end ("border" or "max_bounces"); draws the path when draw.
    """
    box = (0.0, 0.0, float(ctx.canvas.width), float(ctx.canvas.height))
    res = cast(vec.v(args.origin), vec.v(args.direction), args.walls, box, args.max_bounces, args.border)
    if args.draw:
        ctx.sketch.path(res["points"], arrow=True, color=args.color)  # type: ignore[arg-type]
    hits = res["hits"]
    assert isinstance(hits, list)
    listed = "; ".join(f"wall {h['wall']} at ({h['at'][0]:.1f}, {h['at'][1]:.1f})" for h in hits[:30])
    end = res["points"][-1]  # type: ignore[index]
    return Output(
        f"{len(hits)} bounce(s): {listed or 'none'}; ends at ({end[0]:.1f}, {end[1]:.1f}) ({res['end']})", res
    )


# ---------------------------------------------------------------- simulate_projectile


class Obstacle(Args):
    """A static obstacle: a segment or a circle."""

    kind: Literal["segment", "circle"] = Field(description="segment: points; circle: center and radius")
    points: Segment | None = Field(None, description="segment end points [[x1, y1], [x2, y2]]")
    center: Point | None = Field(None, description="circle centre")
    radius: Number | None = Field(None, gt=0, description="circle radius (> 0)")

    @model_validator(mode="after")
    def _check(self) -> Obstacle:
        if self.kind == "segment":
            if self.points is None:
                raise ValueError("a segment obstacle needs 'points': [[x1, y1], [x2, y2]]")
            check_segment(self.points, "segment obstacle")
        elif self.center is None or self.radius is None:
            raise ValueError("a circle obstacle needs 'center': [x, y] and 'radius' > 0")
        return self


class ProjectileArgs(DrawArgs):
    origin: Point = Field(description="launch point")
    velocity: Vector = Field(description="initial velocity [vx, vy] in px/s (y down: negative vy goes up)")
    gravity: Number = Field(9.8, ge=-1e6, le=1e6, description="acceleration toward +y (down), px/s²")
    obstacles: list[Obstacle] = Field(default_factory=list, max_length=MAX_ITEMS, description="static obstacles")
    radius: Number = Field(0.0, ge=0, le=1000, description="ball radius (0 = a point)")
    t_max: Number = Field(10.0, gt=0, le=1000, description="simulated seconds at most")


def fly(
    origin: vec.Vec,
    velocity: vec.Vec,
    gravity: float,
    obstacles: list[Obstacle],
    box: tuple[float, float, float, float] | None,
    radius: float = 0.0,
    t_max: float = 10.0,
) -> dict[str, object]:
    """Return the trajectory p(t) = p0 + v t + g t²/2 (g toward +y) until it first hits an obstacle.

    Hits are found with pymunk segment queries along the flight and refined by bisection to ~1e-9 s.
    Result: {"points", "hit": {"index", "at", "t"} | None, "t_end", "end": "hit"|"left_canvas"|"t_max"}.
    """
    import pymunk

    space = _space()
    index: dict[pymunk.Shape, int] = {}
    for i, ob in enumerate(obstacles):
        if ob.kind == "segment":
            assert ob.points is not None
            shape: pymunk.Shape = pymunk.Segment(space.static_body, vec.v(ob.points[0]), vec.v(ob.points[1]), 0.0)
        else:
            assert ob.center is not None and ob.radius is not None
            shape = pymunk.Circle(space.static_body, ob.radius, vec.v(ob.center))
        space.add(shape)
        index[shape] = i

    def at(t: float) -> vec.Vec:
        return (origin[0] + velocity[0] * t, origin[1] + velocity[1] * t + 0.5 * gravity * t * t)

    def chord_hit(ta: float, tb: float) -> pymunk.SegmentQueryInfo | None:
        return _first_hit(space, at(ta), at(tb), radius)

    steps = min(20000, max(200, math.ceil(t_max / 0.005)))
    dt = t_max / steps
    points = [origin]
    t = 0.0
    for k in range(1, steps + 1):
        if k % 256 == 0:
            check_time("simulating the projectile")
        t_next = k * dt
        info = chord_hit(t, t_next)
        if info is not None:
            lo, hi = t, t_next
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if chord_hit(lo, mid) is not None:
                    hi = mid
                elif chord_hit(mid, hi) is not None:
                    lo = mid
                else:
                    break
            final = chord_hit(lo, hi) or info
            a, b = at(lo), at(hi)
            centre = vec.add(a, vec.mul(vec.sub(b, a), final.alpha))
            t_hit = lo + final.alpha * (hi - lo)
            points.append(centre)
            hit = {
                "index": index[final.shape],
                "at": [centre[0], centre[1]],
                "t": t_hit,
                "contact": [final.point.x, final.point.y],
            }
            return {"points": _thin(points), "hit": hit, "t_end": t_hit, "end": "hit"}
        p = at(t_next)
        points.append(p)
        t = t_next
        if box is not None:
            vx, vy = velocity[0], velocity[1] + gravity * t
            x0, _y0, x1, y1 = box
            margin = radius + 1.0
            if (
                (p[0] < x0 - margin and vx <= 0)
                or (p[0] > x1 + margin and vx >= 0)
                or (p[1] > y1 + margin and vy >= 0 and gravity >= 0)
            ):
                return {"points": _thin(points), "hit": None, "t_end": t, "end": "left_canvas"}
    return {"points": _thin(points), "hit": None, "t_end": t, "end": "t_max"}


def _thin(points: list[vec.Vec]) -> list[list[float]]:
    step = max(1, math.ceil(len(points) / _MAX_DRAWN_POINTS))
    kept = points[::step]
    if kept[-1] != points[-1]:
        kept.append(points[-1])
    return [[p[0], p[1]] for p in kept]


@tool(
    "physics",
    example={
        "origin": [20, 600],
        "velocity": [30, -30],
        "gravity": 9.8,
        "obstacles": [{"kind": "segment", "points": [[0, 600], [640, 600]]}],
    },
)
def simulate_projectile(args: ProjectileArgs, ctx: Context) -> Output:
    """Fly a point (or a ball of `radius`) under gravity (toward +y, px/s²) among static segment and circle
    obstacles, until the first obstacle hit, leaving the canvas, or t_max seconds.

    Returns data.points (the trajectory) and data.hit ({index, at: ball centre, t} or null), data.end; draws the
    trajectory and the hit point when draw.
    """
    box = (0.0, 0.0, float(ctx.canvas.width), float(ctx.canvas.height))
    res = fly(vec.v(args.origin), vec.v(args.velocity), args.gravity, args.obstacles, box, args.radius, args.t_max)
    hit = res["hit"]
    if args.draw:
        ctx.sketch.path(res["points"], color=args.color)  # type: ignore[arg-type]
        if isinstance(hit, dict):
            ctx.sketch.point(hit["at"], label=f"hit {hit['index']}", color=args.color)
    if isinstance(hit, dict):
        text = (
            f"hits obstacle {hit['index']} at ({hit['at'][0]:.3f}, {hit['at'][1]:.3f}) after t = {hit['t']:.4f} s; "
            f"horizontal distance {hit['at'][0] - args.origin[0]:.3f} px"
        )
    else:
        last = res["points"][-1]  # type: ignore[index]
        text = f"no obstacle hit ({res['end']}); last point ({last[0]:.2f}, {last[1]:.2f}) at t = {res['t_end']:.3f} s"
    return Output(text, res)


# ---------------------------------------------------------------- simulate_bounces


class BouncesArgs(DrawArgs):
    origin: Point = Field(description="ball centre at the start")
    velocity: Vector = Field(description="velocity [vx, vy] in px/s")
    radius: Number = Field(5.0, ge=0, le=1000, description="ball radius")
    box: Box | None = Field(None, description="walls of the box [x0, y0, x1, y1]; default the canvas border")
    bricks: list[Box] = Field(default_factory=list, max_length=MAX_ITEMS, description="bricks [[x0, y0, x1, y1], ...]")
    remove_bricks: bool = Field(False, description="a brick disappears once hit (breakout)")
    max_bounces: int = Field(20, ge=1, le=1000, description="stop after this many hits")
    t_max: Number = Field(1000.0, gt=0, le=1e6, description="simulated seconds at most")


def bounce(
    origin: vec.Vec,
    velocity: vec.Vec,
    radius: float,
    box: tuple[float, float, float, float],
    bricks: list[list[float]],
    remove_bricks: bool = False,
    max_bounces: int = 20,
    t_max: float = 1000.0,
) -> dict[str, object]:
    """Return the path and ordered hits of a ball moving in straight lines with elastic bounces.

    Result: {"points", "hits": [{"kind": "wall"|"brick", "index": side name or brick index, "at", "t"}], "end"}.
    """
    x0, y0, x1, y1 = box
    if x1 - x0 <= 2 * radius or y1 - y0 <= 2 * radius:
        raise ToolError("the box is too small for the ball; give [x0, y0, x1, y1] with x1 > x0, y1 > y0")
    if not (x0 + radius <= origin[0] <= x1 - radius and y0 + radius <= origin[1] <= y1 - radius):
        raise ToolError("the ball does not fit inside the box at its origin; move the origin or shrink the radius")
    speed = vec.norm(velocity)
    if speed < 1e-12:
        raise ToolError("the velocity is [0, 0]; give a non-zero velocity [vx, vy]")
    import pymunk

    space = _space()
    labels: dict[pymunk.Shape, tuple[str, int | str]] = {}
    sides = {
        "top": ((x0, y0), (x1, y0)),
        "right": ((x1, y0), (x1, y1)),
        "bottom": ((x1, y1), (x0, y1)),
        "left": ((x0, y1), (x0, y0)),
    }
    for name, (a, b) in sides.items():
        seg = pymunk.Segment(space.static_body, a, b, 0.0)
        space.add(seg)
        labels[seg] = ("wall", name)
    for i, (bx0, by0, bx1, by1) in enumerate(bricks):
        lo_x, hi_x, lo_y, hi_y = min(bx0, bx1), max(bx0, bx1), min(by0, by1), max(by0, by1)
        if hi_x - lo_x < 1e-9 or hi_y - lo_y < 1e-9:
            raise ToolError(f"brick {i} has no area; give [x0, y0, x1, y1] with x0 != x1 and y0 != y1")
        poly = pymunk.Poly(space.static_body, [(lo_x, lo_y), (hi_x, lo_y), (hi_x, hi_y), (lo_x, hi_y)])
        space.add(poly)
        labels[poly] = ("brick", i)
        if lo_x - radius < origin[0] < hi_x + radius and lo_y - radius < origin[1] < hi_y + radius:
            q = poly.point_query(origin)
            if q.distance < radius - 1e-9:
                raise ToolError(f"the ball overlaps brick {i} at its origin; start it clear of every brick")
    p, v, t = origin, velocity, 0.0
    points = [origin]
    hits: list[dict[str, object]] = []
    reach = 2 * math.hypot(x1 - x0, y1 - y0) + 10
    while len(hits) < max_bounces:
        check_time("simulating the bounces")
        d = vec.unit(v)
        info = _first_hit(space, p, vec.add(p, vec.mul(d, reach)), radius)
        if info is None:  # cannot happen inside a closed box; guard anyway
            break
        travel = info.alpha * reach
        if t + travel / speed > t_max:
            p = vec.add(p, vec.mul(d, (t_max - t) * speed))
            points.append(p)
            return {"points": [list(q) for q in points], "hits": hits, "end": "t_max", "t_end": t_max}
        p = vec.add(p, vec.mul(d, travel))
        t += travel / speed
        points.append(p)
        kind, idx = labels[info.shape]
        hits.append({"kind": kind, "index": idx, "at": [p[0], p[1]], "t": t})
        v = vec.reflect(v, (info.normal.x, info.normal.y))
        if kind == "brick" and remove_bricks:
            space.remove(info.shape)
    return {"points": [list(q) for q in points], "hits": hits, "end": "max_bounces", "t_end": t}


@tool(
    "physics",
    example={
        "origin": [320, 600],
        "velocity": [120, -200],
        "radius": 5,
        "bricks": [[200, 100, 300, 130], [400, 100, 500, 130]],
        "max_bounces": 6,
    },
)
def simulate_bounces(args: BouncesArgs, ctx: Context) -> Output:
    """Bounce a ball (elastic, no gravity, no friction) inside a box with rectangular bricks.

    Returns data.hits: what it hits, in order ([{kind: wall|brick, index: side or brick number, at: ball centre,
    t}]), and data.points (the path); draws the path and numbers the hits when draw.
    """
    box = (
        (args.box[0], args.box[1], args.box[2], args.box[3])
        if args.box
        else (0.0, 0.0, float(ctx.canvas.width), float(ctx.canvas.height))
    )
    res = bounce(
        vec.v(args.origin),
        vec.v(args.velocity),
        args.radius,
        box,
        args.bricks,
        args.remove_bricks,
        args.max_bounces,
        args.t_max,
    )
    hits = res["hits"]
    assert isinstance(hits, list)
    if args.draw:
        ctx.sketch.path(res["points"], arrow=True, color=args.color)  # type: ignore[arg-type]
        for k, h in enumerate(hits[:50]):
            ctx.sketch.text([h["at"][0] + 6, h["at"][1] - 6], str(k + 1), color=args.color, size=12.0)
    listed = ", ".join(f"{h['kind']} {h['index']}" for h in hits)
    return Output(f"{len(hits)} hit(s) in order: {listed or 'none'} ({res['end']})", res)
