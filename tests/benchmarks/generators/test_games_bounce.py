import io
import math

import pytest
from mcot.benchmarks.generators.games import make_item
from mcot.benchmarks.generators.games.bounce import RADIUS, Brick, simulate
from PIL import Image


def test_straight_into_a_brick_without_a_bounce() -> None:
    bricks = [Brick("A", "blue", (300.0, 200.0, 360.0, 280.0))]
    result = simulate((100.0, 240.0), (1.0, 0.0), bricks)
    assert result.brick == 0
    assert result.path[-1] == pytest.approx((300.0 - RADIUS, 240.0))
    assert [h["type"] for h in result.hits] == ["brick"]


def test_one_bounce_off_the_floor_mirrors_the_vertical_speed() -> None:
    # box inner faces 40..600 x 40..440; the centre bounces at y = 440 - 8 = 432
    bricks = [Brick("A", "blue", (420.0, 100.0, 480.0, 400.0))]
    result = simulate((100.0, 232.0), (1.0, 1.0), bricks)
    assert [h["type"] for h in result.hits] == ["wall", "brick"]
    assert result.hits[0]["side"] == "bottom"
    assert result.path[1] == pytest.approx((300.0, 432.0))
    assert result.path[2] == pytest.approx((412.0, 320.0))  # climbing at 45 degrees onto the brick's left face


@pytest.fixture(scope="module")
def items() -> list:
    return [make_item("bounce", 4, i) for i in range(25)]


def test_meta_path_reflects_at_walls_and_ends_on_the_brick(items: list) -> None:
    for game in items:
        meta = game.item.meta
        path, hits = meta["path"], meta["hits"]
        assert path[0] == meta["ball"]["start"] and len(path) == len(hits) + 1
        for k, hit in enumerate(hits[:-1]):
            (ax, ay), (bx, by), (cx, cy) = path[k], path[k + 1], path[k + 2]
            din, dout = (bx - ax, by - ay), (cx - bx, cy - by)
            if hit["side"] in ("left", "right"):  # vertical wall: vx flips, vy keeps its sign and ratio
                assert din[0] * dout[0] < 0 and din[1] / din[0] == pytest.approx(-dout[1] / dout[0], rel=1e-3)
            else:
                assert din[1] * dout[1] < 0 and din[0] / din[1] == pytest.approx(-dout[0] / dout[1], rel=1e-3)
        assert hits[-1]["type"] == "brick" and hits[-1]["label"] == meta["first_brick"]
        brick = next(b for b in meta["bricks"] if b["label"] == meta["first_brick"])
        x0, y0, x1, y1 = brick["rect"]
        x, y = path[-1]
        gap = max(x0 - x, x - x1, y0 - y, y - y1)
        assert gap == pytest.approx(RADIUS, abs=1e-2)  # the ball's edge touches the brick
        walls = sum(h["type"] == "wall" for h in hits)
        assert walls == meta["wall_bounces"]
        if meta["kind"] == "wall_bounces":
            assert game.item.answer == str(walls)
        else:
            assert game.item.choices[ord(game.item.answer) - ord("A")] == f"the {meta['first_brick']} brick"


def test_bounce_pixels_follow_the_stated_colours(items: list) -> None:
    for game in items[:10]:
        meta = game.item.meta
        image = Image.open(io.BytesIO(game.png))
        for b in meta["bricks"]:
            x0, y0, x1, y1 = b["rect"]
            assert image.getpixel((int(x0), int(y0))) == tuple(b["color"])
            assert image.getpixel((int(x1) - 1, int(y1) - 1)) == tuple(b["color"])
            assert image.getpixel((int(x1), int(y1))) != tuple(b["color"])
        x0, y0, x1, y1 = meta["box"]
        assert image.getpixel((int(x0) - 1, int(y0) + 50)) == (64, 64, 64)
        assert image.getpixel((int(x0), int(y0) + 50)) in {(255, 255, 255)} | {
            tuple(b["color"]) for b in meta["bricks"]
        }


def _brute_force(meta: dict, step: float = 0.1) -> tuple[int, str] | None:
    """Walk the ball's centre in tiny steps (no closed form at all) and report (wall bounces, first brick)."""
    x0, y0, x1, y1 = meta["box"]
    r = meta["ball"]["radius"]
    (x, y), (dx, dy) = meta["ball"]["start"], meta["direction"]
    norm = math.hypot(dx, dy)
    dx, dy, walls = dx / norm, dy / norm, 0
    for _ in range(int(4000 / step)):
        x, y = x + dx * step, y + dy * step
        for b in meta["bricks"]:
            bx0, by0, bx1, by1 = b["rect"]
            if math.hypot(max(bx0 - x, 0, x - bx1), max(by0 - y, 0, y - by1)) <= r:
                return walls, b["label"]
        if (x - r <= x0 and dx < 0) or (x + r >= x1 and dx > 0):
            dx, walls = -dx, walls + 1
        if (y - r <= y0 and dy < 0) or (y + r >= y1 and dy > 0):
            dy, walls = -dy, walls + 1
    return None


def test_a_brute_force_walk_reaches_the_same_brick(items: list) -> None:
    for game in items[:12]:
        meta = game.item.meta
        assert _brute_force(meta) == (meta["wall_bounces"], meta["first_brick"]), game.item.id
