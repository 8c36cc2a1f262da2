"""Physics tools against closed forms: projectile range and flight time, specular bounces, ball among bricks."""

from __future__ import annotations

import math

import pytest
from mcot.canvas import Canvas
from mcot.tools import call


@pytest.mark.parametrize(("speed", "angle"), [(40.0, 45.0), (40.0, 30.0), (55.0, 60.0), (25.0, 15.0)])
def test_projectile_range_matches_closed_form(speed: float, angle: float) -> None:
    g = 9.8
    th = math.radians(angle)
    origin = [50.0, 600.0]
    res = call(
        "simulate_projectile",
        {
            "origin": origin,
            "velocity": [speed * math.cos(th), -speed * math.sin(th)],
            "gravity": g,
            "obstacles": [{"kind": "segment", "points": [[-1000, 600], [5000, 600]]}],
            "t_max": 60,
        },
        Canvas(size=(640, 640)),
    )
    assert res.ok, res.text
    hit = res.data["hit"]
    assert hit is not None and hit["index"] == 0
    expected = speed**2 * math.sin(2 * th) / g
    assert hit["at"][0] - origin[0] == pytest.approx(expected, rel=0.005)
    assert hit["t"] == pytest.approx(2 * speed * math.sin(th) / g, rel=0.005)


def test_projectile_hits_the_first_obstacle_on_its_way() -> None:
    # a wall at x = 100 stands before the floor landing point; the ball hits the wall at the parabola's height there
    v = [30.0, -30.0]
    res = call(
        "simulate_projectile",
        {
            "origin": [0, 600],
            "velocity": v,
            "obstacles": [
                {"kind": "segment", "points": [[0, 600], [640, 600]]},
                {"kind": "segment", "points": [[100, 0], [100, 600]]},
                {"kind": "circle", "center": [600, 100], "radius": 10},
            ],
        },
        Canvas(size=(640, 640)),
    )
    hit = res.data["hit"]
    assert hit["index"] == 1
    t = 100 / 30
    assert hit["at"][0] == pytest.approx(100, abs=1e-6)
    assert hit["at"][1] == pytest.approx(600 - 30 * t + 0.5 * 9.8 * t * t, abs=1e-6)
    assert hit["t"] == pytest.approx(t, abs=1e-6)


def test_projectile_without_obstacles_leaves_the_canvas() -> None:
    res = call("simulate_projectile", {"origin": [10, 10], "velocity": [100, 0]}, Canvas(size=(200, 200)))
    assert res.ok and res.data["hit"] is None and res.data["end"] == "left_canvas"


def test_cast_ray_bounces_specularly() -> None:
    res = call(
        "cast_ray",
        {"origin": [100, 100], "direction": [1, 1], "walls": [[[300, 0], [300, 640]], [[0, 500], [640, 500]]]},
        Canvas(size=(640, 640)),
    )
    assert res.ok, res.text
    hits = res.data["hits"]
    assert [h["wall"] for h in hits] == [0, 1]
    assert hits[0]["at"] == pytest.approx([300, 300]) and hits[0]["angle_in"] == pytest.approx(45)
    assert hits[1]["at"] == pytest.approx([100, 500])
    assert res.data["points"][-1] == pytest.approx([0, 400])


def test_cast_ray_reflecting_border_stops_at_max_bounces() -> None:
    res = call(
        "cast_ray",
        {"origin": [50, 50], "direction": [1, 0.37], "border": "reflect", "max_bounces": 7},
        Canvas(size=(300, 200)),
    )
    assert res.ok and res.data["end"] == "max_bounces" and len(res.data["hits"]) == 7
    assert all(h["wall"] == "border" for h in res.data["hits"])


def test_ball_bounces_among_bricks_in_order() -> None:
    # straight up from (100, 180) in a 200x200 box: hits brick 0 (above), then the bottom wall, then brick 0 again
    res = call(
        "simulate_bounces",
        {"origin": [100, 180], "velocity": [0, -50], "radius": 5, "bricks": [[80, 20, 120, 40]], "max_bounces": 3},
        Canvas(size=(200, 200)),
    )
    assert res.ok, res.text
    assert [(h["kind"], h["index"]) for h in res.data["hits"]] == [("brick", 0), ("wall", "bottom"), ("brick", 0)]
    assert res.data["hits"][0]["at"] == pytest.approx([100, 45])
    assert res.data["hits"][0]["t"] == pytest.approx(135 / 50)
    breakout = call(
        "simulate_bounces",
        {
            "origin": [100, 180],
            "velocity": [0, -50],
            "radius": 5,
            "bricks": [[80, 20, 120, 40]],
            "remove_bricks": True,
            "max_bounces": 3,
        },
        Canvas(size=(200, 200)),
    )
    assert [(h["kind"], h["index"]) for h in breakout.data["hits"]] == [
        ("brick", 0),
        ("wall", "bottom"),
        ("wall", "top"),
    ]


def test_ball_overlapping_a_brick_is_an_error() -> None:
    c = Canvas(size=(200, 200))
    res = call("simulate_bounces", {"origin": [100, 30], "velocity": [1, 1], "bricks": [[80, 20, 120, 40]]}, c)
    assert not res.ok and "overlaps brick 0" in res.text and c.log == []


def test_ball_grazing_a_brick_face_is_caught() -> None:
    # the centre path never enters the brick's box, only its radius-grown face (pymunk's broad phase misses it)
    res = call(
        "simulate_bounces",
        {
            "origin": [560, 194],
            "velocity": [-3, 43],
            "radius": 8,
            "box": [40, 40, 600, 440],
            "bricks": [[517, 265, 545, 361]],
            "max_bounces": 1,
        },
        Canvas(size=(640, 480)),
    )
    hit = res.data["hits"][0]
    assert (hit["kind"], hit["index"]) == ("brick", 0)
    assert hit["at"] == pytest.approx([553, 194 + 7 * 43 / 3])
