import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.benchmarks.generators.games import make_item
from mcot.benchmarks.generators.games._geometry import reflect, refract, unit
from mcot.benchmarks.generators.games.ray import Block, Mirror, Target, trace
from PIL import Image


def _angle(v: tuple[float, float], normal: tuple[float, float]) -> float:
    return math.degrees(math.acos(abs(v[0] * normal[0] + v[1] * normal[1]) / math.hypot(*v)))


@settings(max_examples=50, deadline=None)
@given(st.floats(0.0, 89.0), st.floats(1.0, 2.5), st.floats(1.0, 2.5))
def test_snell_law_holds_to_1e_9(theta: float, n1: float, n2: float) -> None:
    d = (math.sin(math.radians(theta)), math.cos(math.radians(theta)))
    out = refract(d, (0.0, -1.0), n1, n2)
    critical = math.degrees(math.asin(n2 / n1)) if n1 > n2 else 90.0
    if theta > critical + 1e-9:
        assert out is None
    elif theta < critical - 1e-9:
        assert out is not None
        assert n1 * math.sin(math.radians(theta)) == pytest.approx(n2 * abs(out[0]), abs=1e-9)
        assert out[1] > 0  # it goes on through the surface


def test_reflection_angle_in_equals_angle_out() -> None:
    normal = unit((1.0, -2.0))
    d = unit((3.0, 1.0))
    out = reflect(d, normal)
    assert _angle(out, normal) == pytest.approx(_angle(d, normal), abs=1e-12)
    assert math.hypot(*out) == pytest.approx(1.0)


def test_a_slab_shifts_the_ray_by_the_textbook_amount() -> None:
    theta, n, thickness = 40.0, 1.5, 100.0
    slab = Block(((0.0, 200.0), (640.0, 200.0), (640.0, 300.0), (0.0, 300.0)), n)
    d = (math.sin(math.radians(theta)), math.cos(math.radians(theta)))
    result = trace((100.0, 100.0), d, [], [slab], [], size=(640, 480))
    assert [e["type"] for e in result.events] == ["refract", "refract", "exit"]
    (x_out, y_out), (x_end, y_end) = result.points[2], result.points[3]
    out = unit((x_end - x_out, y_end - y_out))
    assert out == pytest.approx(d, abs=1e-12)  # leaves parallel to how it came in
    theta_r = math.asin(math.sin(math.radians(theta)) / n)
    expected = thickness * math.sin(math.radians(theta) - theta_r) / math.cos(theta_r)
    # perpendicular distance between the exit ray and the unbent incoming line
    rx, ry = x_out - 100.0, y_out - 100.0
    assert abs(rx * d[1] - ry * d[0]) == pytest.approx(expected, abs=1e-9)


def test_total_internal_reflection_inside_a_prism() -> None:
    # a right-angle prism: light enters the short face head-on and meets the hypotenuse at 45 degrees (n = 1.5)
    prism = Block(((300.0, 100.0), (300.0, 300.0), (500.0, 300.0)), 1.5)
    result = trace((100.0, 250.0), (1.0, 0.0), [], [prism], [], size=(640, 480))
    assert [e["type"] for e in result.events[:3]] == ["refract", "tir", "refract"]
    assert result.points[2] == pytest.approx((450.0, 250.0))  # on the hypotenuse x - y = 200
    assert result.points[3] == pytest.approx((450.0, 300.0))  # straight down out of the bottom face


def test_a_45_degree_mirror_sends_the_ray_to_the_target_above() -> None:
    mirror = Mirror((280.0, 220.0), (320.0, 180.0))
    targets = [Target("A", "blue", (300.0, 60.0), 12.0), Target("B", "gold", (500.0, 200.0), 12.0)]
    result = trace((100.0, 200.0), (1.0, 0.0), [mirror], [], targets)
    assert result.hit == 0
    assert [c for p in result.points for c in p] == pytest.approx([100.0, 200.0, 300.0, 200.0, 300.0, 72.0])
    assert result.events[0]["type"] == "reflect" and result.events[0]["angle_in"] == pytest.approx(45.0)


@pytest.fixture(scope="module")
def items() -> list:
    return [make_item("ray", 5, i) for i in range(25)]


def test_meta_events_lie_on_the_path_and_end_on_the_answer(items: list) -> None:
    for game in items:
        meta = game.item.meta
        assert [e["at"] for e in meta["events"]] == meta["path"][1:-1]
        hit = meta["targets"][meta["hit"]["index"]]
        x0, y0, x1, y1 = hit["box"]
        x, y = meta["path"][-1]
        assert x0 - 1e-3 <= x <= x1 + 1e-3 and y0 - 1e-3 <= y <= y1 + 1e-3
        assert min(abs(x - x0), abs(x - x1), abs(y - y0), abs(y - y1)) < 1e-2  # on the square's edge
        letter = game.item.answer
        assert game.item.choices[ord(letter) - ord("A")] == f"the {hit['label']} square"
        for e in meta["events"]:
            if e["type"] == "reflect":
                assert 0 <= e["angle_in"] <= 80


def test_ray_pixels_follow_the_rendering_conventions(items: list) -> None:
    for game in items[:10]:
        meta = game.item.meta
        image = Image.open(io.BytesIO(game.png))
        assert image.mode == "RGB" and image.size == (640, 480)
        ox, oy = meta["origin"]
        assert image.getpixel((int(ox), int(oy))) == (220, 0, 0)
        for t in meta["targets"]:
            assert image.getpixel((int(t["center"][0]), int(t["center"][1]))) == tuple(t["color"])
        for s in meta["surfaces"]:
            if s["kind"] == "mirror":
                (ax, ay), (bx, by) = s["points"]
                assert image.getpixel((round((ax + bx) / 2), round((ay + by) / 2))) == (64, 64, 64)
