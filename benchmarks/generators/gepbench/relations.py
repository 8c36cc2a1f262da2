"""Relations between shapes: constructing a new shape that stands in a relation to an existing one.

A relation is stored as (i, j, word): shape i is `word` to shape j ("the circle is inscribed in the square").
All eleven of the paper's relations are built; axiality appears as "major axis" and "minor axis", symmetry as
"symmetric": an irregular polygon and its mirror image across an implied axis (not drawn; recorded in the new
shape's params as `mirror_axis` = [a point on it, its unit direction]). Irregular polygons have no symmetry of
their own, so the pair is visibly mirrored (its turning sense flips), not merely a moved copy.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from mcot.benchmarks.generators.gepbench import shapes as sh
from mcot.benchmarks.generators.gepbench.sampling import (
    LINE_LENGTH,
    STAR_INNER,
    STAR_OUTER,
    inside_canvas,
    polygon_rules_hold,
)
from mcot.benchmarks.generators.gepbench.shapes import Shape

from mcot.core.geometry import reflect_points

RELATION_WORDS: tuple[str, ...] = (
    "tangent",
    "parallel",
    "perpendicular",
    "inscribed",
    "circumscribed",
    "similar",
    "concentric",
    "diameter",
    "major axis",
    "minor axis",
    "diagonal",
    "shared edge",
    "symmetric",
)
# Relations whose two shapes touch by construction (their strokes form one connected figure).
TOUCHING = frozenset(
    {"tangent", "inscribed", "circumscribed", "diameter", "major axis", "minor axis", "diagonal", "shared edge"}
)
# word -> the word that holds in the other direction (None: the reverse is not a relation word).
INVERSE: dict[str, str | None] = {
    "tangent": "tangent",
    "parallel": "parallel",
    "perpendicular": "perpendicular",
    "inscribed": "circumscribed",
    "circumscribed": "inscribed",
    "similar": "similar",
    "concentric": "concentric",
    "diameter": None,
    "major axis": None,
    "minor axis": None,
    "diagonal": None,
    "shared edge": "shared edge",
    "symmetric": "symmetric",
}
# Words that a true relation makes arguable too, so they never serve as distractors for it.
IMPLIED: dict[str, frozenset[str]] = {
    "inscribed": frozenset({"tangent", "concentric"}),
    "circumscribed": frozenset({"tangent", "concentric"}),
    "diameter": frozenset({"concentric"}),
    "major axis": frozenset({"concentric", "minor axis", "diameter"}),
    "minor axis": frozenset({"concentric", "major axis", "diameter"}),
    "concentric": frozenset({"similar"}),
    "symmetric": frozenset({"similar"}),  # mirror images are congruent, so similar too
    "tangent": frozenset(),
}

Builder = Callable[[Shape, np.random.Generator], "Shape | None"]
REGULAR_N = {"equilateral triangle": 3, "square": 4, "regular pentagon": 5, "regular hexagon": 6}


def _valid(shape: Shape) -> Shape | None:
    if not inside_canvas(shape):
        return None
    if shape.kind in sh.POLYGON_KINDS and not polygon_rules_hold(shape.outline):
        return None
    if shape.kind == "line":
        length = math.dist(*shape.outline)
        if not LINE_LENGTH[0] <= length <= LINE_LENGTH[1]:
            return None
    return shape


def _center_radius(shape: Shape) -> tuple[tuple[float, float], float]:
    p = shape.params
    return (tuple(p["center"]), float(p.get("radius", p.get("major_axis", 0.0))))


def tangent_line(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a line touching a circle or ellipse at one point, that point well inside the segment."""
    (cx, cy), a = _center_radius(base)
    b = float(base.params["minor_axis"])
    rot = float(base.params["rotation"])
    t = float(rng.uniform(0, 2 * math.pi))
    c, s = math.cos(rot), math.sin(rot)
    px, py = a * math.cos(t), b * math.sin(t)
    p = (cx + c * px - s * py, cy + s * px + c * py)
    dx, dy = -a * math.sin(t), b * math.cos(t)
    d = np.array([c * dx - s * dy, s * dx + c * dy])
    d /= np.linalg.norm(d)
    length = float(rng.uniform(*LINE_LENGTH))
    f = float(rng.uniform(0.3, 0.7))
    q0 = (p[0] - f * length * d[0], p[1] - f * length * d[1])
    q1 = (p[0] + (1 - f) * length * d[0], p[1] + (1 - f) * length * d[1])
    return _valid(sh.segment(q0, q1))


def tangent_circle(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a circle touching a circle from outside or from inside."""
    (cx, cy), r1 = _center_radius(base)
    ang = float(rng.uniform(0, 2 * math.pi))
    if rng.random() < 0.5 or r1 < 0.15:
        r2 = float(rng.uniform(0.06, 0.2))
        dist = r1 + r2
    else:
        r2 = r1 * float(rng.uniform(0.35, 0.65))
        dist = r1 - r2
    return _valid(sh.ellipse((cx + dist * math.cos(ang), cy + dist * math.sin(ang)), r2, r2, 0.0))


def _direction(line: Shape) -> np.ndarray:
    (x0, y0), (x1, y1) = line.outline
    d = np.array([x1 - x0, y1 - y0])
    return d / np.linalg.norm(d)


def parallel_line(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a line parallel to a line, offset sideways by 0.06-0.3."""
    d = _direction(base)
    n = np.array([-d[1], d[0]]) * float(rng.uniform(0.06, 0.3)) * (1 if rng.random() < 0.5 else -1)
    mid = np.mean(base.array, axis=0) + n + d * float(rng.uniform(-0.15, 0.15))
    half = float(rng.uniform(*LINE_LENGTH)) / 2
    return _valid(sh.segment(tuple(mid - half * d), tuple(mid + half * d)))


def perpendicular_line(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a line perpendicular to a line, crossing it or beside it."""
    d = _direction(base)
    n = np.array([-d[1], d[0]])
    (x0, y0), (x1, y1) = base.outline
    foot = np.array([x0, y0]) + (np.array([x1, y1]) - np.array([x0, y0])) * float(rng.uniform(0.25, 0.75))
    length = float(rng.uniform(*LINE_LENGTH))
    f = float(rng.uniform(0.25, 0.75)) if rng.random() < 0.6 else float(rng.choice([-0.3, 1.3]))
    return _valid(sh.segment(tuple(foot - f * length * n), tuple(foot + (1 - f) * length * n)))


def circumcircle(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return the circle through all vertices of a triangle, rectangle or regular polygon."""
    pts = np.asarray(base.vertices)
    if base.kind == "triangle":
        (ax, ay), (bx, by), (cx, cy) = pts
        dd = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
        ux = ((ax**2 + ay**2) * (by - cy) + (bx**2 + by**2) * (cy - ay) + (cx**2 + cy**2) * (ay - by)) / dd
        uy = ((ax**2 + ay**2) * (cx - bx) + (bx**2 + by**2) * (ax - cx) + (cx**2 + cy**2) * (bx - ax)) / dd
        center = (float(ux), float(uy))
    else:
        center = (float(pts[:, 0].mean()), float(pts[:, 1].mean()))
    r = math.dist(center, tuple(pts[0]))
    return _valid(sh.ellipse(center, r, r, 0.0))


def incircle(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return the circle touching every side of a triangle or regular polygon."""
    pts = np.asarray(base.vertices)
    if base.kind == "triangle":
        a = np.linalg.norm(pts[1] - pts[2])
        b = np.linalg.norm(pts[0] - pts[2])
        c = np.linalg.norm(pts[0] - pts[1])
        center = (a * pts[0] + b * pts[1] + c * pts[2]) / (a + b + c)
        r = float(base.area / ((a + b + c) / 2))
    else:
        n = REGULAR_N[base.kind]
        center = pts.mean(axis=0)
        r = float(np.linalg.norm(pts[0] - center)) * math.cos(math.pi / n)
    if r < 0.04:
        return None
    return _valid(sh.ellipse((float(center[0]), float(center[1])), float(r), float(r), 0.0))


def inscribed_in_circle(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a regular polygon or star whose corners lie on a circle."""
    center, r = _center_radius(base)
    kind = str(
        rng.choice(["equilateral triangle", "square", "regular pentagon", "regular hexagon", "pentagram", "hexagram"])
    )
    rot = float(rng.uniform(0, 2 * math.pi))
    if kind in ("pentagram", "hexagram"):
        if not STAR_OUTER[0] <= r <= STAR_OUTER[1]:
            return None
        return _valid(sh.star(center, r, r * float(rng.uniform(*STAR_INNER)), 5 if kind == "pentagram" else 6, rot))
    return _valid(sh.regular(kind, center, r, REGULAR_N[kind], rot))


def circumscribed_about_circle(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a regular polygon whose sides all touch a circle."""
    center, r = _center_radius(base)
    kind = str(rng.choice(["equilateral triangle", "square", "regular pentagon", "regular hexagon"]))
    n = REGULAR_N[kind]
    return _valid(sh.regular(kind, center, r / math.cos(math.pi / n), n, float(rng.uniform(0, 2 * math.pi))))


def rectangle_in_ellipse(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a rectangle, aligned with an ellipse's axes, whose corners lie on the ellipse."""
    from mcot.benchmarks.generators.gepbench.sampling import MIN_ASPECT_DIFF, rectangle

    center, a = _center_radius(base)
    b = float(base.params["minor_axis"])
    t = float(rng.uniform(0.25, 1.3))
    w, h = 2 * a * math.cos(t), 2 * b * math.sin(t)
    if min(w, h) / max(w, h) > 1 - MIN_ASPECT_DIFF:
        return None
    return _valid(rectangle(center, w, h, float(base.params["rotation"])))


def similar_polygon(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a scaled, rotated and moved copy of an irregular polygon."""
    pts = np.asarray(base.vertices)
    c = pts.mean(axis=0)
    k = float(rng.choice([rng.uniform(0.55, 0.8), rng.uniform(1.25, 1.6)]))
    ang = float(rng.uniform(0, 2 * math.pi))
    rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    local = (pts - c) @ rot.T * k
    reach = float(np.abs(local).max())
    lo, hi = 0.02 + reach, 0.98 - reach
    if lo >= hi:
        return None
    new_c = rng.uniform(lo, hi, 2)
    moved = [tuple(map(float, p)) for p in local + new_c]
    return _valid(sh.polygon(base.kind, moved))  # type: ignore[arg-type]


def mirror_image(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return the mirror image of an irregular polygon across an implied axis beside or through it.

    The axis has a random direction and passes 0.3-1.6 times the polygon's reach from its centroid, so the
    image lies apart from the polygon or overlaps it (placement then accepts only a clean crossing).
    """
    pts = np.asarray(base.vertices, dtype=float)
    center = np.asarray(base.centroid)
    reach = float(np.max(np.linalg.norm(pts - center, axis=1)))
    ang = float(rng.uniform(0, math.pi))
    direction = np.array([math.cos(ang), math.sin(ang)])
    normal = np.array([-direction[1], direction[0]]) * (1 if rng.random() < 0.5 else -1)
    point = center + normal * reach * float(rng.uniform(0.3, 1.6))
    mirrored = reflect_points(pts, point, direction)[::-1]  # reversed: the same turning sense as listed before
    moved = [(float(x), float(y)) for x, y in mirrored]
    axis_point = point + direction * float((center - point) @ direction)  # the foot of the centroid
    new = sh.polygon(base.kind, moved, mirror_axis=[axis_point.tolist(), direction.tolist()])
    return _valid(new)


def concentric(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a circle sharing the centre of a circle, ellipse or regular polygon, clearly bigger or smaller."""
    center = base.centroid
    reach = float(np.max(np.linalg.norm(base.array - np.asarray(center), axis=1)))
    inner = float(np.min(np.linalg.norm(base.array - np.asarray(center), axis=1)))
    if rng.random() < 0.5 and inner > 0.1:
        r = float(rng.uniform(0.04, inner - 0.04))
    else:
        r = reach + float(rng.uniform(0.04, 0.15))
    return _valid(sh.ellipse(center, r, r, 0.0))


def diameter(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a diameter of a circle."""
    (cx, cy), r = _center_radius(base)
    ang = float(rng.uniform(0, math.pi))
    dx, dy = r * math.cos(ang), r * math.sin(ang)
    return _valid(sh.segment((cx - dx, cy - dy), (cx + dx, cy + dy)))


def axis(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return the major or minor axis of an ellipse (which one is in params['axis'])."""
    (cx, cy), a = _center_radius(base)
    b = float(base.params["minor_axis"])
    rot = float(base.params["rotation"])
    major = bool(rng.random() < 0.5)
    r, ang = (a, rot) if major else (b, rot + math.pi / 2)
    dx, dy = r * math.cos(ang), r * math.sin(ang)
    line = _valid(sh.segment((cx - dx, cy - dy), (cx + dx, cy + dy)))
    if line is not None:
        line.params["axis"] = "major axis" if major else "minor axis"
    return line


def diagonal(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a diagonal of a polygon with at least four corners."""
    pts = base.vertices
    n = len(pts)
    i = int(rng.integers(n))
    j = (i + int(rng.integers(2, n - 1))) % n
    return _valid(sh.segment(pts[i], pts[j]))


def shared_edge(base: Shape, rng: np.random.Generator) -> Shape | None:
    """Return a triangle or square built outward on one edge of a polygon."""
    pts = np.asarray(base.vertices)
    n = len(pts)
    i = int(rng.integers(n))
    p, q = pts[i], pts[(i + 1) % n]
    mid = (p + q) / 2
    e = q - p
    normal = np.array([-e[1], e[0]])
    inward = pts.mean(axis=0) - mid
    if np.dot(normal, inward) > 0:
        normal = -normal
    normal /= np.linalg.norm(normal)
    if rng.random() < 0.5:
        apex = mid + normal * np.linalg.norm(e) * float(rng.uniform(0.5, 1.2)) + e * float(rng.uniform(-0.3, 0.3))
        new = sh.polygon("triangle", [tuple(map(float, q)), tuple(map(float, p)), tuple(map(float, apex))])  # type: ignore[list-item]
        if all(abs(a - math.pi / 3) < 0.15 for a in sh.interior_angles(new.outline)):
            return None
    else:
        side = np.linalg.norm(e)
        new = sh.polygon(
            "square",
            [tuple(map(float, v)) for v in (q, p, p + normal * side, q + normal * side)],  # type: ignore[misc]
        )
    return _valid(new)


def builders_for(kind: str) -> list[tuple[str, Builder]]:
    """Return the (relation word, builder) pairs that can start from a shape of `kind`."""
    out: list[tuple[str, Builder]] = []
    if kind == "circle":
        out += [("tangent", tangent_line), ("tangent", tangent_circle), ("inscribed", inscribed_in_circle)]
        out += [("circumscribed", circumscribed_about_circle), ("concentric", concentric), ("diameter", diameter)]
    if kind == "ellipse":
        out += [
            ("tangent", tangent_line),
            ("inscribed", rectangle_in_ellipse),
            ("axis", axis),
            ("concentric", concentric),
        ]
    if kind == "line":
        out += [("parallel", parallel_line), ("perpendicular", perpendicular_line)]
    if kind in ("triangle", "equilateral triangle", "square", "regular pentagon", "regular hexagon"):
        out += [("circumscribed", circumcircle), ("inscribed", incircle)]
    if kind == "rectangle":
        out += [("circumscribed", circumcircle)]
    if kind in ("triangle", "quadrilateral", "pentagon", "hexagon"):
        out += [("similar", similar_polygon), ("symmetric", mirror_image)]
    if kind in ("regular pentagon", "regular hexagon", "square"):
        out += [("concentric", concentric)]
    if kind in sh.POLYGON_KINDS and kind not in ("triangle", "equilateral triangle"):
        out += [("diagonal", diagonal)]
    if kind in sh.POLYGON_KINDS:
        out += [("shared edge", shared_edge)]
    return out
