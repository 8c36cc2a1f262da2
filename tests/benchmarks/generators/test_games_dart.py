import io
import math

import pytest
from mcot.benchmarks.generators.games import make_item
from mcot.benchmarks.generators.games.dart import Balloon, first_contact, first_pop, position
from PIL import Image


def test_range_matches_v2_sin2theta_over_g() -> None:
    v, theta, g = 300.0, math.radians(35.0), 400.0
    velocity = (v * math.cos(theta), -v * math.sin(theta))
    t_land = 2 * v * math.sin(theta) / g
    x, y = position((0.0, 300.0), velocity, g, t_land)
    assert x == pytest.approx(v * v * math.sin(2 * theta) / g, rel=1e-12)
    assert y == pytest.approx(300.0, abs=1e-9)


def test_first_contact_is_the_first_time_the_dart_is_one_radius_away() -> None:
    origin, velocity, g = (0.0, 0.0), (100.0, 0.0), 200.0  # y = x² / 100
    t = first_contact(origin, velocity, g, (100.0, 100.0), 10.0)
    assert t is not None and 0.9 < t < 1.0
    assert math.dist(position(origin, velocity, g, t), (100.0, 100.0)) == pytest.approx(10.0, abs=1e-6)
    for k in range(100):
        assert math.dist(position(origin, velocity, g, t * k / 100), (100.0, 100.0)) > 10.0


def test_a_balloon_off_the_path_is_never_touched() -> None:
    assert first_contact((0.0, 0.0), (100.0, 0.0), 200.0, (100.0, 40.0), 10.0) is None


def test_the_nearer_balloon_on_the_parabola_pops_first() -> None:
    balloons = [Balloon("A", "blue", (200.0, 400.0), 15.0), Balloon("B", "gold", (100.0, 100.0), 15.0)]
    hit = first_pop((0.0, 0.0), (100.0, 0.0), 200.0, balloons)
    assert hit is not None and hit[0] == 1


@pytest.fixture(scope="module")
def items() -> list:
    return [make_item("dart", 9, i) for i in range(25)]


def test_meta_trajectory_is_the_parabola_and_ends_on_the_answer(items: list) -> None:
    for game in items:
        meta = game.item.meta
        (ox, oy), (tx, ty), k = meta["origin"], meta["arrow_tip"], meta["velocity_scale"]
        assert meta["velocity"] == pytest.approx([(tx - ox) * k, (ty - oy) * k])
        vx, vy, g = *meta["velocity"], meta["gravity"]
        for x, y in meta["path"]:
            t = (x - ox) / vx
            assert y == pytest.approx(oy + vy * t + 0.5 * g * t * t, abs=2e-3)
        hit = meta["balloons"][meta["hit"]["index"]]
        assert math.dist(meta["hit"]["at"], hit["center"]) == pytest.approx(hit["radius"], abs=2e-3)
        assert meta["path"][-1] == meta["hit"]["at"]
        letter = game.item.answer
        assert game.item.choices[ord(letter) - ord("A")] == f"the {hit['label']} balloon"
        for other in meta["balloons"]:
            t_other = first_contact((ox, oy), (vx, vy), g, tuple(other["center"]), other["radius"])
            assert other is hit or t_other is None or t_other > meta["hit"]["t"]


def test_dart_pixels_follow_the_stated_colours(items: list) -> None:
    for game in items[:10]:
        meta = game.item.meta
        image = Image.open(io.BytesIO(game.png))
        assert image.mode == "RGB"
        for b in meta["balloons"]:
            assert image.getpixel(tuple(int(c) for c in b["center"])) == tuple(b["color"])
        ox, oy = meta["origin"]
        assert image.getpixel((int(ox) - 3, int(oy))) == (0, 0, 0)
        assert image.getpixel(tuple(int(c) for c in meta["arrow_tip"])) == (220, 0, 0)
