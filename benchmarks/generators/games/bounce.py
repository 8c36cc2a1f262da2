"""A ball in a box with bricks: which brick it hits first and after how many wall bounces (exact reflections)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from mcot.benchmarks.generators.games._common import AnswerKind, Scene, place_choices, require, rounded
from mcot.benchmarks.generators.games._geometry import Vec, add, ray_segment, scale, segments_distance, unit
from mcot.benchmarks.generators.games._render import BLACK, LABEL_COLORS, MIRROR_GREY, SOURCE_RED, arrow, blank, disc
from PIL import Image

WIDTH, HEIGHT = 640, 480
BOX = (40.0, 40.0, 600.0, 440.0)  # inner faces of the walls: x0, y0, x1, y1
RADIUS = 8.0
CLEARANCE = 3.0
MAX_WALL_HITS = 4
BRICK_COLORS = ("blue", "orange", "purple", "magenta", "teal", "gold", "brown")  # not red: the arrow is red
KINDS = ("first_brick", "wall_bounces")


@dataclass(frozen=True)
class Brick:
    """A brick: an axis-aligned rectangle [x0, y0, x1, y1]."""

    label: str
    color: str
    rect: tuple[float, float, float, float]


@dataclass
class Bounces:
    """The ball's centre path, its ordered hits, the brick it ends on (index or None) and why it is fragile."""

    path: list[Vec]
    hits: list[dict[str, Any]]
    brick: int | None
    fragile: str | None = None


def _edges(rect: tuple[float, float, float, float]) -> list[tuple[str, Vec, Vec]]:
    x0, y0, x1, y1 = rect
    return [
        ("top", (x0, y0), (x1, y0)),
        ("right", (x1, y0), (x1, y1)),
        ("bottom", (x1, y1), (x0, y1)),
        ("left", (x0, y1), (x0, y0)),
    ]


def simulate(start: Vec, direction: Vec, bricks: list[Brick], radius: float = RADIUS) -> Bounces:
    """Return the path of a ball of `radius` from `start` along `direction` until it first touches a brick.

    The ball's centre reflects off the box shrunk by `radius` and touches a brick when it reaches the brick grown
    by `radius`; a contact on the grown rectangle's corner zone (where the true contact is a rounded corner) or
    within CLEARANCE px of a box corner marks the run fragile instead of being modelled.
    """
    bx0, by0, bx1, by1 = BOX
    walls = _edges((bx0 + radius, by0 + radius, bx1 - radius, by1 - radius))
    grown = [(b.rect[0] - radius, b.rect[1] - radius, b.rect[2] + radius, b.rect[3] + radius) for b in bricks]
    p, d = start, unit(direction)
    out = Bounces(path=[p], hits=[], brick=None)
    for _ in range(MAX_WALL_HITS + 1):
        best: tuple[float, str, int, str] | None = None
        for side, a, b in walls:
            hit = ray_segment(p, d, a, b)
            if hit and (best is None or hit[0] < best[0]):
                best = (hit[0], "wall", -1, side)
        for i, g in enumerate(grown):
            for side, a, b in _edges(g):
                hit = ray_segment(p, d, a, b)
                if hit and (best is None or hit[0] < best[0]):
                    best = (hit[0], "brick", i, side)
        if best is None:
            out.fragile = "ball lost"
            return out
        t, kind, index, side = best
        p = add(p, scale(d, t))
        out.path.append(p)
        if kind == "brick":
            x0, y0, x1, y1 = bricks[index].rect
            along = p[0] if side in ("top", "bottom") else p[1]
            lo, hi = (x0, x1) if side in ("top", "bottom") else (y0, y1)
            if not lo + CLEARANCE <= along <= hi - CLEARANCE:
                out.fragile = "the ball meets a brick at its corner"
            out.hits.append({"type": "brick", "label": bricks[index].color, "side": side, "at": rounded(p)})
            out.brick = index
            return out
        wx0, wy0, wx1, wy1 = bx0 + radius, by0 + radius, bx1 - radius, by1 - radius
        if min(abs(p[0] - wx0), abs(p[0] - wx1)) < CLEARANCE and min(abs(p[1] - wy0), abs(p[1] - wy1)) < CLEARANCE:
            out.fragile = "the ball reaches a corner of the box"
        out.hits.append({"type": "wall", "side": side, "at": rounded(p)})
        d = (-d[0], d[1]) if side in ("left", "right") else (d[0], -d[1])
        if abs(d[0]) < 0.05 or abs(d[1]) < 0.05:
            out.fragile = "the ball runs almost along a wall"
    out.fragile = f"no brick within {MAX_WALL_HITS} wall bounces"
    return out


def near_misses(result: Bounces, bricks: list[Brick], radius: float = RADIUS) -> bool:
    """Return True when the path passes within CLEARANCE px of touching a brick it does not hit."""
    for i, b in enumerate(bricks):
        x0, y0, x1, y1 = b.rect
        grown = (x0 - radius, y0 - radius, x1 + radius, y1 + radius)
        for k, (p, q) in enumerate(zip(result.path, result.path[1:], strict=False)):
            if i == result.brick and k == len(result.path) - 2:
                continue
            if _segment_rect_gap(p, q, grown) < CLEARANCE:
                return True
    return False


def _segment_rect_gap(p: Vec, q: Vec, rect: tuple[float, float, float, float]) -> float:
    """Return the distance between segment pq and a filled rectangle (0 when they meet)."""
    x0, y0, x1, y1 = rect
    if any(x0 <= x <= x1 and y0 <= y <= y1 for x, y in (p, q)):
        return 0.0
    return min(segments_distance(p, q, a, b) for _, a, b in _edges(rect))


def build(rng: random.Random) -> Scene:
    """Return one bounce item: the first brick hit (choice) or the wall bounces before it (number)."""
    kind = rng.choice(KINDS)
    colors = rng.sample(BRICK_COLORS, 4)
    bricks: list[Brick] = []
    for _ in range(200):
        if len(bricks) == 4:
            break
        w, h = float(rng.randint(50, 100)), float(rng.randint(22, 36))
        if rng.random() < 0.3:
            w, h = h, w
        x0, y0 = (
            float(rng.randint(int(BOX[0]) + 30, int(BOX[2] - w) - 30)),
            float(rng.randint(int(BOX[1]) + 30, int(BOX[3] - h) - 30)),
        )
        rect = (x0, y0, x0 + w, y0 + h)
        gap = 2 * RADIUS + 10
        if all(
            rect[0] - gap > b.rect[2]
            or b.rect[0] - gap > rect[2]
            or rect[1] - gap > b.rect[3]
            or b.rect[1] - gap > rect[3]
            for b in bricks
        ):
            bricks.append(Brick("ABCD"[len(bricks)], colors[len(bricks)], rect))
    require(len(bricks) == 4, "no room for four bricks")
    start = (float(rng.randint(70, 570)), float(rng.randint(70, 410)))
    require(all(_segment_rect_gap(start, start, b.rect) > 3 * RADIUS + 40 for b in bricks), "ball starts at a brick")
    angle = rng.uniform(0.0, 2 * math.pi)
    arrow_len = rng.uniform(40.0, 55.0)
    tip = (float(round(start[0] + arrow_len * math.cos(angle))), float(round(start[1] + arrow_len * math.sin(angle))))
    direction = (tip[0] - start[0], tip[1] - start[1])
    result = simulate(start, direction, bricks)
    require(result.brick is not None and result.fragile is None, result.fragile or "no brick hit")
    require(not near_misses(result, bricks), "the ball passes a hair from a brick")
    walls = sum(1 for h in result.hits if h["type"] == "wall")
    if kind == "wall_bounces":
        require(walls >= 1, "no bounce to count")
    for dx in (-1, 0, 1):  # an arrow tip read one pixel off must give the same answer
        for dy in (-1, 0, 1):
            wobble = simulate(start, (direction[0] + dx, direction[1] + dy), bricks)
            same = wobble.brick == result.brick and sum(1 for h in wobble.hits if h["type"] == "wall") == walls
            require(same, "answer changes when the arrow tip is read 1 px off")
    assert result.brick is not None
    image = _render(start, tip, bricks)
    hit = bricks[result.brick]
    intro = (
        f"A ball of radius {RADIUS:g} px, the black dot, starts where it is drawn and rolls in a straight line in the "
        "direction of the red arrow, without gravity or friction. It bounces elastically off the grey walls of the "
        "box (angle of incidence equals angle of reflection). The coloured rectangles are bricks. "
    )
    if kind == "first_brick":
        question = intro + "Which brick does the ball touch first?"
        choices, answer = place_choices(
            rng, f"the {hit.color} brick", [f"the {b.color} brick" for b in bricks if b is not hit]
        )
        answer_type: AnswerKind = "choice"
    else:
        question = intro + "How many times does the ball bounce off a wall before it first touches a brick?"
        choices, answer = None, str(walls)
        answer_type = "number"
    meta = {
        "kind": kind,
        "box": list(BOX),
        "ball": {"start": rounded(start), "radius": RADIUS},
        "direction": [direction[0], direction[1]],
        "arrow_tip": rounded(tip),
        "bricks": [{"label": b.color, "color": list(LABEL_COLORS[b.color]), "rect": list(b.rect)} for b in bricks],
        "path": [rounded(p) for p in result.path],
        "hits": result.hits,
        "wall_bounces": walls,
        "first_brick": hit.color,
    }
    return Scene(image=image, question=question, answer=answer, answer_type=answer_type, choices=choices, meta=meta)


def _render(start: Vec, tip: Vec, bricks: list[Brick]) -> Image.Image:
    """Return the scene: grey walls outside the box's inner faces, coloured bricks, the ball and its arrow."""
    image, draw = blank(WIDTH, HEIGHT)
    x0, y0, x1, y1 = BOX
    draw.rectangle([x0 - 8, y0 - 8, x1 + 7, y1 + 7], fill=MIRROR_GREY)
    draw.rectangle([x0, y0, x1 - 1, y1 - 1], fill=(255, 255, 255))
    for b in bricks:
        draw.rectangle([b.rect[0], b.rect[1], b.rect[2] - 1, b.rect[3] - 1], fill=LABEL_COLORS[b.color])
    disc(draw, start, RADIUS, BLACK)
    arrow(draw, start, tip, SOURCE_RED)
    return image
