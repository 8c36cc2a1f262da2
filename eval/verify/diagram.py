"""The diagram verifier: what a model drew on a diagram-editing item (OmniPhys, `meta.solution_path`) against the
solution polyline, within a tolerance. The candidates and the `drawn_by` rules are those of the games' verifiers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mcot.eval.verify.plane import Path, dist, fmt, point_polyline_distance, polyline_length, prefix, pt, samples
from mcot.eval.verify.replay import MODEL, TOOL, canvas_size, chain, drawn_paths, trace_ops
from mcot.eval.verify.verdict import Check, TraceVerdict, best

from mcot.core.item import Item


def solution_geometry(meta: dict[str, Any]) -> tuple[Path, float, float]:
    """Return (solution polyline, tolerance in px, share of its length to cover) from an item's meta.

    `meta.solution_path` is the correct drawing as [[x, y], ...] in canvas pixels (at least two distinct
    points); `meta.solution_tolerance` (px) defaults to max(6, 3 % of the path's extent); `meta.solution_cover`
    (0–1, default 1) is how much of the path, from its start, a drawing must reach (below 1 for a ray whose
    drawn length is free). Raises KeyError, TypeError or ValueError when they are malformed.
    """
    truth = [pt(p) for p in meta["solution_path"]]
    if len(truth) < 2 or polyline_length(truth) == 0:
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
    needed = prefix(truth, cover * polyline_length(truth))
    step = max(1.0, min(4.0, tol / 2))
    wanted = samples(needed, step)

    def check(route: Path) -> Check:
        if dist(route[-1], truth[0]) < dist(route[0], truth[0]):
            route = route[::-1]
        reached = len(wanted)
        for index, p in enumerate(wanted):
            if point_polyline_distance(p, route) > tol:
                reached = index
                break
        progress = reached / len(wanted)
        for p in samples(route, step):
            off = point_polyline_distance(p, truth)
            if off > tol:
                return Check(
                    False,
                    f"the drawing is {off:.0f} px off the solution path at {fmt(p)} (tolerance {tol:.0f} px)",
                    progress,
                )
        if reached < len(wanted):
            gap = wanted[reached]
            return Check(
                False,
                f"the drawing follows the solution path but does not reach {fmt(gap)} "
                f"(it should reach {fmt(needed[-1])})",
                progress,
            )
        return Check(True, None, 1.0)

    return best([check(p) for p in paths], len(paths), "diagram")


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
    drawn = drawn_paths(trace_ops(steps), size=canvas_size(steps))
    tool_drawn = sum(who == TOOL for _, _, who in drawn)
    mine = [(kind, points) for kind, points, who in drawn if who == MODEL]
    candidates = chain(mine)
    for _, points in mine:
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
