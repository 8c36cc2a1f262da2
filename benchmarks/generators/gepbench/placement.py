"""Constructive placement: add shapes one at a time where the rules already hold, retrying locally.

The public engine samples whole figures at random and throws them away until every rule holds, which stalls
on 7-8 shapes. Here each new shape (free, or built in a relation to one already placed) is checked only
against the shapes already there, and a failed shape is redrawn, smaller as the figure gets crowded.

Pairs of shapes are either clearly apart (outlines at least GAP apart), touching by construction (tangent,
inscribed, shared edge, ...), or crossing cleanly (a few crossing points at a clear angle, never grazing).
Anything in between, where "touching or crossing?" would hinge on a pixel, is rejected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from mcot.benchmarks.generators.gepbench.relations import TOUCHING, builders_for
from mcot.benchmarks.generators.gepbench.sampling import sample_shape
from mcot.benchmarks.generators.gepbench.shapes import Shape

GAP = 0.02  # outlines that do not meet stay at least this far apart (about 13 px at 640 px)
MIN_CROSS_ANGLE = math.radians(25)
MAX_CROSSINGS = 1  # the paper: a shape intersects at most one other
PAPER_SHAPES: tuple[str, ...] = (
    "line",
    "triangle",
    "quadrilateral",
    "pentagon",
    "hexagon",
    "rectangle",
    "square",
    "regular pentagon",
    "regular hexagon",
    "pentagram",
    "hexagram",
    "ellipse",
    "circle",
    "sector",
    "spiral",
)
LEVEL_SHAPES = {"easy": (2, 4), "hard": (5, 8)}
LEVEL_SCALE = {"easy": 1.0, "hard": 0.8}
RELATION_PROBABILITY = 0.45
REDRAW_DUPLICATE = 0.6  # a free shape of a kind already present is redrawn once with this probability


class PlacementError(RuntimeError):
    """A figure could not be built under the rules (raised only after many local retries)."""


@dataclass
class Figure:
    """The structured description of one figure: shapes, relations (i, j, word) and pair contacts."""

    level: str
    shapes: list[Shape] = field(default_factory=list)
    relations: list[tuple[int, int, str]] = field(default_factory=list)
    contacts: dict[tuple[int, int], str] = field(default_factory=dict)  # (i<j) -> "touch" | "cross"

    def groups(self) -> int:
        """Return how many connected stroke groups the figure has (shapes joined by touching or crossing)."""
        parent = list(range(len(self.shapes)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for i, j in self.contacts:
            parent[find(i)] = find(j)
        return len({find(i) for i in range(len(self.shapes))})

    def words(self, i: int, j: int) -> set[str]:
        """Return the relation words that hold from shape i to shape j (inverses included)."""
        from mcot.benchmarks.generators.gepbench.relations import INVERSE

        out = {w for a, b, w in self.relations if (a, b) == (i, j)}
        out |= {INVERSE[w] for a, b, w in self.relations if (a, b) == (j, i) and INVERSE[w] is not None}  # type: ignore[misc]
        return out

    def native(self) -> dict[str, Any]:
        """Return the description in the public rules-*.json layout (shapes, relations)."""
        return {"shapes": [s.native() for s in self.shapes], "relations": [list(r) for r in self.relations]}


def _boxes_apart(a: Shape, b: Shape) -> bool:
    """True when the outlines' bounding boxes, grown by GAP, do not overlap (so the shapes are apart)."""
    (ax0, ay0), (ax1, ay1) = a.box
    (bx0, by0), (bx1, by1) = b.box
    return ax1 + GAP < bx0 or bx1 + GAP < ax0 or ay1 + GAP < by0 or by1 + GAP < ay0


def contact(new_shape: Shape, old_shape: Shape) -> str | None:
    """Return "apart", "cross", or None when the pair would be ambiguous (too close, grazing, overlapping)."""
    new, old = new_shape.geometry, old_shape.geometry
    d = new.distance(old)
    if d >= GAP:
        return "apart"
    if d > 0:
        return None
    inter = new.intersection(old)
    if inter.geom_type == "Point":
        points = 1
    elif inter.geom_type == "MultiPoint":
        points = len(inter.geoms)
    else:
        return None
    if points > 4:
        return None
    where = shapely.get_coordinates(inter)  # (points, 2), in the intersection's order
    da, db = _crossing_angles(new_shape, where), _crossing_angles(old_shape, where)
    diff = np.abs(da - db) % math.pi
    if float(np.minimum(diff, math.pi - diff).min()) < MIN_CROSS_ANGLE:
        return None
    return "cross"


def _crossing_angles(shape: Shape, points: np.ndarray) -> np.ndarray:
    """Return, for each point on the outline, the direction (radians) of the outline segment nearest to it."""
    x0, y0, dx, dy, length2 = shape.segments
    rx = points[:, :1] - x0  # (points, segments), x and y apart: no 3-D temporaries
    ry = points[:, 1:] - y0
    t = np.clip((rx * dx + ry * dy) / length2, 0.0, 1.0)
    gx, gy = rx - t * dx, ry - t * dy
    nearest = (gx * gx + gy * gy).argmin(axis=1)
    return np.arctan2(dy[nearest], dx[nearest])


def _free_kind(rng: np.random.Generator, present: set[str]) -> str:
    kind = str(PAPER_SHAPES[int(rng.integers(len(PAPER_SHAPES)))])
    if kind in present and rng.random() < REDRAW_DUPLICATE:
        kind = str(PAPER_SHAPES[int(rng.integers(len(PAPER_SHAPES)))])
    if kind == "triangle" and rng.random() < 0.3:
        return "equilateral triangle"
    return kind


def _try_add(fig: Figure, new: Shape, base: int | None, word: str | None) -> bool:
    if word == "axis":
        word = str(new.params["axis"])
    contacts: dict[tuple[int, int], str] = {}
    crossings = [0] * (len(fig.shapes) + 1)
    for (i, j), kind in fig.contacts.items():
        if kind == "cross":
            crossings[i] += 1
            crossings[j] += 1
    k_new = len(fig.shapes)
    for k, old in enumerate(fig.shapes):
        if k == base and word in TOUCHING:
            contacts[(k, k_new)] = "touch"
            continue
        status = "apart" if _boxes_apart(new, old) else contact(new, old)
        if status is None:
            return False
        if status == "cross":
            crossings[k] += 1
            crossings[k_new] += 1
            if crossings[k] > MAX_CROSSINGS or crossings[k_new] > MAX_CROSSINGS:
                return False
            contacts[(k, k_new)] = "cross"
    fig.shapes.append(new)
    fig.contacts.update(contacts)
    if base is not None and word is not None:
        fig.relations.append((k_new, base, word))
    return True


def place_figure(level: str, rng: np.random.Generator) -> Figure:
    """Return a figure of the level's shape count, every rule holding, built shape by shape."""
    lo, hi = LEVEL_SHAPES[level]
    n = int(rng.integers(lo, hi + 1))
    for _restart in range(50):
        fig = Figure(level)
        while len(fig.shapes) < n:
            if not _add_one(fig, level, rng):
                break
        if len(fig.shapes) == n:
            return fig
    raise PlacementError(f"could not place {n} shapes for a {level} figure under the rules")


def _add_one(fig: Figure, level: str, rng: np.random.Generator) -> bool:
    for trial in range(80):
        scale = LEVEL_SCALE[level] * max(0.35, 1.0 - 0.012 * trial)
        base: int | None = None
        word: str | None = None
        new: Shape | None
        # every figure gets at least one relation: the second shape is built from the first when possible
        if fig.shapes and (rng.random() < RELATION_PROBABILITY or (len(fig.shapes) == 1 and trial < 40)):
            base = int(rng.integers(len(fig.shapes)))
            options = builders_for(fig.shapes[base].kind)
            if not options:
                continue
            words = sorted({w for w, _ in options})
            word = words[int(rng.integers(len(words)))]
            same = [b for w, b in options if w == word]
            build = same[int(rng.integers(len(same)))]
            new = build(fig.shapes[base], rng)
        else:
            new = sample_shape(_free_kind(rng, {s.kind for s in fig.shapes}), rng, scale)
        if new is not None and _try_add(fig, new, base, word):
            return True
    return False
