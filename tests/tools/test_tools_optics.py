"""Optics tools against closed forms: reflection, Snell's law, total internal reflection, slab shift, lenses."""

from __future__ import annotations

import math

import pytest
from mcot.canvas import Canvas
from mcot.tools import call


def _canvas() -> Canvas:
    return Canvas(size=(640, 640))


def _dir(a: list[float], b: list[float]) -> tuple[float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    return dx / n, dy / n


@pytest.mark.parametrize("tilt", [0.0, 17.0, 35.0, -50.0])
def test_mirror_angle_in_equals_angle_out(tilt: float) -> None:
    # a mirror through (400, 300) tilted by `tilt` degrees from vertical
    t = math.radians(tilt)
    half = (150 * math.sin(t), 150 * math.cos(t))
    mirror = [[400 - half[0], 300 - half[1]], [400 + half[0], 300 + half[1]]]
    res = call(
        "trace_light_ray",
        {
            "origin": [100, 250],
            "direction": [1, 0.15],
            "surfaces": [{"kind": "mirror", "points": mirror}],
            "draw": False,
        },
        _canvas(),
    )
    assert res.ok, res.text
    ev = res.data["events"][0]
    assert ev["type"] == "reflect"
    pts = res.data["points"]
    d_in, d_out = _dir(pts[0], pts[1]), _dir(pts[1], pts[2])
    tangent = _dir(*mirror)
    normal = (-tangent[1], tangent[0])
    # the tangential component is kept, the normal component flips
    assert d_out[0] * tangent[0] + d_out[1] * tangent[1] == pytest.approx(
        d_in[0] * tangent[0] + d_in[1] * tangent[1], abs=1e-9
    )
    assert d_out[0] * normal[0] + d_out[1] * normal[1] == pytest.approx(
        -(d_in[0] * normal[0] + d_in[1] * normal[1]), abs=1e-9
    )
    assert ev["angle_in"] == pytest.approx(ev["angle_out"], abs=1e-9)


@pytest.mark.parametrize("theta", [0.0, 10.0, 30.0, 45.0, 60.0, 80.0])
@pytest.mark.parametrize(("n1", "n2"), [(1.0, 1.5), (1.0, 1.33), (1.2, 2.4)])
def test_snell_law_to_1e9(theta: float, n1: float, n2: float) -> None:
    th = math.radians(theta)
    res = call(
        "trace_light_ray",
        {
            "origin": [100, 320],
            "direction": [math.cos(th), math.sin(th) * 0.999999],
            "surfaces": [{"kind": "interface", "points": [[300, -1000], [300, 2000]], "n1": n1, "n2": n2}],
            "draw": False,
        },
        Canvas(size=(640, 4000)),
    )
    assert res.ok, res.text
    ev = res.data["events"][0]
    assert ev["type"] == "refract"
    pts = res.data["points"]
    d_in, d_out = _dir(pts[0], pts[1]), _dir(pts[1], pts[2])
    # normal of the interface is the x axis: sin of the angle to it is |dy|
    assert n1 * abs(d_in[1]) == pytest.approx(n2 * abs(d_out[1]), abs=1e-9)
    assert n1 * math.sin(math.radians(ev["angle_in"])) == pytest.approx(
        n2 * math.sin(math.radians(ev["angle_out"])), abs=1e-9
    )


def test_total_internal_reflection_exactly_beyond_critical_angle() -> None:
    n1, n2 = 1.5, 1.0
    critical = math.asin(n2 / n1)
    for delta, expected in ((1e-6, "tir"), (-1e-6, "refract")):
        th = critical + delta
        res = call(
            "trace_light_ray",
            {
                "origin": [100, 100],
                "direction": [math.cos(th), math.sin(th)],
                "surfaces": [{"kind": "interface", "points": [[300, -5000], [300, 5000]], "n1": n1, "n2": n2}],
                "draw": False,
            },
            Canvas(size=(640, 640)),
        )
        assert res.ok, res.text
        assert res.data["events"][0]["type"] == expected


def test_interface_n1_is_the_side_the_ray_first_comes_from() -> None:
    # the ray meets the interface from the right, so n1 applies on the right
    res = call(
        "trace_light_ray",
        {
            "origin": [500, 300],
            "direction": [-1, 0.5],
            "surfaces": [{"kind": "interface", "points": [[300, 0], [300, 640]], "n1": 1.0, "n2": 1.5}],
            "draw": False,
        },
        _canvas(),
    )
    ev = res.data["events"][0]
    assert (ev["n1"], ev["n2"]) == (1.0, 1.5)
    assert ev["angle_out"] < ev["angle_in"]


@pytest.mark.parametrize("theta", [15.0, 30.0, 50.0])
def test_glass_slab_shifts_ray_laterally_by_textbook_amount(theta: float) -> None:
    n, thickness = 1.5, 200.0
    th = math.radians(theta)
    res = call(
        "trace_light_ray",
        {
            "origin": [50, 100],
            "direction": [math.cos(th), math.sin(th)],
            "surfaces": [{"kind": "block", "polygon": [[200, -2000], [400, -2000], [400, 3000], [200, 3000]], "n": n}],
            "draw": False,
        },
        Canvas(size=(640, 1400)),
    )
    assert res.ok, res.text
    types = [e["type"] for e in res.data["events"]]
    assert types[:2] == ["refract", "refract"]
    pts = res.data["points"]
    d_in, d_out = _dir(pts[0], pts[1]), _dir(pts[2], pts[3])
    assert d_out[0] == pytest.approx(d_in[0], abs=1e-9) and d_out[1] == pytest.approx(d_in[1], abs=1e-9)
    shift = abs(d_in[0] * (pts[2][1] - pts[0][1]) - d_in[1] * (pts[2][0] - pts[0][0]))
    th_r = math.asin(math.sin(th) / n)
    assert shift == pytest.approx(thickness * math.sin(th - th_r) / math.cos(th_r), rel=1e-9)


def test_ray_ends_on_border_or_at_max_events() -> None:
    c = _canvas()
    res = call(
        "trace_light_ray",
        {
            "origin": [100, 100],
            "direction": [1, 0],
            "surfaces": [
                {"kind": "mirror", "points": [[600, 0], [600, 640]]},
                {"kind": "mirror", "points": [[50, 0], [50, 640]]},
            ],
            "max_events": 5,
        },
        c,
    )
    assert res.ok and len(res.data["events"]) == 5
    assert res.drawn and c.log[-1]["op"] == "trace_path"
    free = call("trace_light_ray", {"origin": [100, 100], "direction": [1, 1]}, c)
    assert free.data["points"][-1] == pytest.approx([640, 640])
    assert free.data["events"][-1]["type"] == "exit"


def test_ray_starting_inside_a_block_is_an_error_that_says_how_to_fix() -> None:
    c = _canvas()
    res = call(
        "trace_light_ray",
        {
            "origin": [300, 300],
            "direction": [1, 0],
            "surfaces": [{"kind": "block", "polygon": [[200, 200], [400, 200], [400, 400], [200, 400]], "n": 1.5}],
        },
        c,
    )
    assert not res.ok and "inside block 0" in res.text and "outside" in res.text
    assert c.log == []


@pytest.mark.parametrize(("f", "d_o"), [(10.0, 30.0), (10.0, 15.0), (10.0, 5.0), (-10.0, 20.0), (25.0, 100.0)])
def test_thin_lens_equation(f: float, d_o: float) -> None:
    res = call("thin_lens", {"focal_length": f, "object_distance": d_o, "object_height": 2}, _canvas())
    d_i = res.data["image_distance"]
    assert 1 / f == pytest.approx(1 / d_o + 1 / d_i, rel=1e-12)
    assert res.data["magnification"] == pytest.approx(-d_i / d_o)
    assert res.data["real"] == (d_i > 0)
    assert res.data["image_height"] == pytest.approx(2 * -d_i / d_o)


def test_thin_lens_object_at_focus_images_at_infinity() -> None:
    res = call("thin_lens", {"focal_length": 10, "object_distance": 10}, _canvas())
    assert res.ok and res.data["at_infinity"] and res.data["image_distance"] is None


def test_thin_lens_draws_a_ray_diagram_when_placed() -> None:
    c = _canvas()
    res = call("thin_lens", {"focal_length": 80, "object_distance": 200, "object_height": 60, "center": [320, 320]}, c)
    assert res.ok and len(res.drawn) >= 5


def test_spherical_mirrors() -> None:
    concave = call("spherical_mirror", {"kind": "concave", "radius": 20, "object_distance": 5}, _canvas())
    assert concave.data["focal_length"] == 10
    assert concave.data["image_distance"] == pytest.approx(-10)
    assert concave.data["magnification"] == pytest.approx(2) and concave.data["upright"] and not concave.data["real"]
    convex = call("spherical_mirror", {"kind": "convex", "focal_length": 10, "object_distance": 10}, _canvas())
    assert convex.data["image_distance"] == pytest.approx(-5)
    assert convex.data["magnification"] == pytest.approx(0.5)
    both = call(
        "spherical_mirror", {"kind": "convex", "focal_length": 10, "radius": 20, "object_distance": 10}, _canvas()
    )
    assert not both.ok and "exactly one of focal_length or radius" in both.text


def test_mirror_image_in_a_plane_mirror() -> None:
    res = call("mirror_image", {"mirror": [[0, 0], [100, 100]], "points": [[10, 0], [50, 20]]}, _canvas())
    assert res.data["points"] == [pytest.approx([0, 10]), pytest.approx([20, 50])]
