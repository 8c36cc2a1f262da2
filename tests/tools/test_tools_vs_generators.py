"""The tools against the game generators' answer keys: two independent implementations must agree.

The generators (benchmarks/) never import tools/, so agreement here is a real check of both.
"""

from __future__ import annotations

import math

import pytest
from mcot.canvas import Canvas
from mcot.tools import call

games = pytest.importorskip("mcot.benchmarks.generators.games")
ITEMS = range(8)


@pytest.mark.parametrize("index", ITEMS)
def test_maze_from_image_and_solve_maze_match_the_maze_key(index: int) -> None:
    scene, _ = games.build_scene("maze", 7, index)
    meta = scene.meta
    labels = {e["color_name"]: label for label, e in meta["exits"].items()}
    c = Canvas(base=scene.image)
    read = call("maze_from_image", {"labels": labels}, c)
    assert read.ok, read.text
    assert read.data["grid"] == meta["grid"]
    assert (read.data["cell"], read.data["origin"]) == (meta["cell"], meta["origin"])
    route = call("solve_maze", {"grid": read.data["grid"], "targets": [meta["target"]]}, c)
    assert route.data["length"] == meta["steps"]


@pytest.mark.parametrize("index", ITEMS)
def test_trace_light_ray_matches_the_ray_key(index: int) -> None:
    scene, _ = games.build_scene("ray", 5, index)
    m = scene.meta
    res = call(
        "trace_light_ray",
        {"origin": m["origin"], "direction": m["direction"], "surfaces": m["surfaces"], "draw": False},
        Canvas(base=scene.image),
    )
    got = [e for e in res.data["events"] if e["type"] != "exit"]
    for g, w in zip(got, m["events"], strict=False):
        assert g["type"] == w["type"] and math.dist(g["at"], w["at"]) < 0.01
    assert len(got) >= len(m["events"])


@pytest.mark.parametrize("index", ITEMS)
def test_simulate_bounces_matches_the_bounce_key(index: int) -> None:
    scene, _ = games.build_scene("bounce", 11, index)
    m = scene.meta
    labels = [b["label"] for b in m["bricks"]]
    res = call(
        "simulate_bounces",
        {
            "origin": m["ball"]["start"],
            "velocity": m["direction"],
            "radius": m["ball"]["radius"],
            "box": m["box"],
            "bricks": [b["rect"] for b in m["bricks"]],
            "max_bounces": len(m["hits"]),
            "draw": False,
        },
        Canvas(base=scene.image),
    )
    got = [(h["kind"], h["index"] if h["kind"] == "wall" else labels[h["index"]]) for h in res.data["hits"]]
    assert got == [(h["type"], h["side"] if h["type"] == "wall" else h["label"]) for h in m["hits"]]
    assert all(math.dist(g["at"], w["at"]) < 0.01 for g, w in zip(res.data["hits"], m["hits"], strict=True))


@pytest.mark.parametrize("index", ITEMS)
def test_simulate_projectile_matches_the_dart_key(index: int) -> None:
    scene, _ = games.build_scene("dart", 13, index)
    m = scene.meta
    obstacles = [{"kind": "circle", "center": b["center"], "radius": b["radius"]} for b in m["balloons"]]
    res = call(
        "simulate_projectile",
        {
            "origin": m["origin"],
            "velocity": m["velocity"],
            "gravity": m["gravity"],
            "obstacles": obstacles,
            "t_max": 30,
            "draw": False,
        },
        Canvas(base=scene.image),
    )
    hit = res.data["hit"]
    assert m["balloons"][hit["index"]]["label"] == m["hit"]["balloon"]
    assert math.dist(hit["at"], m["hit"]["at"]) < 0.05 and hit["t"] == pytest.approx(m["hit"]["t"], abs=1e-5)
