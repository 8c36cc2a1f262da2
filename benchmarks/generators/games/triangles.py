"""Segments over a big triangle: how many triangles the figure contains (exact rational combinatorics)."""

from __future__ import annotations

import itertools
import math
import random

from mcot.benchmarks.generators.games._common import Scene, require
from mcot.benchmarks.generators.games._exact import Point, Segment, as_floats, intersection, on_segment, orient, point
from mcot.benchmarks.generators.games._render import BLACK, blank
from PIL import Image

SIZE = 640
MIN_GAP = 7.0  # px: two distinct vertices of the figure closer than this would look like one
MIN_AREA = 40.0  # px²: smaller triangles would be invisible
MIN_ALTITUDE = 5.0  # px: thinner triangles would read as a doubled line


def vertices(segments: list[Segment]) -> list[Point]:
    """Return every endpoint and crossing point of the segments, without repeats, in a stable order."""
    found: dict[Point, None] = {}
    for a, b in segments:
        found.setdefault(a)
        found.setdefault(b)
    for s, t in itertools.combinations(segments, 2):
        p = intersection(s, t)
        if p is not None:
            found.setdefault(p)
    return list(found)


def count_triangles(segments: list[Segment]) -> list[tuple[Point, Point, Point]]:
    """Return every triangle whose three sides lie along the segments (vertices at endpoints or crossings)."""
    points = vertices(segments)
    lines = [frozenset(i for i, p in enumerate(points) if on_segment(p, a, b)) for a, b in segments]
    joined = [[False] * len(points) for _ in points]
    for members in lines:
        for i, j in itertools.combinations(sorted(members), 2):
            joined[i][j] = joined[j][i] = True
    found = []
    for i, j, k in itertools.combinations(range(len(points)), 3):
        if joined[i][j] and joined[j][k] and joined[i][k] and orient(points[i], points[j], points[k]) != 0:
            found.append((points[i], points[j], points[k]))
    return found


def _on_side(a: tuple[int, int], b: tuple[int, int], k: int, m: int) -> tuple[int, int]:
    """Return the point k/m of the way from a to b (exact when m divides both coordinate differences)."""
    return (a[0] + (b[0] - a[0]) * k // m, a[1] + (b[1] - a[1]) * k // m)


def build(rng: random.Random) -> Scene:
    """Return one triangles item: how many triangles the drawn segments form."""
    m = 12
    base_y = rng.randint(480, 560)
    bx = rng.randint(40, 140)
    cx = bx + m * rng.randint(30, 40)
    apex = (bx + m * rng.randint(8, 32), base_y - m * rng.randint(28, 36))
    b, c = (bx, base_y), (cx, base_y)
    corners = {"A": apex, "B": b, "C": c}
    sides = [("A", "B"), ("B", "C"), ("C", "A")]
    extra: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for _ in range(rng.randint(2, 5)):
        style = rng.random()
        if style < 0.4:  # a cevian from a corner to the opposite side
            corner = rng.choice("ABC")
            s0, s1 = next((p, q) for p, q in sides if corner not in (p, q))
            seg = (corners[corner], _on_side(corners[s0], corners[s1], rng.randint(2, m - 2), m))
        else:  # a transversal between two different sides
            (p0, p1), (q0, q1) = rng.sample(sides, 2)
            seg = (
                _on_side(corners[p0], corners[p1], rng.randint(2, m - 2), m),
                _on_side(corners[q0], corners[q1], rng.randint(2, m - 2), m),
            )
        if seg[0] != seg[1] and seg not in extra and seg[::-1] not in extra:
            extra.append(seg)
    drawn = [(apex, b), (b, c), (c, apex), *extra]
    segments: list[Segment] = [(point(*p), point(*q)) for p, q in drawn]
    for s, t in itertools.combinations(segments, 2):
        require(not (orient(s[0], s[1], t[0]) == 0 and orient(s[0], s[1], t[1]) == 0), "overlapping segments")
    points = vertices(segments)
    for p, q in itertools.combinations(points, 2):
        require(math.dist(_f(p), _f(q)) >= MIN_GAP, "two crossings nearly coincide")
    for p in points:  # a vertex near a segment it is not on would read as touching
        for a, bb in segments:
            if not on_segment(p, a, bb):
                require(_distance(p, a, bb) >= MIN_GAP, "a vertex almost touches another segment")
    triangles = count_triangles(segments)
    for tri in triangles:
        area2 = abs(float(orient(*tri)))
        longest = max(math.dist(_f(p), _f(q)) for p, q in itertools.combinations(tri, 2))
        require(area2 / 2 >= MIN_AREA and area2 / longest >= MIN_ALTITUDE, "a sliver triangle")
    require(3 <= len(triangles) <= 40, "too few or too many triangles")
    image = _render(drawn)
    question = (
        "The figure is made of straight black line segments. How many triangles of any size can you find in it? "
        "Count every triangle whose three sides lie along drawn segments (its corners may be segment ends or "
        "crossings); triangles made of smaller ones count too."
    )
    meta = {
        "points": [list(p) for p in dict.fromkeys(q for seg in drawn for q in seg)],
        "segments": [[list(p), list(q)] for p, q in drawn],
        "vertices": [as_floats(p) for p in points],
        "triangles": [[as_floats(p) for p in tri] for tri in triangles],
        "count": len(triangles),
    }
    return Scene(image=image, question=question, answer=str(len(triangles)), answer_type="number", meta=meta)


def _f(p: Point) -> tuple[float, float]:
    return (float(p[0]), float(p[1]))


def _distance(p: Point, a: Point, b: Point) -> float:
    """Return the float distance from p to the segment ab."""
    (px, py), (ax, ay), (bx, by) = _f(p), _f(a), _f(b)
    dx, dy = bx - ax, by - ay
    u = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - u * dx, py - ay - u * dy)


def _render(segments: list[tuple[tuple[int, int], tuple[int, int]]]) -> Image.Image:
    """Return the figure: every segment as a 3 px black line on white."""
    image, draw = blank(SIZE, SIZE)
    for p, q in segments:
        draw.line([p, q], fill=BLACK, width=3)
    return image
