"""Issue 6 item 3: the agent's tools (tools/) and the generators' answer keys (benchmarks/) must agree.

They were written independently; any disagreement is a bug in one of them, not a tolerance to widen.
"""

import itertools
import math

import pytest
from mcot.benchmarks.generators.games import build_scene
from shapely.geometry import LineString, Point, box

tools = pytest.importorskip("tools")
canvas = pytest.importorskip("canvas")

N_ITEMS = 500
SEED = 2026


_CANVASES: dict[tuple[int, int], object] = {}


def _call(name: str, arguments: dict, size: tuple[int, int]) -> dict:
    """Run one tool without drawing (a canvas per picture size, reused: calls that draw nothing leave it as is)."""
    if size not in _CANVASES:
        _CANVASES[size] = canvas.Canvas(size=size)
    board = _CANVASES[size]
    result = tools.call(name, {**arguments, "draw": False}, board)
    assert result.ok, f"{name} failed: {result.error}"
    return result.data


def _scenes(task: str) -> list:
    return [build_scene(task, SEED, i)[0] for i in range(N_ITEMS)]


def _disagreements(task: str, check) -> list[str]:
    bad = []
    for i, scene in enumerate(_scenes(task)):
        problem = check(scene.meta, scene.image.size)
        if problem:
            bad.append(f"{task} item {i}: {problem}")
    return bad


def _maze(meta: dict, size: tuple[int, int]) -> str | None:
    data = _call(
        "solve_maze",
        {"grid": meta["grid"], "targets": list(meta["exits"]), "cell": meta["cell"], "origin": meta["origin"]},
        size,
    )
    reachable = sorted(label for label, steps in data["distances"].items() if steps is not None)
    if reachable != sorted(meta["reachable"]):
        return f"reachable exits {reachable} != {meta['reachable']}"
    if data["distances"][meta["target"]] != meta["steps"]:
        return f"steps to {meta['target']}: {data['distances'][meta['target']]} != {meta['steps']}"
    return None


def _ray(meta: dict, size: tuple[int, int]) -> str | None:
    data = _call(
        "trace_light_ray",
        {"origin": meta["origin"], "direction": meta["direction"], "surfaces": meta["surfaces"], "max_events": 20},
        size,
    )
    boxes = [box(*t["box"]) for t in meta["targets"]]
    for a, b in itertools.pairwise(data["points"]):
        leg = LineString([a, b])
        entries = [(Point(a).distance(leg.intersection(bx)), k) for k, bx in enumerate(boxes) if leg.intersects(bx)]
        if entries:
            reached = min(entries)[1]
            return None if reached == meta["hit"]["index"] else f"tool reaches target {reached}, key {meta['hit']}"
    return f"tool's ray reaches no target; key says {meta['hit']}"


def _dart(meta: dict, size: tuple[int, int]) -> str | None:
    obstacles = [{"kind": "circle", "center": b["center"], "radius": b["radius"]} for b in meta["balloons"]]
    data = _call(
        "simulate_projectile",
        {
            "origin": meta["origin"],
            "velocity": meta["velocity"],
            "gravity": meta["gravity"],
            "obstacles": obstacles,
            "t_max": meta["t_exit"],
        },
        size,
    )
    hit = data["hit"]
    if hit is None or hit["index"] != meta["hit"]["index"]:
        return f"tool pops {hit}, key {meta['hit']}"
    if not math.isclose(hit["t"], meta["hit"]["t"], rel_tol=1e-3, abs_tol=1e-3):
        return f"contact time {hit['t']} != {meta['hit']['t']}"
    return None


def _bounce(meta: dict, size: tuple[int, int]) -> str | None:
    data = _call(
        "simulate_bounces",
        {
            "origin": meta["ball"]["start"],
            "velocity": meta["direction"],
            "radius": meta["ball"]["radius"],
            "box": meta["box"],
            "bricks": [b["rect"] for b in meta["bricks"]],
            "max_bounces": 12,
        },
        size,
    )
    kinds = [h["kind"] for h in data["hits"]]
    if "brick" not in kinds:
        return "tool's ball hits no brick"
    first = kinds.index("brick")
    brick = data["hits"][first]["index"]
    label = meta["bricks"][brick]["label"]
    if label != meta["first_brick"] or first != meta["wall_bounces"]:
        return f"tool: {first} wall bounces then {label}; key: {meta['wall_bounces']} then {meta['first_brick']}"
    return None


def _dots(meta: dict, size: tuple[int, int]) -> str | None:
    pts = meta["points"]
    edges = [[pts[i], pts[(i + 1) % len(pts)]] for i in range(len(pts))]
    crossings = 0
    for i, j in itertools.combinations(range(len(edges)), 2):
        if j == i + 1 or (i == 0 and j == len(edges) - 1):
            continue
        data = _call(
            "intersect",
            {"a": {"kind": "segment", "points": edges[i]}, "b": {"kind": "segment", "points": edges[j]}},
            size,
        )
        crossings += data["count"]
    if crossings != len(meta["crossings"]):
        return f"tool finds {crossings} crossings, key {len(meta['crossings'])}"
    if meta["simple"]:
        data = _call("analyze_polygon", {"points": pts}, size)
        if data["convex"] != meta["convex"]:
            return f"tool says convex={data['convex']}, key {meta['convex']}"
        corners = sum(
            1 for a in data["angles"] if not math.isclose(a, 180.0, abs_tol=1e-3)
        )  # acos near -1: ~1e-6 deg noise
        if corners != meta["sides"]:
            return f"tool finds {corners} corners, key {meta['sides']} sides"
    return None


def _triangles(meta: dict, size: tuple[int, int]) -> str | None:
    data = _call("count_triangles", {"segments": meta["segments"]}, size)
    return None if data["count"] == meta["count"] else f"tool counts {data['count']}, key {meta['count']}"


CHECKS = {"maze": _maze, "ray": _ray, "dart": _dart, "bounce": _bounce, "dots": _dots, "triangles": _triangles}


# tools.simulate_bounces asks pymunk's space.segment_query with a radius; pymunk's spatial index prunes shapes by
# the bounding box of the bare segment, so a brick the ball's edge touches but its centre line misses is skipped
# (item 0: start (353, 395), velocity (19, -36), r = 8, brick [399, 316, 480, 339] is touched at centre (391, 323);
# a brute-force sampled simulation in test_games_bounce.py agrees with the key). Remove the mark once fixed.
@pytest.mark.parametrize("task", list(CHECKS))
def test_tools_reach_the_answer_key(task: str) -> None:
    bad = _disagreements(task, CHECKS[task])
    assert not bad, f"{len(bad)} of {N_ITEMS} disagree:\n" + "\n".join(bad[:10])
