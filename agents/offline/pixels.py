"""Pixel reading for offline strategies: decode the canvas image the policy was shown, and refine what the
perception tools found (disc centres, arrow tips, thin strokes) to sub-pixel accuracy.

Coordinates follow the canvas (and Pillow) convention: pixel (x, y) is the point (x, y), y down.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image

Vec = tuple[float, float]


class PixelError(ValueError):
    """What a strategy looked for is not in the picture (say what was missing)."""


@lru_cache(maxsize=8)
def decode(image: bytes) -> np.ndarray:
    """Return the image as an H x W x 3 int16 array (int16 so that colour differences do not wrap)."""
    with Image.open(io.BytesIO(image)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.int16)


def color_mask(pix: np.ndarray, rgb: Sequence[int], tolerance: int = 12) -> np.ndarray:
    """Return the boolean mask of pixels within `tolerance` of `rgb` on every channel."""
    return np.all(np.abs(pix - np.asarray(rgb, dtype=np.int16)) <= tolerance, axis=2)


def points(mask: np.ndarray, box: Sequence[float] | None = None) -> np.ndarray:
    """Return the (x, y) coordinates of the mask's pixels, optionally only inside box [x0, y0, x1, y1)."""
    if box is not None:
        x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
        x1, y1 = math.ceil(box[2]), math.ceil(box[3])
        sub = np.zeros_like(mask)
        sub[y0:y1, x0:x1] = mask[y0:y1, x0:x1]
        mask = sub
    ys, xs = np.nonzero(mask)
    return np.stack([xs, ys], axis=1).astype(float)


def disc_center(pts: np.ndarray, radius: float) -> Vec:
    """Return the centre of the one disc of `radius` in a blob (a disc with thinner strokes attached).

    Every blob pixel scores how many blob pixels lie within radius - 1 of it; only the disc's centre region
    scores the full kernel, so the mean of the best-scoring pixels is the centre.
    """
    if len(pts) == 0:
        raise PixelError("no pixels of the disc's colour")
    x0, y0 = pts.min(axis=0).astype(int)
    w, h = (pts.max(axis=0).astype(int) - (x0, y0)) + 1
    grid = np.zeros((h, w), dtype=np.int32)
    grid[pts[:, 1].astype(int) - y0, pts[:, 0].astype(int) - x0] = 1
    r = max(1, int(radius) - 1)
    padded = np.pad(grid, r)
    score = np.zeros_like(grid)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            if dx * dx + dy * dy <= r * r:
                score += padded[r + dy : r + dy + h, r + dx : r + dx + w]
    score *= grid
    ys, xs = np.nonzero(score == score.max())
    return float(xs.mean() + x0), float(ys.mean() + y0)


def refine_center(pts: np.ndarray, center: Vec, radius: float, rounds: int = 3) -> Vec:
    """Return the mean of the blob pixels within `radius` of `center`, iterated a few times."""
    c = np.asarray(center, dtype=float)
    for _ in range(rounds):
        near = pts[np.hypot(*(pts - c).T) <= radius]
        if len(near) == 0:
            break
        c = near.mean(axis=0)
    return float(c[0]), float(c[1])


def arrow_tip(pts: np.ndarray, origin: Vec, skip: float) -> Vec:
    """Return the tip of an arrow drawn from `origin`: the pixel farthest along the arrow's axis.

    The shaft and head pixels beyond `skip` give the axis (they are symmetric about it); the tip is the one
    of them that reaches farthest along it (the rasterised tip pixel is the tip point itself).
    """
    o = np.asarray(origin, dtype=float)
    rel = pts - o
    far = rel[np.hypot(*rel.T) > skip]
    if len(far) < 3:
        raise PixelError("no arrow next to the dot")
    axis = far.mean(axis=0)
    axis /= float(np.hypot(*axis))
    tip = far[int(np.argmax(far @ axis))] + o
    return float(tip[0]), float(tip[1])


def stroke_segment(pts: np.ndarray) -> tuple[Vec, Vec]:
    """Return the centre line's end points of a straight thick stroke (butt ends) from its pixels."""
    if len(pts) < 2:
        raise PixelError("no stroke pixels")
    c = pts.mean(axis=0)
    rel = pts - c
    _, vecs = np.linalg.eigh(rel.T @ rel)
    axis = vecs[:, 1]
    proj = rel @ axis
    lo, hi = float(proj.min()), float(proj.max())
    a, b = c + axis * lo, c + axis * hi
    return (float(a[0]), float(a[1])), (float(b[0]), float(b[1]))


def snap(p: Sequence[float]) -> list[float]:
    """Return the point with each coordinate rounded to the nearest whole pixel."""
    return [float(round(p[0])), float(round(p[1]))]


@lru_cache(maxsize=4)
def _digit_templates(size: int) -> dict[str, np.ndarray]:
    """Return the bitmaps of the digits 1-9 and of 10-20 in Pillow's default font at `size`, cropped tight."""
    from PIL import ImageDraw, ImageFont

    font = ImageFont.load_default(size=size)
    out: dict[str, np.ndarray] = {}
    for k in range(1, 21):
        image = Image.new("L", (96, 64), 255)
        draw = ImageDraw.Draw(image)
        draw.fontmode = "1"
        draw.text((48, 32), str(k), fill=0, font=font, anchor="mm")
        mask = np.asarray(image) < 128
        ys, xs = np.nonzero(mask)
        out[str(k)] = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return out


def read_number(mask: np.ndarray, size: int = 18) -> tuple[str, float]:
    """Return the number (1-20) a tight-cropped glyph mask shows in Pillow's default font, and the mismatch.

    The mismatch is the share of pixels that differ from the best template at its best alignment (0 = exact).
    """
    best: tuple[str, float] = ("", math.inf)
    h, w = mask.shape
    for label, tpl in _digit_templates(size).items():
        th, tw = tpl.shape
        if abs(th - h) > 2 or abs(tw - w) > 2:
            continue
        H, W = max(h, th) + 2, max(w, tw) + 2
        a = np.zeros((H, W), dtype=bool)
        a[1 : 1 + h, 1 : 1 + w] = mask
        for dy in range(0, H - th + 1):
            for dx in range(0, W - tw + 1):
                b = np.zeros((H, W), dtype=bool)
                b[dy : dy + th, dx : dx + tw] = tpl
                score = float(np.count_nonzero(a ^ b)) / float(max(1, int(np.count_nonzero(a | b))))
                if score < best[1]:
                    best = (label, score)
    if not best[0]:
        raise PixelError(f"a {w}x{h} mark that is not a number")
    return best


def _fit_line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = pts.mean(axis=0)
    rel = pts - c
    _, vecs = np.linalg.eigh(rel.T @ rel)
    return c, vecs[:, 1]


def sharpen_polygon(mask: np.ndarray, vertices: Sequence[Sequence[float]], min_edge: float = 10.0) -> list[Vec]:
    """Return a filled convex polygon's corners from its pixels, given rough vertices (a tool's outline).

    Each edge's line is fitted to the boundary pixels along the middle of the rough edge and moved out by a
    quarter pixel (boundary pixel centres lie just inside the true edge; a quarter fits Pillow's fill best);
    corners are where consecutive lines meet. Rough edges shorter than `min_edge` (a clipped sharp corner)
    are dropped first, and two consecutive fits of one line are merged.
    """
    verts = [np.asarray(v, dtype=float) for v in vertices]
    changed = True
    while changed and len(verts) > 3:
        changed = False
        for i in range(len(verts)):
            if float(np.linalg.norm(verts[(i + 1) % len(verts)] - verts[i])) < min_edge:
                verts.pop((i + 1) % len(verts))
                changed = True
                break
    inner = mask.copy()
    inner[1:, :] &= mask[:-1, :]
    inner[:-1, :] &= mask[1:, :]
    inner[:, 1:] &= mask[:, :-1]
    inner[:, :-1] &= mask[:, 1:]
    edge_pts = points(mask & ~inner)
    centroid = np.mean(verts, axis=0)
    lines = []
    for i in range(len(verts)):
        a, b = verts[i], verts[(i + 1) % len(verts)]
        length = float(np.linalg.norm(b - a))
        u = (b - a) / length
        rel = edge_pts - a
        t = rel @ u
        off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        near = edge_pts[(off <= 2.5) & (t > 0.2 * length) & (t < 0.8 * length)]
        if len(near) < 5:
            raise PixelError("a polygon edge has too few pixels to fit")
        c, d = _fit_line(near)
        n = np.array([-d[1], d[0]])
        if (centroid - c) @ n > 0:
            n = -n
        lines.append((c + 0.25 * n, d))
    merged: list[tuple[np.ndarray, np.ndarray]] = []
    for line in lines:  # a rough vertex in the middle of a side: two fits of one line
        if merged and abs(float(merged[-1][1] @ line[1])) > math.cos(math.radians(4.0)):
            continue
        merged.append(line)
    if len(merged) > 3 and abs(float(merged[0][1] @ merged[-1][1])) > math.cos(math.radians(4.0)):
        merged.pop()
    lines = merged
    if len(lines) < 3:
        raise PixelError("fewer than three polygon edges")
    out: list[Vec] = []
    for i in range(len(lines)):
        (p, u), (q, v) = lines[i - 1], lines[i]
        m = np.array([[u[0], -v[0]], [u[1], -v[1]]])
        s, _ = np.linalg.solve(m, q - p)
        x = p + s * u
        out.append((float(x[0]), float(x[1])))
    return out
