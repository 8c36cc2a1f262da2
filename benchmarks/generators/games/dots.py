"""Numbered dots joined in order into a closed figure: its sides, convexity and self-crossings (exact)."""

from __future__ import annotations

import itertools
import math
import random

from mcot.benchmarks.generators.games._common import AnswerKind, Scene, place_choices, require
from mcot.benchmarks.generators.games._exact import Point, as_floats, intersection, orient, point
from mcot.benchmarks.generators.games._render import BLACK, blank, disc, text
from PIL import Image

SIZE = 640
KINDS = ("figure", "sides", "crossings")
MIN_TURN_DEGREES = 12.0  # a corner sharper than straight by less than this would look straight
CLEAR = 10.0  # px: crossings and passing lines keep this far from dots and from each other
NAMES = {
    3: "triangle",
    4: "quadrilateral",
    5: "pentagon",
    6: "hexagon",
    7: "heptagon",
    8: "octagon",
    9: "nonagon",
    10: "decagon",
}


def corners(points: list[Point]) -> list[int]:
    """Return the indices of dots where the closed figure turns (dots it passes straight through are left out)."""
    n = len(points)
    return [i for i in range(n) if orient(points[i - 1], points[i], points[(i + 1) % n]) != 0]


def crossings(points: list[Point]) -> list[Point]:
    """Return the points where two non-adjacent edges of the closed figure cross, in edge order."""
    n = len(points)
    edges = [(points[i], points[(i + 1) % n]) for i in range(n)]
    found: list[Point] = []
    for i, j in itertools.combinations(range(n), 2):
        if j == i + 1 or (i == 0 and j == n - 1):
            continue
        p = intersection(edges[i], edges[j])
        if p is not None:
            found.append(p)
    return found


def is_convex(points: list[Point]) -> bool:
    """Return True when the closed figure is a convex polygon (all turns one way, no crossing)."""
    n = len(points)
    turns = [orient(points[i - 1], points[i], points[(i + 1) % n]) for i in range(n)]
    signs = {t > 0 for t in turns if t != 0}
    return len(signs) == 1 and not crossings(points)


def describe(sides: int, convex: bool, n_crossings: int) -> str:
    """Return the figure's name as a choice text, e.g. 'a convex hexagon' or 'a self-crossing figure (2 crossings)'."""
    if n_crossings:
        return f"a self-crossing figure with {n_crossings} crossing{'s' if n_crossings > 1 else ''}"
    name = NAMES.get(sides, f"{sides}-gon")
    return f"a {'convex' if convex else 'concave'} {name}"


def _turn_degrees(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
    """Return how far the path a->b->c turns at b, in degrees (0 = straight on)."""
    h1 = math.atan2(b[1] - a[1], b[0] - a[0])
    h2 = math.atan2(c[1] - b[1], c[0] - b[0])
    return abs(math.degrees((h2 - h1 + math.pi) % (2 * math.pi) - math.pi))


def build(rng: random.Random) -> Scene:
    """Return one dots item: what figure the dots make, how many sides it has, or how often it crosses itself."""
    kind = rng.choice(KINDS)
    n = rng.randint(4, 7)
    shape = rng.choice(("convex", "concave", "crossing")) if kind != "crossings" else "crossing"
    cx, cy = 320, 320
    start = rng.uniform(0, 2 * math.pi)
    angles = sorted((start + rng.uniform(0, 2 * math.pi)) % (2 * math.pi) for _ in range(n))
    radii = [
        rng.uniform(170, 250) if shape == "convex" else rng.choice((rng.uniform(70, 130), rng.uniform(180, 260)))
        for _ in range(n)
    ]
    if shape == "convex":
        radii = [radii[0]] * n
    raw = [(round(cx + r * math.cos(a)), round(cy + r * math.sin(a))) for a, r in zip(angles, radii, strict=True)]
    if shape == "crossing":
        rng.shuffle(raw)
    for _ in range(rng.choice((0, 1, 1, 2))):  # a dot on the straight line between its neighbours: one side
        i = rng.randrange(len(raw))
        j = (i + 1) % len(raw)
        a = raw[i]
        b = (a[0] + 4 * round((raw[j][0] - a[0]) / 4), a[1] + 4 * round((raw[j][1] - a[1]) / 4))
        k = rng.randint(1, 3)
        mid = (a[0] + (b[0] - a[0]) // 4 * k, a[1] + (b[1] - a[1]) // 4 * k)
        if min(math.dist(mid, a), math.dist(mid, b)) > 60:
            raw[j] = b  # moved by at most 2 px so that the new dot lies exactly on the line
            raw.insert(i + 1, mid)
    pts = [point(*p) for p in raw]
    m = len(pts)
    require(len(set(raw)) == m, "two dots coincide")
    for p, q in itertools.combinations(raw, 2):
        require(math.dist(p, q) > 40, "dots too close")
    for i in range(m):
        turn = _turn_degrees(raw[i - 1], raw[i], raw[(i + 1) % m])
        straight = orient(pts[i - 1], pts[i], pts[(i + 1) % m]) == 0
        require(
            straight or MIN_TURN_DEGREES <= turn <= 180 - MIN_TURN_DEGREES, "a corner that looks straight or folded"
        )
    for i in range(m):  # no edge passes close to a dot it does not end at
        a, b = raw[i], raw[(i + 1) % m]
        for j, p in enumerate(raw):
            if j not in (i, (i + 1) % m) and orient(pts[i], pts[(i + 1) % m], pts[j]) != 0:
                require(_distance(p, a, b) > CLEAR, "an edge passes too close to a dot")
    cross = crossings(pts)
    cross_f = [(float(p[0]), float(p[1])) for p in cross]
    for c in cross_f:
        require(all(math.dist(c, q) > CLEAR for q in raw), "a crossing sits on a dot")
    for c, d in itertools.combinations(cross_f, 2):
        require(math.dist(c, d) > CLEAR, "two crossings nearly coincide")
    turning = corners(pts)
    sides = len(turning)
    convex = is_convex(pts)
    if shape == "concave":
        require(not convex and not cross, "not a concave simple polygon")
    if shape == "convex":
        require(convex, "not convex")
    if kind == "crossings":
        require(len(cross) >= 1, "no crossing to count")
    require(sides >= 3, "degenerate figure")

    image = _render(raw)
    intro = (
        f"The picture shows {m} black dots numbered 1 to {m}. Join them with straight lines in order, "
        f"1 to 2, 2 to 3, …, {m - 1} to {m}, and finally {m} back to 1. "
    )
    choices = None
    answer_type: AnswerKind = "number"
    if kind == "figure":
        correct = describe(sides, convex, len(cross))
        pool = {describe(s, c, 0) for s in range(max(3, sides - 1), sides + 3) for c in (True, False)}
        pool |= {describe(sides, False, k) for k in range(1, 4)}
        pool.discard(correct)
        distractors = sorted(pool)
        rng.shuffle(distractors)
        choices, answer = place_choices(rng, correct, distractors[:3])
        question = intro + (
            "Which best describes the closed figure you get? Dots the line passes straight through are not corners; "
            "a figure is self-crossing when two of its sides cross."
        )
        answer_type = "choice"
    elif kind == "sides":
        answer = str(sides)
        question = intro + (
            "How many sides does the closed figure have? Where the line passes straight through a dot without "
            "turning, the two pieces form one side."
        )
    else:
        answer = str(len(cross))
        question = intro + "At how many points does the closed figure cross itself (not counting the numbered dots)?"
    meta = {
        "kind": kind,
        "points": [list(p) for p in raw],
        "polyline": [list(p) for p in [*raw, raw[0]]],
        "closed": True,
        "corners": turning,
        "sides": sides,
        "convex": convex,
        "simple": not cross,
        "crossings": [as_floats(p) for p in cross],
    }
    return Scene(image=image, question=question, answer=answer, answer_type=answer_type, choices=choices, meta=meta)


def _distance(p: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> float:
    """Return the distance from p to the segment ab."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    u = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - a[0] - u * dx, p[1] - a[1] - u * dy)


def _render(points: list[tuple[int, int]]) -> Image.Image:
    """Return the dots (black discs) with their numbers set outward from the picture's centre."""
    image, draw = blank(SIZE, SIZE)
    for k, (x, y) in enumerate(points, start=1):
        disc(draw, (x, y), 5, BLACK)
        dx, dy = x - SIZE / 2, y - SIZE / 2
        norm = math.hypot(dx, dy) or 1.0
        text(draw, (x + 20 * dx / norm, y + 20 * dy / norm), str(k))
    return image
