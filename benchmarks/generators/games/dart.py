"""A dart thrown under gravity: which balloon it pops first (closed-form parabola, quartic roots)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
from mcot.benchmarks.generators.games._common import Scene, place_choices, require, rounded
from mcot.benchmarks.generators.games._geometry import Vec
from mcot.benchmarks.generators.games._render import BLACK, LABEL_COLORS, SOURCE_RED, arrow, blank, disc
from PIL import Image

WIDTH, HEIGHT = 640, 480
DART_WIDTH = 8.0  # px: balloons closer than this to each other, or to the path, make a scene fragile
BALLOON_COLORS = ("blue", "orange", "purple", "magenta", "teal", "gold", "brown")


@dataclass(frozen=True)
class Balloon:
    """A balloon: a filled circle of `radius` px around `center`."""

    label: str
    color: str
    center: Vec
    radius: float


def position(origin: Vec, velocity: Vec, gravity: float, t: float) -> Vec:
    """Return the dart's position at time `t` s (gravity pulls toward +y, in px/s²)."""
    return (origin[0] + velocity[0] * t, origin[1] + velocity[1] * t + 0.5 * gravity * t * t)


def first_contact(origin: Vec, velocity: Vec, gravity: float, center: Vec, radius: float) -> float | None:
    """Return the first time t > 0 at which the dart is `radius` from `center` (a quartic in t), or None."""
    dx, dy = origin[0] - center[0], origin[1] - center[1]
    vx, vy = velocity
    a = 0.5 * gravity
    coeffs = [a * a, 2 * a * vy, vy * vy + 2 * a * dy + vx * vx, 2 * (vy * dy + vx * dx), dx * dx + dy * dy - radius**2]
    roots = [r.real for r in np.roots(coeffs) if abs(r.imag) < 1e-7 * max(1.0, abs(r.real)) and r.real > 1e-9]
    for t in sorted(roots):
        p = position(origin, velocity, gravity, t)
        if abs(math.hypot(p[0] - center[0], p[1] - center[1]) - radius) < 1e-6 * max(1.0, radius):
            return float(t)
    return None


def closest_approach(origin: Vec, velocity: Vec, gravity: float, center: Vec, t_end: float) -> float:
    """Return the smallest distance from `center` to the trajectory over [0, t_end] (dense sampling + refinement)."""
    ts = np.linspace(0.0, t_end, 400)
    xs = origin[0] + velocity[0] * ts - center[0]
    ys = origin[1] + velocity[1] * ts + 0.5 * gravity * ts * ts - center[1]
    k = int(np.argmin(xs * xs + ys * ys))
    lo, hi = ts[max(k - 1, 0)], ts[min(k + 1, len(ts) - 1)]
    for _ in range(60):  # golden-section refinement of the local minimum
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        p1, p2 = position(origin, velocity, gravity, m1), position(origin, velocity, gravity, m2)
        if math.dist(p1, center) < math.dist(p2, center):
            hi = m2
        else:
            lo = m1
    return math.dist(position(origin, velocity, gravity, (lo + hi) / 2), center)


def first_pop(origin: Vec, velocity: Vec, gravity: float, balloons: list[Balloon]) -> tuple[int, float] | None:
    """Return (index, time) of the first balloon the dart touches, or None if it touches none."""
    hits = [
        (t, i) for i, b in enumerate(balloons) if (t := first_contact(origin, velocity, gravity, b.center, b.radius))
    ]
    if not hits:
        return None
    t, i = min(hits)
    return i, t


def exit_time(origin: Vec, velocity: Vec, gravity: float) -> float:
    """Return when the dart leaves the picture through its bottom, left or right edge."""
    a, b, c = 0.5 * gravity, velocity[1], origin[1] - HEIGHT
    t_bottom = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    t_side = (WIDTH - origin[0]) / velocity[0] if velocity[0] > 0 else -origin[0] / velocity[0]
    return min(t_bottom, t_side)


def build(rng: random.Random) -> Scene:
    """Return one dart item: which balloon the dart pops first."""
    gravity = float(rng.choice((200, 250, 300, 400)))
    scale_v = float(rng.choice((4, 5, 6)))  # px/s of velocity per px of arrow
    origin = (float(rng.randint(30, 120)), float(rng.randint(HEIGHT - 160, HEIGHT - 40)))
    angle = math.radians(rng.uniform(15.0, 70.0))
    arrow_len = rng.uniform(45.0, 75.0)
    tip = (float(round(origin[0] + arrow_len * math.cos(angle))), float(round(origin[1] - arrow_len * math.sin(angle))))
    velocity = ((tip[0] - origin[0]) * scale_v, (tip[1] - origin[1]) * scale_v)
    require(velocity[0] > 0, "the dart must fly right")
    t_out = exit_time(origin, velocity, gravity)
    t_top = -velocity[1] / gravity
    require(position(origin, velocity, gravity, t_top)[1] > 20, "the dart leaves the picture at the top")
    t_target = rng.uniform(0.35, 0.85) * t_out
    hit_point = position(origin, velocity, gravity, t_target)
    require(math.dist(hit_point, origin) > 120, "target too close to the thrower")
    colors = rng.sample(BALLOON_COLORS, 4)
    radius = float(rng.randint(15, 22))
    offset = rng.uniform(-0.4, 0.4) * radius
    center = (float(round(hit_point[0] + offset)), float(round(hit_point[1] - offset)))
    balloons = [Balloon("A", colors[0], center, radius)]
    for attempt in range(80):
        if len(balloons) == 4:
            break
        if attempt < 20 and len(balloons) == 1:  # a tempting decoy just past the true one, along the path
            p = position(origin, velocity, gravity, rng.uniform(1.05, 1.4) * t_target)
            guess = (p[0] + rng.uniform(-1, 1) * radius, p[1] + rng.uniform(-1, 1) * radius)
        else:
            guess = (rng.uniform(radius + 5, WIDTH - radius - 5), rng.uniform(radius + 5, HEIGHT - radius - 5))
        r = float(rng.randint(15, 22))
        cand = Balloon(
            "ABCD"[len(balloons)], colors[len(balloons)], (float(round(guess[0])), float(round(guess[1]))), r
        )
        if not (r + 4 <= cand.center[0] <= WIDTH - r - 4 and r + 4 <= cand.center[1] <= HEIGHT - r - 4):
            continue
        if math.dist(cand.center, origin) < r + 40:
            continue
        if all(math.dist(cand.center, b.center) > r + b.radius + DART_WIDTH for b in balloons):
            balloons.append(cand)
    require(len(balloons) == 4, "no room for four balloons")
    popped = first_pop(origin, velocity, gravity, balloons)
    require(popped is not None and popped[0] == 0, "the dart does not pop the intended balloon first")
    assert popped is not None
    t_hit = popped[1]
    require(closest_approach(origin, velocity, gravity, center, t_out) < radius - DART_WIDTH / 2, "dart only grazes")
    for b in balloons[1:]:
        require(closest_approach(origin, velocity, gravity, b.center, t_hit) > b.radius + DART_WIDTH, "near miss")
    for dx in (-1, 0, 1):  # an arrow tip read one pixel off must pop the same balloon
        for dy in (-1, 0, 1):
            v = ((tip[0] + dx - origin[0]) * scale_v, (tip[1] + dy - origin[1]) * scale_v)
            wobble = first_pop(origin, v, gravity, balloons)
            require(wobble is not None and wobble[0] == 0, "answer changes when the arrow tip is read 1 px off")

    order = rng.sample(range(4), 4)
    balloons = [balloons[i] for i in order]
    hit = order.index(0)
    image = _render(origin, tip, balloons)
    choices, answer = place_choices(
        rng,
        f"the {balloons[hit].color} balloon",
        [f"the {b.color} balloon" for i, b in enumerate(balloons) if i != hit],
    )
    question = (
        "A dart, the black dot, is thrown from where it is drawn; treat it as a point at the dot's centre. The red arrow gives its initial velocity: each "
        f"pixel of arrow length stands for {scale_v:g} px/s, so an arrow 10 px long means {10 * scale_v:g} px/s. "
        f"Gravity pulls straight down with g = {gravity:g} px/s²; there is no air resistance. Distances are in "
        "pixels of the picture. The coloured discs are balloons; the dart pops the first balloon it touches. "
        "Which balloon does it pop?"
    )
    steps = max(2, math.ceil(t_hit * 60))
    meta = {
        "origin": rounded(origin),
        "arrow_tip": rounded(tip),
        "velocity_scale": scale_v,
        "velocity": rounded(velocity),
        "gravity": gravity,
        "balloons": [
            {"label": b.color, "color": list(LABEL_COLORS[b.color]), "center": rounded(b.center), "radius": b.radius}
            for b in balloons
        ],
        "path": [rounded(position(origin, velocity, gravity, t_hit * k / steps)) for k in range(steps + 1)],
        "hit": {
            "balloon": balloons[hit].color,
            "index": hit,
            "t": round(t_hit, 6),
            "at": rounded(position(origin, velocity, gravity, t_hit)),
        },
        "t_exit": round(t_out, 6),
    }
    return Scene(image=image, question=question, answer=answer, answer_type="choice", choices=choices, meta=meta)


def _render(origin: Vec, tip: Vec, balloons: list[Balloon]) -> Image.Image:
    """Return the scene: balloons as filled discs, the dart as a black dot, its velocity as a red arrow."""
    image, draw = blank(WIDTH, HEIGHT)
    for b in balloons:
        disc(draw, b.center, b.radius, LABEL_COLORS[b.color])
    disc(draw, origin, 5, BLACK)
    arrow(draw, origin, tip, SOURCE_RED)
    return image
