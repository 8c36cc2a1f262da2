"""Trace verifiers: check what a model drew on the canvas against the solution geometry of a generated item.

The drawing is rebuilt from the trace's tool steps (their `ops`: canvas op records, with undo, redo, removal,
edits and transforms applied), and every drawn path (a `trace_path`, a polygon, or a chain of lines and arrows
joined end to start) is a candidate. A trace is `valid` when one candidate satisfies the task, `invalid` with
the first violation of the candidate that went furthest when none does, and `absent` when nothing was drawn.

Only what the model drew is credited: ops of tool steps marked `drawn_by: "tool"` (a domain tool such as
`solve_maze` with `draw=true` drew them) are replayed, so that undo and ids stay right, but the elements they
create are no candidates; the verdict counts them apart (`tool_drawn`). A step without `drawn_by` (an older
trace) counts as the model's. A trace where only a tool drew is `absent` for the model.

Diagram editing (`verify_diagram_trace`, OmniPhys items with `meta.solution_path`): a drawing is `valid` when
it follows the solution polyline within a tolerance; the same candidate and `drawn_by` rules apply.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from mcot.benchmarks.item import Item

Point = tuple[float, float]
Path = list[Point]


@dataclass(frozen=True)
class TraceVerdict:
    """The verdict on one trace: valid, invalid (with the first violation) or absent."""

    verdict: str
    violation: str | None = None
    task: str | None = None
    candidates: int = 0
    tool_drawn: int = 0
    """Path-like elements on the final canvas that a tool drew (not credited to the model)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the verdict as the JSON object stored in a score's details."""
        return asdict(self)


@dataclass(frozen=True)
class _Check:
    ok: bool
    violation: str | None
    progress: float


# ------------------------------------------------------------------------------------ drawn geometry


def _pt(value: Any) -> Point:
    return (float(value[0]), float(value[1]))


def _geometry(op: str, args: dict[str, Any]) -> tuple[str, Path] | None:
    """Return (kind, points) of the element an op creates, or None for elements without a path."""
    try:
        if op in ("draw_line", "draw_arrow"):
            return "segment", [_pt(args["start"]), _pt(args["end"])]
        if op == "trace_path":
            points = [_pt(p) for p in args["points"]]
            if args.get("closed") and points:
                points.append(points[0])
            return "path", points
        if op == "draw_polygon":
            points = [_pt(p) for p in args["points"]]
            return "path", [*points, points[0]] if points else points
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return None


def _transform_points(points: Path, args: dict[str, Any]) -> Path:
    """Return `points` moved by a canvas transform (translate, rotate, reflect, scale)."""
    if args.get("translate") is not None:
        dx, dy = _pt(args["translate"])
        return [(x + dx, y + dy) for x, y in points]
    if args.get("rotate") is not None:
        angle = math.radians(float(args["rotate"]["angle"]))
        cx, cy = _pt(args["rotate"].get("center", (0, 0)))
        cos, sin = math.cos(angle), math.sin(angle)
        # counter-clockwise as seen on the y-down screen, as the canvas does: (1, 0) turns to (0, -1)
        return [(cx + (x - cx) * cos + (y - cy) * sin, cy - (x - cx) * sin + (y - cy) * cos) for x, y in points]
    if args.get("reflect") is not None:
        a, b = (_pt(p) for p in args["reflect"]["line"])
        return [_reflect_point(p, a, b) for p in points]
    if args.get("scale") is not None:
        factor = float(args["scale"]["factor"])
        cx, cy = _pt(args["scale"].get("center", (0, 0)))
        return [(cx + (x - cx) * factor, cy + (y - cy) * factor) for x, y in points]
    return points


def _reflect_point(p: Point, a: Point, b: Point) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy or 1.0
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    foot = (a[0] + t * dx, a[1] + t * dy)
    return (2 * foot[0] - p[0], 2 * foot[1] - p[1])


MODEL, TOOL = "model", "tool"
CREATING_OPS = ("draw_line", "draw_arrow", "trace_path", "draw_polygon", "mark_point", "draw_circle", "add_text")


def trace_ops(steps: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the canvas op records of a trace's tool steps, in order, each with `drawn_by` ("model" or "tool")."""
    ops: list[dict[str, Any]] = []
    for step in steps:
        if step.get("kind") == "tool" and isinstance(step.get("ops"), list):
            who = TOOL if step.get("drawn_by") == TOOL else MODEL
            ops.extend({**op, "drawn_by": who} for op in step["ops"] if isinstance(op, dict))
    return ops


def drawn_elements(ops: Sequence[dict[str, Any]], drawn_by: str | None = None) -> list[tuple[str, Path]]:
    """Return the (kind, points) of every path-like element on the final canvas, in creation order.

    With `drawn_by` ("model" or "tool"), only the elements whose creating op has that `drawn_by` (absent: the
    model's); the other ops are still replayed so that undo, redo and ids resolve as on the canvas.
    """
    history: list[dict[str, Any]] = []
    undone: list[dict[str, Any]] = []
    for op in ops:
        name = op.get("op")
        if name == "undo":
            if history:
                undone.append(history.pop())
        elif name == "redo":
            if undone:
                history.append(undone.pop())
        else:  # show_grid is undoable too: it stays in the history and draws nothing
            history.append(op)
            undone.clear()
    elements: dict[str, tuple[str, Path]] = {}
    creators: dict[str, str] = {}
    counter = 0
    for op in history:
        name, args = op.get("op"), op.get("args") or {}
        if not isinstance(args, dict):
            continue
        if name in CREATING_OPS:
            counter += 1
            element_id = str(op.get("id") or f"e{counter}")
            geometry = _geometry(str(name), args)
            if geometry is not None:
                elements[element_id] = geometry
                creators[element_id] = TOOL if op.get("drawn_by") == TOOL else MODEL
        elif name == "remove_element":
            elements.pop(str(args.get("id")), None)
        elif name == "update_element" and elements.get(str(args.get("id")), (None, []))[1]:
            props = args.get("properties") if isinstance(args.get("properties"), dict) else args
            kind, points = elements[str(args["id"])]
            merged = {"start": points[0], "end": points[-1], "points": points, **props}
            updated = _geometry("draw_line" if kind == "segment" else "trace_path", merged)
            if updated is not None:
                elements[str(args["id"])] = (kind, updated[1])
        elif name == "transform" and args.get("ids"):
            for element_id in args["ids"]:
                if str(element_id) in elements:
                    kind, points = elements[str(element_id)]
                    try:
                        elements[str(element_id)] = (kind, _transform_points(points, args))
                    except (KeyError, TypeError, ValueError, IndexError):
                        continue
    return [geometry for key, geometry in elements.items() if drawn_by is None or creators[key] == drawn_by]


def candidate_paths(ops: Sequence[dict[str, Any]], join_tol: float = 6.0, drawn_by: str | None = None) -> list[Path]:
    """Return every drawn path (of `drawn_by` only, when given): paths and polygons, lines/arrows chained end to start."""
    candidates: list[Path] = []
    chain: Path = []
    for kind, points in drawn_elements(ops, drawn_by):
        if len(points) < 2 or not all(math.isfinite(x) and math.isfinite(y) for x, y in points):
            continue
        if kind == "path":
            candidates.append(points)
            continue
        if chain and _dist(chain[-1], points[0]) <= join_tol:
            chain.append(points[1])
        elif chain and _dist(chain[-1], points[1]) <= join_tol:
            chain.append(points[0])
        else:
            if chain:
                candidates.append(chain)
            chain = list(points)
    if chain:
        candidates.append(chain)
    return candidates


# ----------------------------------------------------------------------------------------- geometry


def _dist(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _point_segment_distance(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return _dist(p, a)
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return _dist(p, (a[0] + t * dx, a[1] + t * dy))


def _point_polyline_distance(p: Point, line: Sequence[Point]) -> float:
    if len(line) == 1:
        return _dist(p, line[0])
    return min(_point_segment_distance(p, line[i], line[i + 1]) for i in range(len(line) - 1))


def _angle_between(u: Point, v: Point) -> float:
    """Return the angle between two direction vectors in degrees (180 for a zero vector)."""
    nu, nv = math.hypot(*u), math.hypot(*v)
    if nu == 0 or nv == 0:
        return 180.0
    cos = max(-1.0, min(1.0, (u[0] * v[0] + u[1] * v[1]) / (nu * nv)))
    return math.degrees(math.acos(cos))


def _unit(v: Point) -> Point:
    length = math.hypot(*v) or 1.0
    return (v[0] / length, v[1] / length)


def _sub(a: Point, b: Point) -> Point:
    return (a[0] - b[0], a[1] - b[1])


def _simplify(points: Path, min_turn_deg: float = 1.0) -> Path:
    """Return `points` without repeated points and without vertices where the path does not turn."""
    cleaned: Path = []
    for point in points:
        if not cleaned or _dist(cleaned[-1], point) > 0.5:
            cleaned.append(point)
    index = 1
    while index < len(cleaned) - 1:
        turn = _angle_between(_sub(cleaned[index], cleaned[index - 1]), _sub(cleaned[index + 1], cleaned[index]))
        if turn < min_turn_deg:
            del cleaned[index]
        else:
            index += 1
    return cleaned


def _samples(points: Path, step: float) -> list[Point]:
    """Return points along a polyline at most `step` apart (vertices included)."""
    out: list[Point] = [points[0]]
    for a, b in itertools.pairwise(points):
        count = max(1, math.ceil(_dist(a, b) / step))
        out += [(a[0] + (b[0] - a[0]) * k / count, a[1] + (b[1] - a[1]) * k / count) for k in range(1, count + 1)]
    return out


def _segment_intersection(p1: Point, p2: Point, q1: Point, q2: Point) -> Point | None:
    r, s = _sub(p2, p1), _sub(q2, q1)
    denominator = r[0] * s[1] - r[1] * s[0]
    if abs(denominator) < 1e-12:
        return None
    qp = _sub(q1, p1)
    t = (qp[0] * s[1] - qp[1] * s[0]) / denominator
    u = (qp[0] * r[1] - qp[1] * r[0]) / denominator
    if 0 <= t <= 1 and 0 <= u <= 1:
        return (p1[0] + t * r[0], p1[1] + t * r[1])
    return None


def _inside(p: Point, polygon: Sequence[Point]) -> bool:
    inside = False
    for i in range(len(polygon)):
        a, b = polygon[i], polygon[(i + 1) % len(polygon)]
        if (a[1] > p[1]) != (b[1] > p[1]):
            x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if p[0] < x:
                inside = not inside
    return inside


def reflect_direction(d: Point, a: Point, b: Point) -> Point:
    """Return direction `d` reflected off the line through a and b."""
    n = _unit((-(b[1] - a[1]), b[0] - a[0]))
    dot = d[0] * n[0] + d[1] * n[1]
    return (d[0] - 2 * dot * n[0], d[1] - 2 * dot * n[1])


def refract_direction(d: Point, a: Point, b: Point, n1: float, n2: float) -> Point | None:
    """Return the refracted direction of `d` crossing the line a–b from index n1 into n2 (None on TIR)."""
    d = _unit(d)
    n = _unit((-(b[1] - a[1]), b[0] - a[0]))
    cos_i = -(d[0] * n[0] + d[1] * n[1])
    if cos_i < 0:
        n, cos_i = (-n[0], -n[1]), -cos_i
    ratio = n1 / n2
    k = 1 - ratio * ratio * (1 - cos_i * cos_i)
    if k < 0:
        return None
    factor = ratio * cos_i - math.sqrt(k)
    return (ratio * d[0] + factor * n[0], ratio * d[1] + factor * n[1])


def _best(checks: list[_Check], candidates: int, task: str) -> TraceVerdict:
    if not checks:
        return TraceVerdict("absent", None, task, 0)
    for check in checks:
        if check.ok:
            return TraceVerdict("valid", None, task, candidates)
    furthest = max(range(len(checks)), key=lambda i: (checks[i].progress, i))
    return TraceVerdict("invalid", checks[furthest].violation, task, candidates)


def _fmt(p: Point) -> str:
    return f"({p[0]:.0f}, {p[1]:.0f})"


# --------------------------------------------------------------------------------------------- maze


def verify_maze(meta: dict[str, Any], paths: Sequence[Path], *, wall_margin: float = 0.2) -> TraceVerdict:
    """Return the verdict on drawn maze routes: from the start cell to the target exit, through no wall."""
    grid: list[str] = meta["grid"]
    cell = float(meta["cell"])
    x0, y0 = _pt(meta.get("origin", (0, 0)))
    path_cells = [tuple(c) for c in meta.get("path", [])]
    start = tuple(meta["start"]) if meta.get("start") else (path_cells[0] if path_cells else _find(grid, "S"))
    target_label = meta.get("target")
    exits = {label: tuple(info["cell"]) for label, info in (meta.get("exits") or {}).items()}
    goal = exits.get(target_label) if target_label in exits else (path_cells[-1] if path_cells else _find(grid, "E"))
    margin = wall_margin * cell

    def cell_of(p: Point) -> tuple[int, int]:
        return (math.floor((p[1] - y0) / cell), math.floor((p[0] - x0) / cell))

    def check(route: Path) -> _Check:
        if cell_of(route[0]) != start and cell_of(route[-1]) == start:
            route = route[::-1]
        if cell_of(route[0]) != start:
            return _Check(
                False,
                f"the route starts at {_fmt(route[0])}, cell {cell_of(route[0])}, not on the start cell {start}",
                0,
            )
        samples = _samples(route, cell / 5)
        for index, p in enumerate(samples):
            r, c = cell_of(p)
            if not (0 <= r < len(grid) and 0 <= c < len(grid[r])):
                return _Check(False, f"the route leaves the maze at {_fmt(p)}", index)
            if grid[r][c] == "#":
                cx, cy = x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell
                if abs(p[0] - cx) < cell / 2 - margin and abs(p[1] - cy) < cell / 2 - margin:
                    return _Check(False, f"the route crosses the wall cell {(r, c)} at {_fmt(p)}", index)
        end = cell_of(route[-1])
        if end != goal:
            named = [label for label, cell_rc in exits.items() if cell_rc == end]
            where = f"exit {named[0]}" if named else f"cell {end}"
            return _Check(False, f"the route ends at {where}, not at the exit {target_label or goal}", len(samples))
        return _Check(True, None, len(samples) + 1)

    return _best([check(p) for p in paths], len(paths), "maze")


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
            a, b = (_pt(p) for p in surface["points"])
            surfaces.append(_Surface(a, b, "mirror"))
        elif surface.get("kind") == "block":
            polygon = tuple(_pt(p) for p in surface["polygon"])
            for i in range(len(polygon)):
                surfaces.append(
                    _Surface(polygon[i], polygon[(i + 1) % len(polygon)], "glass", float(surface["n"]), polygon)
                )
        elif surface.get("kind") == "interface":
            a, b = (_pt(p) for p in surface["points"])
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
) -> _Check:
    """Check a drawn light or ball path: start, first direction, and the law obeyed at every turn."""
    if _dist(route[0], origin) > near and _dist(route[-1], origin) <= near:
        route = route[::-1]
    route = _simplify(route)
    if len(route) < 2:
        return _Check(False, "the drawing is a single point", 0)
    if _dist(route[0], origin) > near:
        return _Check(False, f"the path starts at {_fmt(route[0])}, not at the source {_fmt(origin)}", 0)
    off = _angle_between(_sub(route[1], route[0]), direction)
    if off > tol_deg:
        return _Check(False, f"the first segment leaves {off:.1f}° off the given direction", 0.5)
    for index in range(len(route) - 1):
        a, b = route[index], route[index + 1]
        last = index == len(route) - 2
        crossing = _crossed_surface(a, b, [s for s in surfaces if not (last and s.kind == "brick")], tol_px, tol_deg)
        if crossing is not None:
            surface, at = crossing
            return _Check(
                False,
                f"segment {index + 1} passes through a {surface.kind} surface at {_fmt(at)} without turning",
                index + 0.75,
            )
        if last:
            break
        vertex, after = b, route[index + 2]
        d_in, d_out = _sub(vertex, a), _sub(after, vertex)
        nearby = [s for s in surfaces if _point_segment_distance(vertex, s.a, s.b) <= tol_px]
        if not nearby:
            return _Check(False, f"the path turns at {_fmt(vertex)}, where there is no surface", index + 1)
        errors = []
        for surface in nearby:
            expected = _expected_direction(surface, a, vertex, d_in)
            errors.append((_angle_between(expected, d_out), surface))
        error, surface = min(errors, key=lambda pair: pair[0])
        if error > tol_deg:
            law = "reflection" if surface.kind != "glass" else "refraction (Snell's law, with TIR)"
            return _Check(False, f"the turn at {_fmt(vertex)} breaks the law of {law} by {error:.1f}°", index + 1)
    return _Check(True, None, len(route))


def _expected_direction(surface: _Surface, before: Point, vertex: Point, d_in: Point) -> Point:
    if surface.kind in ("mirror", "wall", "brick"):
        return reflect_direction(d_in, surface.a, surface.b)
    back = min(_dist(before, vertex) / 2, 10.0)
    unit = _unit(d_in)
    middle = (vertex[0] - unit[0] * back, vertex[1] - unit[1] * back)
    inside = bool(surface.polygon) and _inside(middle, surface.polygon)
    n1, n2 = (surface.n, 1.0) if inside else (1.0, surface.n)
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
        at = _segment_intersection(a, b, surface.a, surface.b)
        if at is None or _dist(at, a) <= tol_px or _dist(at, b) <= tol_px:
            continue
        if surface.kind == "glass":
            d = _sub(b, a)
            if _angle_between(_expected_direction(surface, a, at, d), d) <= tol_deg:
                continue
        return surface, at
    return None


def verify_ray(
    meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float = 6.0, tol_deg: float = 4.0
) -> TraceVerdict:
    """Return the verdict on drawn light rays: from the source along the arrow, reflection/refraction at turns."""
    surfaces = _ray_surfaces(meta)
    origin, direction = _pt(meta["origin"]), _pt(meta["direction"])
    checks = [
        _check_turns(p, surfaces, origin=origin, direction=direction, tol_px=tol_px, tol_deg=tol_deg, near=12.0)
        for p in paths
    ]
    return _best(checks, len(paths), "ray")


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
    origin = _pt(ball.get("start", meta.get("origin")))
    direction = _pt(meta["direction"])
    checks = [
        _check_turns(
            p, surfaces, origin=origin, direction=direction, tol_px=radius + tol_px, tol_deg=tol_deg, near=radius + 8.0
        )
        for p in paths
    ]
    return _best(checks, len(paths), "bounce")


# --------------------------------------------------------------------------------------------- dart


def verify_dart(meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float | None = None) -> TraceVerdict:
    """Return the verdict on drawn dart trajectories: within a tolerance of the true parabola up to the hit."""
    truth = [_pt(p) for p in meta["path"]]
    xs, ys = [p[0] for p in truth], [p[1] for p in truth]
    extent = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    tol = tol_px if tol_px is not None else max(8.0, 0.03 * extent)
    origin = _pt(meta.get("origin", truth[0]))
    hit = _pt(meta["hit"]["at"]) if isinstance(meta.get("hit"), dict) and "at" in meta["hit"] else truth[-1]

    def check(route: Path) -> _Check:
        if _dist(route[0], origin) > tol and _dist(route[-1], origin) <= tol:
            route = route[::-1]
        if _dist(route[0], origin) > tol:
            return _Check(False, f"the trajectory starts at {_fmt(route[0])}, not at the dart {_fmt(origin)}", 0)
        samples = _samples(route, 4.0)
        for index, p in enumerate(samples):
            off = _point_polyline_distance(p, truth)
            if off > tol:
                return _Check(
                    False, f"the trajectory is {off:.0f} px off the true path at {_fmt(p)} (tolerance {tol:.0f})", index
                )
            if _dist(p, hit) <= tol:
                return _Check(True, None, len(samples))
        return _Check(
            False, f"the trajectory stops at {_fmt(route[-1])} before reaching the balloon at {_fmt(hit)}", len(samples)
        )

    return _best([check(p) for p in paths], len(paths), "dart")


# --------------------------------------------------------------------------------------------- dots


def verify_dots(meta: dict[str, Any], paths: Sequence[Path], *, tol_px: float | None = None) -> TraceVerdict:
    """Return the verdict on drawn dot connections: every dot visited in its numbered order (either direction)."""
    dots = [_pt(p) for p in meta["points"]]
    spacing = min((_dist(a, b) for i, a in enumerate(dots) for b in dots[i + 1 :]), default=40.0)
    tol = tol_px if tol_px is not None else max(6.0, min(12.0, 0.3 * spacing))
    count = len(dots)

    def nearest(p: Point) -> int | None:
        best = min(range(count), key=lambda i: _dist(p, dots[i]))
        return best if _dist(p, dots[best]) <= tol else None

    def check(route: Path) -> _Check:
        sequence: list[int] = []
        for p in route:
            index = nearest(p)
            if index is None:
                return _Check(False, f"the line bends at {_fmt(p)}, which is no dot", len(sequence))
            if not sequence or sequence[-1] != index:
                sequence.append(index)
        if len(sequence) < 2:
            return _Check(False, "the drawing joins fewer than two dots", 0)
        step = -1 if (sequence[1] - sequence[0]) % count == count - 1 and count > 2 else 1
        for position in range(1, len(sequence)):
            want = (sequence[position - 1] + step) % count
            if sequence[position] != want:
                return _Check(
                    False,
                    f"after dot {sequence[position - 1] + 1} the line goes to dot {sequence[position] + 1}, not dot {want + 1}",
                    position,
                )
        visited = set(sequence)
        if len(visited) < count:
            missing = sorted(set(range(count)) - visited)
            return _Check(False, f"dot {missing[0] + 1} is never reached", len(sequence))
        if sequence[0] != 0 and sequence[0] != count - 1 and sequence[0] != sequence[-1]:
            return _Check(
                False, f"the line starts at dot {sequence[0] + 1} and does not close the figure", len(sequence)
            )
        return _Check(True, None, len(sequence) + 1)

    return _best([check(p) for p in paths], len(paths), "dots")


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
    ops = trace_ops(steps or [])
    tool_drawn = len(drawn_elements(ops, TOOL))
    paths = candidate_paths(ops, drawn_by=MODEL)
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


VERIFIED_TASKS: dict[Callable[..., TraceVerdict | None], tuple[str, ...]] = {verify_games_trace: tuple(VERIFIERS)}
"""The item categories a benchmark's verifier checks, where it can say so ahead of any trace (the report lists each,
even with no trace); a verifier not here is known by the categories its verdicts came from."""


def verifier_tasks(verifier: Callable[..., TraceVerdict | None] | None) -> tuple[str, ...]:
    """Return the item categories `verifier` declares it checks (VERIFIED_TASKS), () when it declares none."""
    return VERIFIED_TASKS.get(verifier, ()) if verifier is not None else ()


def verify_trace(item: Item, steps: Sequence[dict[str, Any]] | None) -> TraceVerdict | None:
    """Return the verdict of the verifier registered for the item's benchmark, or None when it has none."""
    from mcot.eval.registry import scoring_spec

    verifier = scoring_spec(item.benchmark).verifier
    return verifier(item, steps) if verifier is not None else None


# ------------------------------------------------------------------------------------ diagram editing


def _polyline_length(points: Sequence[Point]) -> float:
    return sum(_dist(a, b) for a, b in itertools.pairwise(points))


def _prefix(points: Path, length: float) -> Path:
    """Return the start of polyline `points` up to arc length `length`."""
    out: Path = [points[0]]
    walked = 0.0
    for a, b in itertools.pairwise(points):
        step = _dist(a, b)
        if walked + step >= length:
            t = (length - walked) / step if step else 0.0
            out.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
            return out
        out.append(b)
        walked += step
    return out


def solution_geometry(meta: dict[str, Any]) -> tuple[Path, float, float]:
    """Return (solution polyline, tolerance in px, share of its length to cover) from an item's meta.

    `meta.solution_path` is the correct drawing as [[x, y], ...] in canvas pixels (at least two distinct
    points); `meta.solution_tolerance` (px) defaults to max(6, 3 % of the path's extent); `meta.solution_cover`
    (0–1, default 1) is how much of the path, from its start, a drawing must reach (below 1 for a ray whose
    drawn length is free). Raises KeyError, TypeError or ValueError when they are malformed.
    """
    truth = [_pt(p) for p in meta["solution_path"]]
    if len(truth) < 2 or _polyline_length(truth) == 0:
        raise ValueError("solution_path needs at least two distinct points")
    if not all(math.isfinite(x) and math.isfinite(y) for x, y in truth):
        raise ValueError("solution_path has a point that is not a finite number")
    xs, ys = [p[0] for p in truth], [p[1] for p in truth]
    extent = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    given = meta.get("solution_tolerance")
    tol = float(given) if given is not None else max(6.0, 0.03 * extent)
    cover = float(meta.get("solution_cover", 1.0))
    if not (tol > 0 and math.isfinite(tol)) or not 0 < cover <= 1:
        raise ValueError("solution_tolerance must be a positive number and solution_cover in (0, 1]")
    return truth, tol, cover


def verify_solution_path(meta: dict[str, Any], paths: Sequence[Path]) -> TraceVerdict:
    """Return the verdict on drawn paths against `meta.solution_path`: valid when one drawn path stays within the
    tolerance of the solution everywhere and reaches along it from its start as far as `solution_cover` asks.

    Orientation is free (a path drawn from the far end is read backwards); see `solution_geometry` for the keys.
    """
    truth, tol, cover = solution_geometry(meta)
    needed = _prefix(truth, cover * _polyline_length(truth))
    step = max(1.0, min(4.0, tol / 2))
    wanted = _samples(needed, step)

    def check(route: Path) -> _Check:
        if _dist(route[-1], truth[0]) < _dist(route[0], truth[0]):
            route = route[::-1]
        reached = len(wanted)
        for index, p in enumerate(wanted):
            if _point_polyline_distance(p, route) > tol:
                reached = index
                break
        progress = reached / len(wanted)
        for p in _samples(route, step):
            off = _point_polyline_distance(p, truth)
            if off > tol:
                return _Check(
                    False,
                    f"the drawing is {off:.0f} px off the solution path at {_fmt(p)} (tolerance {tol:.0f} px)",
                    progress,
                )
        if reached < len(wanted):
            gap = wanted[reached]
            return _Check(
                False,
                f"the drawing follows the solution path but does not reach {_fmt(gap)} "
                f"(it should reach {_fmt(needed[-1])})",
                progress,
            )
        return _Check(True, None, 1.0)

    return _best([check(p) for p in paths], len(paths), "diagram")


def _saw_canvas(steps: Sequence[dict[str, Any]]) -> bool:
    return any(step.get("kind") == "observation" for step in steps)


def verify_diagram_trace(item: Item, steps: Sequence[dict[str, Any]] | None) -> TraceVerdict | None:
    """Return the verdict on what the model drew for a diagram-editing item against `meta.solution_path`.

    None when the item has no `solution_path`, or when the trace shows no canvas (a text answer, an image
    generator's output): there is no drawing to verify. The candidates are the model's drawn paths (chains of
    lines and arrows, paths, polygons) and each drawn element on its own; a domain tool's drawing is replayed
    but not credited (counted in `tool_drawn`). Nothing drawn by the model: `absent`.
    """
    if item.meta.get("solution_path") is None or not steps or not _saw_canvas(steps):
        return None
    ops = trace_ops(steps)
    tool_drawn = len(drawn_elements(ops, TOOL))
    candidates = candidate_paths(ops, drawn_by=MODEL)
    for _, points in drawn_elements(ops, MODEL):
        finite = all(math.isfinite(x) and math.isfinite(y) for x, y in points)
        if len(points) >= 2 and finite and points not in candidates:
            candidates.append(points)
    if not candidates:
        return TraceVerdict("absent", None, "diagram", 0, tool_drawn)
    try:
        verdict = verify_solution_path(item.meta, candidates)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return TraceVerdict(
            "absent",
            f"the item's solution_path cannot be read ({type(exc).__name__}: {exc})",
            "diagram",
            0,
            tool_drawn,
        )
    return replace(verdict, tool_drawn=tool_drawn)
