"""Light among mirrors and glass blocks: which coloured target the ray reaches first (reflection, Snell, TIR)."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from typing import Any

from mcot.benchmarks.generators.games._common import FragileScene, Scene, place_choices, require, rounded
from mcot.benchmarks.generators.games._geometry import (
    Vec,
    add,
    incidence_degrees,
    length,
    normal_of,
    point_segment_distance,
    ray_segment,
    reflect,
    refract,
    rotate,
    scale,
    segments_distance,
    sub,
    unit,
)
from mcot.benchmarks.generators.games._render import (
    GLASS_BLUE,
    LABEL_COLORS,
    MIRROR_GREY,
    SOURCE_RED,
    arrow,
    blank,
    disc,
)
from PIL import Image
from shapely.geometry import LineString, Point, Polygon

WIDTH, HEIGHT = 640, 480
CLEARANCE = 3.0  # px: a ray passing this close to an edge, corner or mirror end makes a scene fragile
MAX_EVENTS = 20
GRAZING_DEGREES = 80.0
TARGET_COLORS = ("blue", "orange", "purple", "magenta", "teal", "brown", "gold")
INDICES = (1.33, 1.4, 1.5, 1.6, 1.7)


@dataclass(frozen=True)
class Mirror:
    """A flat two-sided mirror: the segment from `a` to `b` (the centre line of the drawn stroke)."""

    a: Vec
    b: Vec


@dataclass(frozen=True)
class Block:
    """A glass block: a convex polygon with refractive index `n` (air outside)."""

    polygon: tuple[Vec, ...]
    n: float

    def edges(self) -> list[tuple[Vec, Vec]]:
        """Return the polygon's edges as (start, end) pairs."""
        pts = self.polygon
        return [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]


@dataclass(frozen=True)
class Target:
    """An axis-aligned filled square the ray may end on."""

    label: str
    color: str
    center: Vec
    half: float

    def corners(self) -> list[Vec]:
        """Return the four corners, clockwise on screen from the top-left."""
        (x, y), h = self.center, self.half
        return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]

    def edges(self) -> list[tuple[Vec, Vec]]:
        """Return the four sides as (start, end) pairs."""
        c = self.corners()
        return [(c[i], c[(i + 1) % 4]) for i in range(4)]


@dataclass
class RayTrace:
    """The traced ray: its polyline, the optical events, the target it ends on (or None) and why it is fragile."""

    points: list[Vec]
    events: list[dict[str, Any]] = field(default_factory=list)
    hit: int | None = None
    hit_at: Vec | None = None
    fragile: str | None = None


def trace(
    origin: Vec,
    direction: Vec,
    mirrors: list[Mirror],
    blocks: list[Block],
    targets: list[Target],
    size: tuple[int, int] = (WIDTH, HEIGHT),
) -> RayTrace:
    """Return the ray's path until it ends on a target, leaves the picture or exceeds MAX_EVENTS events."""
    surfaces: list[tuple[str, int, Vec, Vec]] = [("mirror", i, m.a, m.b) for i, m in enumerate(mirrors)]
    surfaces += [("block", i, a, b) for i, blk in enumerate(blocks) for a, b in blk.edges()]
    surfaces += [("target", i, a, b) for i, tg in enumerate(targets) for a, b in tg.edges()]
    w, h = size
    surfaces += [
        ("border", 0, a, b) for a, b in (((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0)))
    ]
    p, d = origin, unit(direction)
    result = RayTrace(points=[p])
    inside: int | None = None
    for _ in range(MAX_EVENTS + 1):
        best: tuple[float, str, int, Vec, Vec] | None = None
        for kind, index, a, b in surfaces:
            hit = ray_segment(p, d, a, b)
            if hit is not None and (best is None or hit[0] < best[0]):
                best = (hit[0], kind, index, a, b)
        if best is None:  # numerically impossible inside the border; treat as leaving the picture
            result.fragile = "ray lost"
            return result
        t, kind, index, a, b = best
        p = add(p, scale(d, t))
        result.points.append(p)
        if kind == "border":
            result.events.append({"type": "exit", "at": rounded(p)})
            return result
        if kind == "target":
            result.hit, result.hit_at = index, p
            return result
        if len(result.events) >= MAX_EVENTS:
            result.fragile = f"more than {MAX_EVENTS} events"
            return result
        normal = normal_of(a, b)
        angle_in = incidence_degrees(d, normal)
        if angle_in > GRAZING_DEGREES:
            result.fragile = f"grazing incidence ({angle_in:.1f} deg)"
        if kind == "mirror":
            d = reflect(d, normal)
            result.events.append({"type": "reflect", "at": rounded(p), "angle_in": round(angle_in, 4)})
            continue
        n1, n2 = (blocks[index].n, 1.0) if inside == index else (1.0, blocks[index].n)
        sin_t = n1 / n2 * math.sin(math.radians(angle_in))
        if abs(sin_t - 1.0) < 0.02:
            result.fragile = "incidence within a hair of the critical angle"
        bent = refract(d, normal, n1, n2)
        if bent is None:
            d = reflect(d, normal)
            result.events.append({"type": "tir", "at": rounded(p), "angle_in": round(angle_in, 4)})
            continue
        angle_out = incidence_degrees(bent, normal)
        d = bent
        inside = None if inside == index else index
        result.events.append(
            {"type": "refract", "at": rounded(p), "angle_in": round(angle_in, 4), "angle_out": round(angle_out, 4)}
        )
    result.fragile = f"more than {MAX_EVENTS} events"
    return result


def fragility(result: RayTrace, mirrors: list[Mirror], blocks: list[Block], targets: list[Target]) -> str | None:
    """Return why the traced ray is too close to call (a corner, a mirror end, a target edge), or None."""
    if result.fragile:
        return result.fragile
    legs = list(zip(result.points, result.points[1:], strict=False))
    corners = [m.a for m in mirrors] + [m.b for m in mirrors] + [v for blk in blocks for v in blk.polygon]
    corners += [c for tg in targets for c in tg.corners()]
    for corner in corners:
        for a, b in legs:
            if point_segment_distance(corner, a, b) < CLEARANCE:
                return "ray passes within 3 px of a corner or mirror end"
    for i, tg in enumerate(targets):
        for j, (a, b) in enumerate(legs):
            if i == result.hit and j == len(legs) - 1:
                continue
            if min(segments_distance(a, b, e0, e1) for e0, e1 in tg.edges()) < CLEARANCE:
                return "ray passes within 3 px of a target it does not reach"
    return None


def build(rng: random.Random) -> Scene:
    """Return one ray item: which coloured square the light reaches first."""
    origin = (float(rng.randint(40, 200)), float(rng.randint(60, HEIGHT - 60)))
    angle = rng.uniform(-60.0, 60.0)
    arrow_len = rng.uniform(36.0, 48.0)
    direction = (round(arrow_len * math.cos(math.radians(angle))), round(arrow_len * math.sin(math.radians(angle))))
    require(direction != (0, 0), "no direction")
    mirrors: list[Mirror] = []
    blocks: list[Block] = []
    shapes: list[Any] = [Point(origin).buffer(12)]
    n_elements = rng.choice((1, 2, 2, 3, 3))
    for _ in range(n_elements):
        path = trace(origin, direction, mirrors, blocks, [])
        start, end = path.points[-2], path.points[-1]
        leg = length(sub(end, start))
        require(leg > 170, "last leg too short to place anything on")
        d = unit(sub(end, start))
        x = add(start, scale(d, rng.uniform(70.0, leg - 90.0)))
        if rng.random() < 0.6:
            shape = _place_mirror(rng, x, d, mirrors)
        else:
            shape = _place_block(rng, x, d, blocks)
        require(all(shape.distance(other) > 14 for other in shapes), "elements too close")
        require(Polygon([(8, 8), (WIDTH - 8, 8), (WIDTH - 8, HEIGHT - 8), (8, HEIGHT - 8)]).contains(shape), "off")
        shapes.append(shape)
    path = trace(origin, direction, mirrors, blocks, [])
    require(any(e["type"] != "exit" for e in path.events), "the ray meets nothing")
    start, end = path.points[-2], path.points[-1]
    leg = length(sub(end, start))
    require(leg > 100, "no room for the target")
    colors = rng.sample(TARGET_COLORS, 4)
    half = float(rng.randint(11, 15))
    center = add(start, scale(unit(sub(end, start)), rng.uniform(45.0, leg - 35.0)))
    center = (float(round(center[0])), float(round(center[1])))
    targets = [Target("A", colors[0], center, half)]
    route = LineString(path.points)
    shapes.append(Polygon(targets[0].corners()))
    naive = add(origin, scale(unit(direction), rng.uniform(160.0, 520.0)))  # where the ray would go unbent
    for attempt in range(60):
        if len(targets) == 4:
            break
        guess = naive if attempt == 0 else (rng.uniform(30, WIDTH - 30), rng.uniform(30, HEIGHT - 30))
        cand = Target(
            "ABCD"[len(targets)], colors[len(targets)], (float(round(guess[0])), float(round(guess[1]))), half
        )
        poly = Polygon(cand.corners())
        inside = Polygon([(4, 4), (WIDTH - 4, 4), (WIDTH - 4, HEIGHT - 4), (4, HEIGHT - 4)])
        if inside.contains(poly) and route.distance(poly) > 12 and all(poly.distance(s) > 12 for s in shapes):
            targets.append(cand)
            shapes.append(poly)
    require(len(targets) == 4, "no room for four targets")
    final = trace(origin, direction, mirrors, blocks, targets)
    require(final.hit == 0 and bool(final.events), "the ray does not end on the intended target after an event")
    require(fragility(final, mirrors, blocks, targets) is None, "fragile ray")
    for tilt in (-0.75, 0.75):  # an arrow read a little off must lead to the same target
        wobble = trace(origin, rotate(direction, tilt), mirrors, blocks, targets)
        require(wobble.hit == 0, "answer changes when the arrow is read 0.75 degrees off")

    order = rng.sample(range(4), 4)  # target labels in the question do not reveal which is right
    targets = [targets[i] for i in order]
    hit = order.index(0)
    image = _render(origin, direction, mirrors, blocks, targets)
    choices, answer = place_choices(
        rng, f"the {targets[hit].color} square", [f"the {t.color} square" for i, t in enumerate(targets) if i != hit]
    )
    question = (
        "A thin light ray starts at the centre of the red dot and travels in the direction of the red arrow. "
        "Dark grey line segments are flat mirrors, reflective on both sides (angle of incidence equals angle of "
        f"reflection). {_glass_sentence(blocks)}The ray refracts where it enters or leaves glass (Snell's law) and "
        "is totally internally reflected where no refracted ray exists. The ray stops at the first coloured square "
        "it reaches. Which square does it reach?"
    )
    meta = {
        "origin": rounded(origin),
        "direction": [float(direction[0]), float(direction[1])],
        "arrow_tip": rounded(add(origin, direction)),
        "surfaces": [{"kind": "mirror", "points": [rounded(m.a), rounded(m.b)]} for m in mirrors]
        + [{"kind": "block", "polygon": [rounded(v) for v in b.polygon], "n": b.n} for b in blocks],
        "targets": [
            {
                "label": t.color,
                "color": list(LABEL_COLORS[t.color]),
                "center": rounded(t.center),
                "half": t.half,
                "box": [t.center[0] - t.half, t.center[1] - t.half, t.center[0] + t.half, t.center[1] + t.half],
            }
            for t in targets
        ],
        "path": [rounded(p) for p in final.points],
        "events": final.events,
        "hit": {"target": targets[hit].color, "index": hit, "at": rounded(final.hit_at or final.points[-1])},
    }
    return Scene(image=image, question=question, answer=answer, answer_type="choice", choices=choices, meta=meta)


def _place_mirror(rng: random.Random, x: Vec, d: Vec, mirrors: list[Mirror]) -> Any:
    """Add a mirror across the ray at `x`, at a clear angle of incidence; return its shape for spacing checks."""
    incidence = rng.uniform(15.0, 65.0) * rng.choice((-1.0, 1.0))
    normal = rotate((-d[0], -d[1]), incidence)
    along = (-normal[1], normal[0])
    half = rng.uniform(26.0, 44.0)
    a = add(x, scale(along, half))
    b = add(x, scale(along, -half))
    mirror = Mirror((float(round(a[0])), float(round(a[1]))), (float(round(b[0])), float(round(b[1]))))
    mirrors.append(mirror)
    return LineString([mirror.a, mirror.b]).buffer(2)


def _place_block(rng: random.Random, x: Vec, d: Vec, blocks: list[Block]) -> Any:
    """Add a glass block (a rotated rectangle or a triangular prism) across the ray; return its shape."""
    center = add(x, scale(d, rng.uniform(35.0, 55.0)))
    center = add(center, scale((-d[1], d[0]), rng.uniform(-12.0, 12.0)))
    turn = rng.uniform(0.0, 360.0)
    if rng.random() < 0.5:
        w, h = rng.uniform(50.0, 100.0), rng.uniform(40.0, 80.0)
        local = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    else:
        r = rng.uniform(40.0, 60.0)
        local = [(r * math.cos(math.radians(a)), r * math.sin(math.radians(a))) for a in (90.0, 210.0, 330.0)]
    polygon = tuple((float(round(px)), float(round(py))) for px, py in (add(center, rotate(v, turn)) for v in local))
    blocks.append(Block(polygon, rng.choice(INDICES)))
    return Polygon(polygon)


def _glass_sentence(blocks: list[Block]) -> str:
    """Return the sentence giving the refractive index of each glass block, or '' when there is none."""
    if not blocks:
        return ""
    if len(blocks) == 1:
        return f"The light-blue polygon is a glass block with refractive index n = {blocks[0].n}; the rest is air (n = 1). "
    by_x = sorted(blocks, key=lambda b: sum(v[0] for v in b.polygon) / len(b.polygon))
    xs = [sum(v[0] for v in b.polygon) / len(b.polygon) for b in by_x]
    if any(b - a < 40 for a, b in itertools.pairwise(xs)):
        raise FragileScene("glass blocks cannot be told apart left to right")
    listing = ", ".join(f"n = {b.n}" for b in by_x)
    return (
        f"The light-blue polygons are glass blocks; from left to right (by their centres) their refractive indices "
        f"are {listing}; the rest is air (n = 1). "
    )


def _render(
    origin: Vec, direction: Vec, mirrors: list[Mirror], blocks: list[Block], targets: list[Target]
) -> Image.Image:
    """Return the scene: glass blocks, 4 px grey mirrors, target squares, the red source dot and arrow."""
    image, draw = blank(WIDTH, HEIGHT)
    for blk in blocks:
        draw.polygon(list(blk.polygon), fill=GLASS_BLUE)
    for m in mirrors:
        draw.line([m.a, m.b], fill=MIRROR_GREY, width=4)
    for t in targets:
        (x, y), h = t.center, t.half
        draw.rectangle([x - h, y - h, x + h - 1, y + h - 1], fill=LABEL_COLORS[t.color])
    disc(draw, origin, 7, SOURCE_RED)
    arrow(draw, origin, add(origin, direction), SOURCE_RED)
    return image
