"""Read a line drawing from pixels: a big triangle with straight strokes whose ends lie on its sides.

The outline's three sides are fitted to the stroke pixels (so the corners are where the fitted lines meet);
the inner strokes are found where they cross two lines parallel to each side, just inside it, and kept only
when the straight segment between two such ends (or a corner) is inked along its whole length. Each kept
stroke's line is then fitted to its own ink and its ends moved to where that line meets the sides; of two
readings of one stroke the better inked wins, and ends a pixel or two apart are joined into one point.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from mcot.agents.offline.pixels import PixelError
from shapely.geometry import MultiPoint

Vec = tuple[float, float]
Segment = tuple[Vec, Vec]
NEAR_CORNER = 8.0  # px: scan lines stop this far from the other sides (the corners' own ink)
OFFSETS = (4.0, 10.0)  # px inside each side: where the inner strokes are crossed
INKED = 0.96  # share of points along a candidate segment that must be on ink
ROUGH_INKED = 0.85  # the same before the candidate's line is fitted to its ink (its ends may be a few px off)
STROKE = 3.0  # px: the width of a drawn stroke
PAIRING = 40.0  # px: farthest apart the two crossings of one stroke can be (a stroke 15 degrees off its side)
END_CLEAR = 15.0  # px: a stroke's end this close to a corner is the corner's own ink


def _line_fit(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return a point on the best-fit line of the points and its unit direction."""
    c = pts.mean(axis=0)
    rel = pts - c
    _, vecs = np.linalg.eigh(rel.T @ rel)
    return c, vecs[:, 1]


def _meet(p: np.ndarray, u: np.ndarray, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Return where the lines p + s u and q + t v meet."""
    m = np.array([[u[0], -v[0]], [u[1], -v[1]]])
    s, _ = np.linalg.solve(m, q - p)
    return p + s * u


def _dist_to_line(pts: np.ndarray, c: np.ndarray, u: np.ndarray) -> np.ndarray:
    rel = pts - c
    return np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])


def outline_triangle(ink: np.ndarray) -> list[np.ndarray]:
    """Return the three corners of the drawing's outline triangle (fitted sides, met), clockwise or not."""
    ys, xs = np.nonzero(ink)
    if len(xs) < 30:
        raise PixelError("no line drawing in the picture")
    pts = np.stack([xs, ys], axis=1).astype(float)
    hull = np.array(MultiPoint([tuple(p) for p in pts[_hull_candidates(pts)]]).convex_hull.exterior.coords)[:-1]
    best, corners = -1.0, None
    for i, j, k in itertools.combinations(range(len(hull)), 3):
        a, b, c = hull[i], hull[j], hull[k]
        area = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
        if area > best:
            best, corners = area, (a, b, c)
    assert corners is not None
    lines = []
    for p, q in ((corners[0], corners[1]), (corners[1], corners[2]), (corners[2], corners[0])):
        u = (q - p) / np.linalg.norm(q - p)
        c = p
        for band in (3.0, 2.0, 1.6):
            t = (pts - p) @ ((q - p) / np.linalg.norm(q - p))
            length = float(np.linalg.norm(q - p))
            near = pts[(_dist_to_line(pts, c, u) <= band) & (t > 0.12 * length) & (t < 0.88 * length)]
            if len(near) < 10:
                raise PixelError("an outline side is missing")
            c, u = _line_fit(near)
        lines.append((c, u))
    return [_meet(*lines[2], *lines[0]), _meet(*lines[0], *lines[1]), _meet(*lines[1], *lines[2])]


def _hull_candidates(pts: np.ndarray) -> np.ndarray:
    """Return indices of the points extreme in some direction (a cheap superset of the hull's vertices)."""
    picks = set()
    for angle in np.linspace(0, math.pi, 90, endpoint=False):
        d = np.array([math.cos(angle), math.sin(angle)])
        proj = pts @ d
        picks.add(int(np.argmax(proj)))
        picks.add(int(np.argmin(proj)))
    return np.array(sorted(picks))


def _inked(ink: np.ndarray, x: float, y: float) -> bool:
    h, w = ink.shape
    xi, yi = round(x), round(y)
    return 0 <= xi < w and 0 <= yi < h and bool(ink[yi, xi])


def _runs(flags: list[bool], step: float) -> list[float]:
    """Return where strokes may cross a scan sampled every `step`: each run of True's centre and, for runs
    wider than one stroke (two strokes side by side), points one half-stroke in from either end."""
    out: list[float] = []
    start = None
    for i, f in enumerate([*flags, False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            lo, hi = start * step, (i - 1) * step
            out.append((lo + hi) / 2)
            if hi - lo > STROKE + 1:
                out += [lo + STROKE / 2, hi - STROKE / 2]
            start = None
    return out


def inner_ends(ink: np.ndarray, corners: list[np.ndarray]) -> list[tuple[int, np.ndarray]]:
    """Return (side index, point) for each place an inner stroke meets a side of the outline triangle.

    Side k runs from corner k to corner k + 1. Each stroke is crossed on two lines inside the side; the line
    through the two crossings, extended, meets the side at the stroke's end.
    """
    centroid = sum(corners) / 3
    ends: list[tuple[int, np.ndarray]] = []
    step = 0.5
    for k in range(3):
        p, q = corners[k], corners[(k + 1) % 3]
        length = float(np.linalg.norm(q - p))
        u = (q - p) / length
        n = np.array([-u[1], u[0]])
        if (centroid - p) @ n < 0:
            n = -n
        others = [(corners[(k + 1) % 3], corners[(k + 2) % 3]), (corners[(k + 2) % 3], corners[k])]
        crossings: list[list[np.ndarray]] = []
        for d in OFFSETS:
            flags = []
            for s in np.arange(0.0, length, step):
                at = p + u * s + n * d
                clear = all(_point_line_distance(at, a, b) > NEAR_CORNER + 2 for a, b in others)
                flags.append(clear and _inked(ink, at[0], at[1]))
            crossings.append([p + u * s + n * d for s in _runs(flags, step)])
        near, far = crossings
        gap = OFFSETS[1] - OFFSETS[0]
        for c1 in near:  # every plausible pairing: the inked test later keeps the true strokes only
            for c2 in far:
                if float(np.linalg.norm(c2 - c1)) > PAIRING:
                    continue
                end = p + u * float((c1 + (c1 - c2) * (OFFSETS[0] / gap) - p) @ u)
                if all(float(np.linalg.norm(end - e)) > 2.0 for j, e in ends if j == k):
                    ends.append((k, end))
    return ends


def _point_line_distance(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    return abs(float(d[0] * (x[1] - a[1]) - d[1] * (x[0] - a[0]))) / float(np.linalg.norm(d))


def _inked_along(ink: np.ndarray, a: np.ndarray, b: np.ndarray, margin: float = 4.0) -> float:
    """Return the share of points along segment ab (leaving `margin` at each end) that lie on ink."""
    length = float(np.linalg.norm(b - a))
    if length < 2 * margin + 4:
        return 0.0
    u = (b - a) / length
    s = np.arange(margin, length - margin, 1.0)
    xs = np.rint(a[0] + u[0] * s).astype(int)
    ys = np.rint(a[1] + u[1] * s).astype(int)
    h, w = ink.shape
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    hits = np.zeros(len(s), dtype=bool)
    hits[inside] = ink[ys[inside], xs[inside]]
    return float(hits.mean())


def _grown(ink: np.ndarray) -> np.ndarray:
    """Return the ink grown by one pixel in each direction (a 3x3 dilation)."""
    out = ink.copy()
    out[1:, :] |= ink[:-1, :]
    out[:-1, :] |= ink[1:, :]
    grown = out.copy()
    grown[:, 1:] |= out[:, :-1]
    grown[:, :-1] |= out[:, 1:]
    return grown


def read_figure(ink: np.ndarray) -> list[Segment]:
    """Return the drawing's segments: the outline triangle's three sides, then each inner stroke."""
    corners = outline_triangle(ink)
    snapped = [np.round(c) for c in corners]
    ends = [
        (k, np.round(e))
        for k, e in inner_ends(ink, snapped)
        if min(float(np.linalg.norm(e - c)) for c in snapped) > END_CLEAR
    ]
    wide = _grown(ink)
    points: list[tuple[set[int], np.ndarray]] = [({(i - 1) % 3, i}, c) for i, c in enumerate(snapped)]
    points += [({k}, e) for k, e in ends]
    ys, xs = np.nonzero(ink)
    pts = np.stack([xs, ys], axis=1).astype(float)
    scored: list[tuple[float, float, Segment]] = []
    for (sa, a), (sb, b) in itertools.combinations(points, 2):
        if sa & sb or np.linalg.norm(a - b) < 12:
            continue
        if _inked_along(wide, a, b) < ROUGH_INKED:
            continue
        a, b = _refine(pts, a, b, sa, sb, snapped)
        if _inked_along(wide, a, b) >= INKED:
            seg = ((float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
            scored.append((_inked_along(ink, a, b), math.dist(*seg), seg))
    found: list[Segment] = []
    for _, _, seg in sorted(scored, key=lambda x: (-x[0], -x[1])):  # best inked first: it wins its rivals
        if not any(_rivals(seg, other) for other in found):
            found.append(seg)
    found = [seg for seg in found if not any(_inside(seg, other) for other in found if other is not seg)]
    found = _join_close_ends(found, [(float(c[0]), float(c[1])) for c in snapped])
    sides = [
        ((float(snapped[i][0]), float(snapped[i][1])), (float(snapped[(i + 1) % 3][0]), float(snapped[(i + 1) % 3][1])))
        for i in range(3)
    ]
    return sides + found


def _refine(
    pts: np.ndarray, a: np.ndarray, b: np.ndarray, sa: set[int], sb: set[int], corners: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Return the segment's ends after fitting its line to the ink along it; an end on a side moves along that
    side to where the fitted line meets it, a corner stays."""
    length = float(np.linalg.norm(b - a))
    c, u = a, (b - a) / length
    for band in (2.5, 1.6):
        t = (pts - a) @ ((b - a) / length)
        near = pts[(_dist_to_line(pts, c, u) <= band) & (t > 6.0) & (t < length - 6.0)]
        if len(near) < 10:
            return a, b
        c, u = _line_fit(near)
    ends = []
    for end, sides in ((a, sa), (b, sb)):
        if len(sides) == 2:
            ends.append(end)
            continue
        (k,) = sides
        p, q = corners[k], corners[(k + 1) % 3]
        try:
            ends.append(np.round(_meet(c, u, p, (q - p) / float(np.linalg.norm(q - p)))))
        except np.linalg.LinAlgError:
            ends.append(end)
    return ends[0], ends[1]


def _rivals(s: Segment, t: Segment, tol: float = 6.0) -> bool:
    """Return whether two candidates are readings of one stroke (each one's ends lie near the other)."""
    sa, sb = np.array(s[0]), np.array(s[1])
    ta, tb = np.array(t[0]), np.array(t[1])
    return all(_segment_distance(p, ta, tb) <= tol for p in (sa, sb)) and all(
        _segment_distance(p, sa, sb) <= tol for p in (ta, tb)
    )


def _inside(s: Segment, t: Segment, tol: float = 3.5) -> bool:
    """Return whether segment s lies along the longer segment t (both its ends within `tol` of t)."""
    if math.dist(*s) >= math.dist(*t):
        return False
    a, b = np.array(t[0]), np.array(t[1])
    return all(_segment_distance(np.array(p), a, b) <= tol for p in s)


def _segment_distance(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    t = float(np.clip((x - a) @ d / float(d @ d), 0.0, 1.0))
    return float(np.linalg.norm(x - (a + t * d)))


def _join_close_ends(segments: list[Segment], corners: list[Vec], tol: float = 3.5) -> list[Segment]:
    """Return the segments with ends closer than `tol` to each other (or to a corner) moved to one point:
    strokes drawn from one point are read with ends a pixel or two apart."""
    ends = [p for seg in segments for p in seg]
    groups: list[list[Vec]] = []
    for p in ends:
        for g in groups:
            if math.dist(p, g[0]) < tol:
                g.append(p)
                break
        else:
            groups.append([p])
    where: dict[Vec, Vec] = {}
    for g in groups:
        corner = next((c for c in corners if math.dist(c, g[0]) < tol), None)
        mean = corner or (round(sum(p[0] for p in g) / len(g)), round(sum(p[1] for p in g) / len(g)))
        for p in g:
            where[p] = (float(mean[0]), float(mean[1]))
    return [(where[a], where[b]) for a, b in segments]
