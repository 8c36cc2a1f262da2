"""maze_from_image: read a rendered block maze (black wall cells, white free cells, green start, coloured exits)."""

from __future__ import annotations

import math

import numpy as np
from mcot.tools.args import Number, Point
from mcot.tools.errors import ToolError
from mcot.tools.perception import PixelArgs, crop
from mcot.tools.raster import color_name
from mcot.tools.registry import Context, Output, tool
from pydantic import Field

START_RGB = (0, 170, 0)
"""Colour of the start cell in generated mazes."""

_DARK, _LIGHT, _COLOURED = 1, 0, 2


class MazeImageArgs(PixelArgs):
    cell: Number | None = Field(None, ge=3, le=1000, description="cell size in pixels (default: found)")
    origin: Point | None = Field(None, description="[x, y] of the grid's top-left corner (default: found)")
    labels: dict[str, str] | None = Field(
        None,
        max_length=26,
        description='exit label by colour name or hex, e.g. {"red": "A", "blue": "B"} (default: \'E\' for a '
        "single exit, else the colour's initial)",
    )


def pixel_classes(pix: np.ndarray) -> np.ndarray:
    """Return 1 for dark (wall) pixels, 0 for light (free) pixels and 2 for coloured ones."""
    p = pix.astype(np.int16)
    hi, lo = p.max(axis=2), p.min(axis=2)
    cls = np.full(p.shape[:2], _COLOURED, dtype=np.int8)
    cls[hi < 90] = _DARK
    cls[(lo > 190) & (hi - lo < 40)] = _LIGHT
    return cls


def _uniform_score(cls: np.ndarray, x0: float, y0: float, cell: float, rows: int, cols: int) -> float:
    """Return the fraction of cells whose five sample points all share one class."""
    offs = np.array([0.5, 0.25, 0.75])
    cx = x0 + (np.arange(cols)[:, None] + offs[None, :]) * cell
    cy = y0 + (np.arange(rows)[:, None] + offs[None, :]) * cell
    h, w = cls.shape
    xi = np.clip(np.floor(cx).astype(int), 0, w - 1)
    yi = np.clip(np.floor(cy).astype(int), 0, h - 1)
    centre = cls[np.ix_(yi[:, 0], xi[:, 0])]
    same = np.ones_like(centre, dtype=bool)
    for a in (1, 2):
        for b in (1, 2):
            same &= cls[np.ix_(yi[:, a], xi[:, b])] == centre
    return float(same.mean())


def _run_lengths(cls: np.ndarray) -> np.ndarray:
    """Return the lengths of the runs of equal class along each row (rows sampled at most 400)."""
    step = max(1, cls.shape[0] // 400)
    lengths = []
    for row in cls[::step]:
        cuts = np.flatnonzero(row[1:] != row[:-1]) + 1
        lengths.append(np.diff(np.concatenate([[0], cuts, [len(row)]])))
    return np.concatenate(lengths) if lengths else np.zeros(0)


def find_grid(cls: np.ndarray) -> tuple[float, float, float, int, int]:
    """Return (x0, y0, cell, rows, cols) of the block grid: the largest square cell that makes every cell uniform."""
    ys, xs = np.nonzero(cls != _LIGHT)
    if len(xs) == 0:
        raise ToolError("no maze found: the image has no dark wall cells; check the region or pass cell and origin")
    x0, x1, y0, y1 = int(xs.min()), int(xs.max()) + 1, int(ys.min()), int(ys.max()) + 1
    bw, bh = x1 - x0, y1 - y0
    box = cls[y0:y1, x0:x1]
    runs = np.concatenate([_run_lengths(box), _run_lengths(box.T)])
    for cols in range(2, max(3, bw // 3) + 1):
        cell = bw / cols
        rows = round(bh / cell)
        if rows < 2 or abs(bh / cell - rows) > 0.25:
            continue
        ratio = runs / cell
        fits = (np.abs(ratio - np.round(ratio)) * cell <= 1.0) & (np.round(ratio) >= 1)
        if fits.mean() < 0.97:
            continue  # every run of one colour must span a whole number of cells
        if _uniform_score(cls, x0, y0, cell, rows, cols) >= 0.995:
            return float(x0), float(y0), cell, rows, cols
    raise ToolError(
        "could not find a grid of square cells; pass cell (pixels) and origin ([x, y] of the top-left "
        "corner) if the maze is drawn differently"
    )


def _label_for(name: str, hex_code: str, labels: dict[str, str] | None, used: set[str], single: bool) -> str:
    if labels:
        for key in (name, hex_code):
            for k, v in labels.items():
                if k.strip().lower() == key and len(v) == 1:
                    return v
    if single:
        return "E"
    for cand in [name[0].upper(), *"ABCDFGHIJKLMNOPQRTUVWXYZ"]:
        if cand not in used and cand not in "SE#.":
            return cand
    return "E"


@tool("perception", example={})
def maze_from_image(args: MazeImageArgs, ctx: Context) -> Output:
    """Read a block maze drawn as black wall cells, white free cells, a green start cell and coloured exit cells
    into the text grid solve_maze takes ('#' wall, '.' free, 'S' start, exits as 'E' or a letter per colour).
    The cell size and grid origin are found from the pixels unless given.

    Returns data.grid (rows of text), data.cell, data.origin, data.start ([row, col]) and data.exits
    ([{label, color, rgb, cell: [row, col], center: [x, y]}]); marks the exits when draw.
    """
    pix, ox, oy = crop(ctx, args)
    cls = pixel_classes(pix)
    if args.cell is not None and args.origin is not None:
        cell = float(args.cell)
        x0, y0 = args.origin[0] - ox, args.origin[1] - oy
        ys, xs = np.nonzero(cls != _LIGHT)
        if len(xs) == 0:
            raise ToolError("no maze found: the image has no dark wall cells")
        cols = max(1, round((xs.max() + 1 - x0) / cell))
        rows = max(1, round((ys.max() + 1 - y0) / cell))
    elif args.cell is not None or args.origin is not None:
        raise ToolError("give both cell and origin, or neither (then they are found from the pixels)")
    else:
        x0, y0, cell, rows, cols = find_grid(cls)
    if rows * cols > 300 * 300:
        raise ToolError(f"the grid would have {rows}x{cols} cells; pass a larger cell size or a region")
    h, w = cls.shape
    grid: list[list[str]] = []
    colours: dict[tuple[int, int], tuple[int, int, int]] = {}
    start: list[int] | None = None
    for r in range(rows):
        row = []
        for c in range(cols):
            ya, yb = math.floor(y0 + (r + 0.25) * cell), math.ceil(y0 + (r + 0.75) * cell)
            xa, xb = math.floor(x0 + (c + 0.25) * cell), math.ceil(x0 + (c + 0.75) * cell)
            ya, yb, xa, xb = max(0, ya), min(h, max(yb, ya + 1)), max(0, xa), min(w, max(xb, xa + 1))
            if ya >= h or xa >= w:
                row.append("#")
                continue
            block = cls[ya:yb, xa:xb].ravel()
            kind = int(np.bincount(block, minlength=3).argmax())
            if kind == _DARK:
                row.append("#")
            elif kind == _LIGHT:
                row.append(".")
            else:
                patch = pix[ya:yb, xa:xb].reshape(-1, 3)
                rgb = tuple(int(v) for v in np.median(patch[block == _COLOURED], axis=0))
                if start is None and max(abs(a - b) for a, b in zip(rgb, START_RGB, strict=True)) < 60:
                    start = [r, c]
                    row.append("S")
                else:
                    colours[(r, c)] = rgb  # type: ignore[assignment]
                    row.append("?")
        grid.append(row)
    names = {cellrc: color_name(rgb) for cellrc, rgb in colours.items()}
    distinct = sorted(set(names.values()))
    by_name: dict[str, str] = {}
    for name in distinct:
        hex_code = "#{:02x}{:02x}{:02x}".format(*next(rgb for rc, rgb in colours.items() if names[rc] == name))
        by_name[name] = _label_for(name, hex_code, args.labels, set(by_name.values()), len(distinct) == 1)
    exits = []
    for (r, c), rgb in sorted(colours.items()):
        label = by_name[names[(r, c)]]
        grid[r][c] = label
        exits.append(
            {
                "label": label,
                "color": names[(r, c)],
                "rgb": list(rgb),
                "cell": [r, c],
                "center": [x0 + ox + (c + 0.5) * cell, y0 + oy + (r + 0.5) * cell],
            }
        )
    text_grid = ["".join(row) for row in grid]
    if args.draw:
        for e in exits[:50]:
            ctx.sketch.point(e["center"], label=str(e["label"]), color="magenta", radius=3.0)  # type: ignore[arg-type]
    data = {
        "grid": text_grid,
        "rows": rows,
        "cols": cols,
        "cell": cell,
        "origin": [x0 + ox, y0 + oy],
        "start": start,
        "exits": exits,
    }
    legend = ", ".join(f"{e['label']} = {e['color']} at {e['cell']}" for e in exits[:30])
    warn = "" if start else " (no green start cell found: mark S yourself before solve_maze)"
    return Output(
        f"{rows}x{cols} grid, cell {cell:.2f} px, origin ({x0 + ox:.1f}, {y0 + oy:.1f}){warn}; exits: "
        f"{legend or 'none'}\n" + "\n".join(text_grid),
        data,
    )
