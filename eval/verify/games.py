"""Trace verifiers of the generated games: maze routes, light rays, ball bounces, dart trajectories, dot order.

Each verifier takes an item's solution geometry (`meta`) and the candidate paths the model drew (see
`replay.candidate_paths`), and is `valid` when one candidate satisfies the task, `invalid` with the first
violation of the candidate that went furthest when none does. Only what the model drew is credited: elements a
domain tool drew (`drawn_by: "tool"`) are replayed, so that undo and ids stay right, but are no candidates; the
verdict counts them apart (`tool_drawn`). A trace where only a tool drew is `absent` for the model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mcot.eval.verify.plane import (
    Path,
    Point,
    angle_between,
    dist,
    fmt,
    inside,
    point_polyline_distance,
    point_segment_distance,
    pt,
    reflect_direction,
    refract_direction,
    samples,
    segment_intersection,
    simplify,
    sub,
    unit,
)
from mcot.eval.verify.replay import MODEL, TOOL, canvas_size, chain, drawn_paths, trace_ops
from mcot.eval.verify.verdict import Check, TraceVerdict, best

from mcot.core.item import Item

# --------------------------------------------------------------------------------------------- maze


def verify_maze(meta: dict[str, Any], paths: Sequence[Path], *, wall_margin: float = 0.2) -> TraceVerdict:
    """Return the verdict on drawn maze routes: from the start cell to the target exit, through no wall."""
    grid: list[str] = meta["grid"]
    cell = float(meta["cell"])
    x0, y0 = pt(meta.get("origin", (0, 0)))
    path_cells = [tuple(c) for c in meta.get("path", [])]
    start = tuple(meta["start"]) if meta.get("start") else (path_cells[0] if path_cells else _find(grid, "S"))
    target_label = meta.get("target")
    exits = {label: tuple(info["cell"]) for label, info in (meta.get("exits") or {}).items()}
    goal = exits.get(target_label) if target_label in exits else (path_cells[-1] if path_cells else _find(grid, "E"))
    margin = wall_margin * cell

    def cell_of(p: Point) -> tuple[int, int]:
        return (math.floor((p[1] - y0) / cell), math.floor((p[0] - x0) / cell))

    def check(route: Path) -> Check:
        if cell_of(route[0]) != start and cell_of(route[-1]) == start:
            route = route[::-1]
        if cell_of(route[0]) != start:
            return Check(
                False,
                f"the route starts at {fmt(route[0])}, cell {cell_of(route[0])}, not on the start cell {start}",
                0,
            )
        along = samples(route, cell / 5)
        for index, p in enumerate(along):
            r, c = cell_of(p)
            if not (0 <= r < len(grid) and 0 <= c < len(grid[r])):
                return Check(False, f"the route leaves the maze at {fmt(p)}", index)
            if grid[r][c] == "#":
                cx, cy = x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell
                if abs(p[0] - cx) < cell / 2 - margin and abs(p[1] - cy) < cell / 2 - margin:
                    return Check(False, f"the route crosses the wall cell {(r, c)} at {fmt(p)}", index)
        end = cell_of(route[-1])
        if end != goal:
            named = [label for label, cell_rc in exits.items() if cell_rc == end]
            where = f"exit {named[0]}" if named else f"cell {end}"
            return Check(False, f"the route ends at {where}, not at the exit {target_label or goal}", len(along))
        return Check(True, None, len(along) + 1)

    return best([check(p) for p in paths], len(paths), "maze")


def _find(grid: Sequence[str], char: str) -> tuple[int, int]:
    for r, row in enumerate(grid):
        if char in row:
            return (r, row.index(char))
    raise KeyError(char)


# ------------------------------------------------------------------------------------ ray and bounce


@dataclass(frozen=True)
class _Surface:
    a: Point
    b: Point
    kind: str  # "mirror" | "glass" | "wall" | "brick"
    n: float = 1.0
    polygon: tuple[Point, ...] = ()


def _ray_surfaces(meta: dict[str, Any]) -> list[_Surface]:
    surfaces: list[_Surface] = []
    for surface in meta.get("surfaces", []):
        if surface.get("kind") == "mirror":
            a, b = (pt(p) for p in surface["points"])
            surfaces.append(_Surface(a, b, "mirror"))
        elif surface.get("kind") == "block":
            polygon = tuple(pt(p) for p in surface["polygon"])
            for i in range(len(polygon)):
                surfaces.append(
                    _Surface(polygon[i], polygon[(i + 1) % len(polygon)], "glass", float(surface["n"]), polygon)
                )
        elif surface.get("kind") == "interface":
            a, b = (pt(p) for p in surface["points"])
            surfaces.append(_Surface(a, b, "glass", float(surface.get("n2", 1.0))))
    return surfaces


def _check_turns(
    route: Path,
    surfaces: Sequence[_Surface],
    *,
    origin: Point,
    direction: Point,
    tol_px: float,
    tol_deg: float,
    near: float,
) -> Check:
    """Check a drawn light or ball path: start, first direction, and the law obeyed at every turn."""
    if dist(route[0], origin) > near and dist(route[-1], origin) <= near:
        route = route[::-1]
    route = simplify(route)
    if len(route) < 2:
        return Check(False, "the drawing is a single point", 0)
    if dist(route[0], origin) > near:
        return Check(False, f"the path starts at {fmt(route[0])}, not at the source {fmt(origin)}", 0)
    off = angle_between(sub(route[1], route[0]), direction)
    if off > tol_deg:
        return Check(False, f"the first segment leaves {off:.1f}° off the given direction", 0.5)
    for index in range(len(route) - 1):
        a, b = route[index], route[index + 1]
        last = index == len(route) - 2
        crossing = _crossed_surface(a, b, [s for s in surfaces if not (last and s.kind == "brick")], tol_px, tol_deg)
        if crossing is not None:
            surface, at = crossing
            return Check(
                False,
                f"segment {index + 1} passes through a {surface.kind} surface at {fmt(at)} without turning",
                index + 0.75,
            )
        if last:
            break
        vertex, after = b, route[index + 2]
        d_in, d_out = sub(vertex, a), sub(after, vertex)
        nearby = [s for s in surfaces if point_segment_distance(vertex, s.a, s.b) <= tol_px]
        if not nearby:
            return Check(False, f"the path turns at {fmt(vertex)}, where there is no surface", index + 1)
        errors = []
        for surface in nearby:
            expected = _expected_direction(surface, a, vertex, d_in)
            errors.append((angle_between(expected, d_out), surface))
        error, surface = min(errors, key=lambda pair: pair[0])
        if error > tol_deg:
            law = "reflection" if surface.kind != "glass" else "refraction (Snell's law, with TIR)"
            return Check(False, f"the turn at {fmt(vertex)} breaks the law of {law} by {error:.1f}°", index + 1)
    return Check(True, None, len(route))


def _expected_direction(surface: _Surface, before: Point, vertex: Point, d_in: Point) -> Point:
    if surface.kind in ("mirror", "wall", "brick"):
        return reflect_direction(d_in, surface.a, surface.b)
    back = min(dist(before, vertex) / 2, 10.0)
    heading = unit(d_in)
    middle = (vertex[0] - heading[0] * back, vertex[1] - heading[1] * back)
    within = bool(surface.polygon) and inside(middle, surface.polygon)
    n1, n2 = (surface.n, 1.0) if within else (1.0, surface.n)
    refracted = refract_direction(d_in, surface.a, surface.b, n1, n2)
    return refracted if refracted is not None else reflect_direction(d_in, surface.a, surface.b)


def _crossed_surface(
    a: Point, b: Point, surfaces: Sequence[_Surface], tol_px: float, tol_deg: float
) -> tuple[_Surface, Point] | None:
    """Return a surface the open segment a–b crosses (away from its ends) that should have turned it.

    Crossing glass without a drawn turn is fine when the law predicts a deviation within `tol_deg`
    (near-normal incidence, or an index of 1).
    """
    for surface in surfaces:
        at = segment_intersection(a, b, surface.a, surface.b)
        if at is None or dist(at, a) <= tol_px or dist(at, b) <= tol_px:
            continue
        if surface.kind == "glass":
            d = sub(b, a)
            if angle_between(_expected_direction(surface, a, at, d), d) <= tol_deg:
                continue
        return surface, at
    return None


def verify_ray(
    meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float = 6.0, tol_deg: float = 4.0
) -> TraceVerdict:
    """Return the verdict on drawn light rays: from the source along the arrow, reflection/refraction at turns."""
    surfaces = _ray_surfaces(meta)
    origin, direction = pt(meta["origin"]), pt(meta["direction"])
    checks = [
        _check_turns(p, surfaces, origin=origin, direction=direction, tol_px=tol_px, tol_deg=tol_deg, near=12.0)
        for p in paths
    ]
    return best(checks, len(paths), "ray")


def verify_bounce(
    meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float = 6.0, tol_deg: float = 4.0
) -> TraceVerdict:
    """Return the verdict on drawn ball paths: from the ball along the arrow, reflecting off walls and bricks."""
    x0, y0, x1, y1 = (float(v) for v in meta["box"])
    walls = [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]
    surfaces = [_Surface(a, b, "wall") for a, b in walls]
    for brick in meta.get("bricks", []):
        bx0, by0, bx1, by1 = (float(v) for v in brick["rect"])
        corners = [(bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1)]
        surfaces += [_Surface(corners[i], corners[(i + 1) % 4], "brick") for i in range(4)]
    ball = meta.get("ball", {})
    radius = float(ball.get("radius", 0.0))
    origin = pt(ball.get("start", meta.get("origin")))
    direction = pt(meta["direction"])
    checks = [
        _check_turns(
            p, surfaces, origin=origin, direction=direction, tol_px=radius + tol_px, tol_deg=tol_deg, near=radius + 8.0
        )
        for p in paths
    ]
    return best(checks, len(paths), "bounce")


# --------------------------------------------------------------------------------------------- dart


def verify_dart(meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float | None = None) -> TraceVerdict:
    """Return the verdict on drawn dart trajectories: within a tolerance of the true parabola up to the hit."""
    truth = [pt(p) for p in meta["path"]]
    xs, ys = [p[0] for p in truth], [p[1] for p in truth]
    extent = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    tol = tol_px if tol_px is not None else max(8.0, 0.03 * extent)
    origin = pt(meta.get("origin", truth[0]))
    hit = pt(meta["hit"]["at"]) if isinstance(meta.get("hit"), dict) and "at" in meta["hit"] else truth[-1]

    def check(route: Path) -> Check:
        if dist(route[0], origin) > tol and dist(route[-1], origin) <= tol:
            route = route[::-1]
        if dist(route[0], origin) > tol:
            return Check(False, f"the trajectory starts at {fmt(route[0])}, not at the dart {fmt(origin)}", 0)
        along = samples(route, 4.0)
        for index, p in enumerate(along):
            off = point_polyline_distance(p, truth)
            if off > tol:
                return Check(
                    False, f"the trajectory is {off:.0f} px off the true path at {fmt(p)} (tolerance {tol:.0f})", index
                )
            if dist(p, hit) <= tol:
                return Check(True, None, len(along))
        return Check(
            False, f"the trajectory stops at {fmt(route[-1])} before reaching the balloon at {fmt(hit)}", len(along)
        )

    return best([check(p) for p in paths], len(paths), "dart")


# --------------------------------------------------------------------------------------------- dots


def verify_dots(meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float | None = None) -> TraceVerdict:
    """Return the verdict on drawn dot connections: every dot visited in its numbered order (either direction)."""
    dots = [pt(p) for p in meta["points"]]
    spacing = min((dist(a, b) for i, a in enumerate(dots) for b in dots[i + 1 :]), default=40.0)
    tol = tol_px if tol_px is not None else max(6.0, min(12.0, 0.3 * spacing))
    count = len(dots)

    def nearest(p: Point) -> int | None:
        closest = min(range(count), key=lambda i: dist(p, dots[i]))
        return closest if dist(p, dots[closest]) <= tol else None

    def check(route: Path) -> Check:
        sequence: list[int] = []
        for p in route:
            index = nearest(p)
            if index is None:
                return Check(False, f"the line bends at {fmt(p)}, which is no dot", len(sequence))
            if not sequence or sequence[-1] != index:
                sequence.append(index)
        if len(sequence) < 2:
            return Check(False, "the drawing joins fewer than two dots", 0)
        step = -1 if (sequence[1] - sequence[0]) % count == count - 1 and count > 2 else 1
        for position in range(1, len(sequence)):
            want = (sequence[position - 1] + step) % count
            if sequence[position] != want:
                return Check(
                    False,
                    f"after dot {sequence[position - 1] + 1} the line goes to dot {sequence[position] + 1}, not dot {want + 1}",
                    position,
                )
        visited = set(sequence)
        if len(visited) < count:
            missing = sorted(set(range(count)) - visited)
            return Check(False, f"dot {missing[0] + 1} is never reached", len(sequence))
        if sequence[0] != 0 and sequence[0] != count - 1 and sequence[0] != sequence[-1]:
            return Check(
                False, f"the line starts at dot {sequence[0] + 1} and does not close the figure", len(sequence)
            )
        return Check(True, None, len(sequence) + 1)

    return best([check(p) for p in paths], len(paths), "dots")


VERIFIERS: dict[str, Callable[[dict[str, Any], Sequence[Path]], TraceVerdict]] = {
    "maze": verify_maze,
    "ray": verify_ray,
    "bounce": verify_bounce,
    "dart": verify_dart,
    "dots": verify_dots,
}


def verify_games_trace(item: Item, steps: Sequence[dict[str, Any]] | None) -> TraceVerdict | None:
    """Return the verdict on what the model drew for a generated game, or None when its task has no verifier."""
    verifier = VERIFIERS.get(item.category)
    if verifier is None:
        return None
    drawn = drawn_paths(trace_ops(steps or []), size=canvas_size(steps or []))
    tool_drawn = sum(who == TOOL for _, _, who in drawn)
    paths = chain([(kind, points) for kind, points, who in drawn if who == MODEL])
    if not paths:
        return TraceVerdict("absent", None, item.category, 0, tool_drawn)
    try:
        verdict = verifier(item.meta, paths)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return TraceVerdict(
            "absent",
            f"the item's meta lacks the geometry to verify ({type(exc).__name__}: {exc})",
            item.category,
            0,
            tool_drawn,
        )
    return replace(verdict, tool_drawn=tool_drawn)
