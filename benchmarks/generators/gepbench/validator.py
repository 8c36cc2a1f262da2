"""An independent check of each answer against the rendered pixels (the raster that is JPEG-encoded).

The validator shares no measuring code with the question writer: it thresholds the image, takes the dark
pixels in a band around each shape's outline (at half resolution), and measures them. What it can re-derive:
- strokes: the number of connected stroke groups (after 4x max-pooling) equals the description's count of
  touching/crossing groups (a shape missing, merged by a near-touch, or split shows up here);
- visible: every shape's outline is covered by dark pixels;
- span and area: the shape's pixel extent, and its filled pixel area, are nearest to the answer's value;
- quadrant, region, direction, area order: centroids and areas measured from pixels put shapes where the
  answer says.
Noise: isolated dark pixels (salt-and-pepper specks, and the rare Gaussian speck inside a shape darkened by the
paper's Perlin texture) are dropped before measuring, and a group of fewer than MIN_GROUP pooled cells is not a
stroke group.
Relationship questions have no pixel check (reported as unchecked). A question any check contradicts is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mcot.benchmarks.generators.gepbench.context import REGIONS, Question
from mcot.benchmarks.generators.gepbench.labeling import count_components
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.render import SIZE, to_pixels
from mcot.benchmarks.generators.gepbench.wording import DIRECT_DIRECTIONS
from PIL import Image, ImageDraw

DARK = 200  # pixels darker than this are stroke
MIN_GROUP = 3  # pooled cells: smaller dark specks are noise, not a stroke group
DIRECT_TRUE = math.radians(30)  # "directly to the left of" holds when measured within this angle ...
DIRECT_FALSE = math.radians(40)  # ... and is false when measured at least this far off (or behind)
HALF = SIZE // 2  # shapes are measured at half resolution
HALF_BAND = 5  # half-resolution px: width of the band around an outline whose dark pixels belong to that shape
POOL = 4
MIN_COVERAGE = 0.9
NEIGHBOURS = np.array([dr * SIZE + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)])  # flat offsets of a 3x3 block


@dataclass
class ShapePixels:
    """Pixel measurements of one shape (unit square, y up)."""

    span: tuple[float, float]
    centroid: tuple[float, float]
    area: float


@dataclass
class Verdict:
    """The validator's finding for one question: agree True/False, or None when nothing could be checked."""

    agree: bool | None
    checks: list[dict[str, Any]] = field(default_factory=list)

    def as_meta(self) -> dict[str, Any]:
        """Return the verdict as a JSON-ready dict."""
        return {"agree": self.agree, "checks": self.checks}


def _fill_inside(m: np.ndarray) -> np.ndarray:
    """Return the pixels enclosed by the strokes in m (odd number of stroke runs on all four sides)."""
    inside = ~m
    for axis in (0, 1):
        shifted = np.zeros_like(m)
        if axis == 1:
            shifted[:, 1:] = m[:, :-1]
        else:
            shifted[1:, :] = m[:-1, :]
        starts = (m & ~shifted).view(np.uint8)
        before = np.bitwise_xor.accumulate(starts, axis=axis)
        total = before[:, -1:] if axis == 1 else before[-1:, :]
        inside &= (before == 1) & ((total ^ before) == 1)
    return inside


def _despeckle(dark: np.ndarray) -> np.ndarray:
    """Return the dark mask without isolated pixels (no dark 8-neighbour): salt-and-pepper specks, not strokes."""
    d = dark.view(np.uint8)
    rows = np.zeros_like(d)
    rows[1:-1] = d[:-2] + d[1:-1] + d[2:]  # dark pixels in each 3-high column window
    block = np.zeros_like(d)
    block[:, 1:-1] = rows[:, :-2] + rows[:, 1:-1] + rows[:, 2:]  # ... and in each 3x3 window
    return dark & (block >= 2)


class PixelValidator:
    """Measures a rendered figure; `verdict(question)` checks one question against the measurements."""

    def __init__(self, image: np.ndarray, figure: Figure, widths: tuple[float, ...] | None = None) -> None:
        self.figure = figure
        self.dark = _despeckle(np.asarray(image) < DARK)
        self.widths = widths if widths is not None else (2.5,) * len(figure.shapes)
        self._shapes: dict[int, ShapePixels] = {}
        self._groups: int | None = None
        self._coverage: list[float] = []
        self._dark_half: np.ndarray | None = None

    def groups(self) -> int:
        """Return the number of connected stroke groups seen in the pixels."""
        if self._groups is None:
            # 4x4 pooling is 2x2 pooling of the half-resolution mask (which shapes are measured on anyway):
            # 2 neighbouring bytes of a row viewed as one uint16, non-zero when either is dark
            pairs = np.ascontiguousarray(self._half()).view(np.uint16).reshape(HALF, HALF // 2) != 0
            pooled = pairs.reshape(SIZE // POOL, 2, SIZE // POOL).any(axis=1)
            self._groups = count_components(pooled, min_size=MIN_GROUP)
        return self._groups

    def shape(self, index: int) -> ShapePixels:
        """Return the pixel measurements of shape `index`."""
        if index not in self._shapes:
            self._shapes[index] = self._measure(index)
        return self._shapes[index]

    def _half(self) -> np.ndarray:
        """Return the dark mask at half resolution (a 2x2 block is dark when any of its pixels is)."""
        if self._dark_half is None:
            pairs = np.ascontiguousarray(self.dark).view(np.uint16).reshape(SIZE, HALF) != 0
            self._dark_half = pairs.reshape(HALF, 2, HALF).any(axis=1)
        return self._dark_half

    def _measure(self, index: int) -> ShapePixels:
        """Measure one shape at half resolution: its dark pixels within a band around its outline."""
        shape = self.figure.shapes[index]
        px = to_pixels(shape.array) / 2.0
        lo, hi = px.min(axis=0), px.max(axis=0)
        x0, y0 = max(int(np.floor(lo[0])) - HALF_BAND, 0), max(int(np.floor(lo[1])) - HALF_BAND, 0)
        x1, y1 = min(int(np.ceil(hi[0])) + HALF_BAND, HALF), min(int(np.ceil(hi[1])) + HALF_BAND, HALF)
        w, h = x1 - x0, y1 - y0
        band = Image.new("L", (w, h), 0)
        local = px - [x0, y0]
        if shape.closed:
            local = np.vstack([local, local[:1]])
        ImageDraw.Draw(band).line(local.ravel().tolist(), fill=1, width=HALF_BAND)  # a flat list: no tuples
        # 0/1 bytes read as booleans: mode "1" images convert to numpy bit by bit, several times slower
        mask = np.frombuffer(band.tobytes(), dtype=bool).reshape(h, w) & self._half()[y0:y1, x0:x1]
        cols_hit = np.flatnonzero(np.count_nonzero(mask, axis=0))
        if len(cols_hit) == 0:
            return ShapePixels((0.0, 0.0), (0.5, 0.5), 0.0)
        rows_hit = np.flatnonzero(mask.any(axis=1))
        width = self.widths[index] + 1.0  # a half-resolution block reaches up to a pixel beyond the stroke
        span = (
            max(0.0, 2.0 * float(cols_hit[-1] - cols_hit[0] + 1) - width) / SIZE,
            max(0.0, 2.0 * float(rows_hit[-1] - rows_hit[0] + 1) - width) / SIZE,
        )
        area = 0.0
        filled = mask
        if shape.closed:
            inside = _fill_inside(mask)
            filled = inside | mask
            area = 4.0 * (float(np.count_nonzero(inside)) + 0.5 * float(np.count_nonzero(mask))) / SIZE**2
        col_sums = np.count_nonzero(filled, axis=0)
        row_sums = np.count_nonzero(filled, axis=1)
        total = float(col_sums.sum())
        cx = (2.0 * (float(col_sums @ np.arange(w)) / total + x0) + 1.0) / SIZE
        cy = 1.0 - (2.0 * (float(row_sums @ np.arange(h)) / total + y0) + 1.0) / SIZE
        return ShapePixels(span, (cx, cy), area)

    def coverage(self, index: int) -> float:
        """Return the share of points every ~4 px along shape `index`'s outline with a dark pixel within 1 px."""
        if not self._coverage:
            self._coverage = self._all_coverage()
        return self._coverage[index]

    def _all_coverage(self) -> list[float]:
        # all outlines in one array (a figure's shapes are small: per-shape numpy calls cost more than the work)
        shapes = self.figure.shapes
        rings = [np.vstack([s.array, s.array[:1]]) if s.closed else s.array for s in shapes]
        sizes = np.array([len(r) for r in rings])
        first = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # index of each outline's first point
        px = to_pixels(np.concatenate(rings))
        seg = np.hypot(*np.diff(px, axis=0).T)
        seg[first[1:] - 1] = 4.0 * SIZE  # a long gap between outlines, so that no sample falls between two
        arc = np.concatenate([[0.0], np.cumsum(seg)])
        start, length = arc[first], arc[first + sizes - 1] - arc[first]
        counts = np.ceil((length + 1e-9) / 4.0).astype(int)  # samples every 4 px from each outline's start
        owner = np.repeat(np.arange(len(shapes)), counts)
        steps = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        at = start[owner] + 4.0 * steps
        cols = np.clip(np.rint(np.interp(at, arc, px[:, 0])).astype(int), 1, SIZE - 2)
        rows = np.clip(np.rint(np.interp(at, arc, px[:, 1])).astype(int), 1, SIZE - 2)
        hit = self.dark.ravel()[(rows * SIZE + cols)[:, None] + NEIGHBOURS].any(axis=1)  # a dark pixel within 1 px
        totals = np.bincount(owner, minlength=len(shapes))
        hits = np.bincount(owner, weights=hit, minlength=len(shapes))
        return (hits / np.maximum(totals, 1)).tolist()

    def verdict(self, question: Question) -> Verdict:
        """Return whether the pixels agree with the question's answer, check by check."""
        results: list[dict[str, Any]] = []
        for check in question.checks:
            ok, measured = self._run(check)
            results.append({"check": check["check"], "ok": bool(ok), "measured": measured})
        if not results:
            return Verdict(None, [])
        return Verdict(all(r["ok"] for r in results), results)

    def _run(self, check: dict[str, Any]) -> tuple[bool, Any]:
        kind = check["check"]
        if kind == "strokes":
            seen, expected = self.groups(), self.figure.groups()
            return seen == expected, {"seen": seen, "expected": expected}
        if kind == "visible":
            low = min(self.coverage(i) for i in range(len(self.figure.shapes)))
            return low >= MIN_COVERAGE, round(low, 3)
        if kind in ("span", "area"):
            m = self.shape(check["shape"])
            value = m.area if kind == "area" else m.span[check["axis"]]
            values = check["values"]
            nearest = int(np.argmin([abs(v - value) for v in values]))
            truth_index = int(np.argmin([abs(v - check["truth"]) for v in values]))
            return nearest == truth_index, round(value, 4)
        if kind == "quadrant":
            cx, cy = self.shape(check["shape"]).centroid
            ox, oy = (0.5, 0.5) if check["of"] is None else self.shape(check["of"]).centroid
            quadrant = ("upper " if cy > oy else "lower ") + ("right" if cx > ox else "left")
            return quadrant == check["expect"], quadrant
        if kind == "region":
            cx, cy = self.shape(check["shape"]).centroid
            ox, oy = (0.5, 0.5) if check["of"] is None else self.shape(check["of"]).centroid
            name = check["region"]
            right, upper = REGIONS[name] if name in REGIONS else (name.endswith("right"), name.startswith("upper"))
            inside = (right is None or (cx > ox) == right) and (upper is None or (cy > oy) == upper)
            return inside == check["expect"], [round(cx, 4), round(cy, 4)]
        if kind == "direction":
            (cx, cy), (ox, oy) = self.shape(check["shape"]).centroid, self.shape(check["of"]).centroid
            ux, uy = DIRECT_DIRECTIONS[check["direction"][len("directly to the ") : -len(" of")]]
            along, across = (cx - ox) * ux + (cy - oy) * uy, abs((cx - ox) * uy - (cy - oy) * ux)
            angle = math.atan2(across, along)
            holds = along > 0 and angle <= DIRECT_TRUE
            fails = along <= 0 or angle >= DIRECT_FALSE
            return (holds if check["expect"] else fails), round(math.degrees(angle), 1)
        if kind == "area_order":
            a, b = self.shape(check["shape"]).area, self.shape(check["of"]).area
            holds = (a > b) == check["larger"]
            return holds == check["expect"], [round(a, 4), round(b, 4)]
        raise ValueError(f"unknown validator check {kind!r}")
