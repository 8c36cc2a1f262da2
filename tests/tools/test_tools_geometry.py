"""Geometry tools against known values: intersections, distances, angles, transforms, circles, polygons, solve."""

from __future__ import annotations

import math

import pytest
from mcot.canvas import Canvas
from mcot.tools import call


def run(name: str, args: dict) -> dict:
    res = call(name, args, Canvas(size=(400, 400)))
    assert res.ok, res.text
    return res.data


def seg(a: list[float], b: list[float]) -> dict:
    return {"kind": "segment", "points": [a, b]}


def test_segment_segment_and_parallel_and_collinear() -> None:
    assert run("intersect", {"a": seg([0, 0], [10, 10]), "b": seg([0, 10], [10, 0])})["points"] == [[5, 5]]
    assert run("intersect", {"a": seg([0, 0], [10, 0]), "b": seg([0, 1], [10, 1])})["points"] == []
    assert run("intersect", {"a": seg([0, 0], [10, 0]), "b": seg([5, 0], [20, 0])})["points"] == [[5, 0], [10, 0]]
    # segments that would cross only when extended do not meet; lines do
    assert run("intersect", {"a": seg([0, 0], [1, 1]), "b": seg([0, 10], [10, 0])})["points"] == []
    line = {"kind": "line", "points": [[0, 0], [1, 1]]}
    assert run("intersect", {"a": line, "b": seg([0, 10], [10, 0])})["points"] == [[5, 5]]
    ray = {"kind": "ray", "points": [[6, 6], [7, 7]]}
    assert run("intersect", {"a": ray, "b": seg([0, 10], [10, 0])})["points"] == []


def test_line_circle_circle_circle_and_polygons() -> None:
    circle = {"kind": "circle", "center": [0, 0], "radius": 5}
    pts = run("intersect", {"a": {"kind": "line", "points": [[-10, 3], [10, 3]]}, "b": circle})["points"]
    assert sorted(pts) == [[-4, 3], [4, 3]]
    tangent = run("intersect", {"a": {"kind": "line", "points": [[-10, 5], [10, 5]]}, "b": circle})["points"]
    assert tangent == [[0, 5]]
    other = {"kind": "circle", "center": [8, 0], "radius": 5}
    assert sorted(run("intersect", {"a": circle, "b": other})["points"]) == [[4, -3], [4, 3]]
    sq1 = {"kind": "polygon", "points": [[0, 0], [10, 0], [10, 10], [0, 10]]}
    sq2 = {"kind": "polygon", "points": [[5, 5], [15, 5], [15, 15], [5, 15]]}
    data = run("intersect", {"a": sq1, "b": sq2})
    assert sorted(data["points"]) == [[5, 10], [10, 5]] and data["overlap_area"] == pytest.approx(25)


def test_distance_angle_and_perpendicular() -> None:
    d = run(
        "measure_distance", {"a": {"kind": "point", "points": [[3, 4]]}, "b": {"kind": "point", "points": [[0, 0]]}}
    )
    assert d["distance"] == pytest.approx(5)
    d = run(
        "measure_distance",
        {"a": {"kind": "point", "points": [[0, 0]]}, "b": {"kind": "circle", "center": [10, 0], "radius": 4}},
    )
    assert d["distance"] == pytest.approx(6, abs=1e-3)
    a = run("measure_angle", {"vertex": [0, 0], "a": [10, 0], "b": [0, -10]})
    assert a["angle"] == pytest.approx(90) and a["counterclockwise"] == pytest.approx(90)
    assert run("measure_angle", {"vertex": [0, 0], "a": [1, 0], "b": [1, math.sqrt(3)]})["angle"] == pytest.approx(60)
    p = run("construct_line", {"kind": "perpendicular", "line": [[0, 0], [10, 10]], "through": [0, 10]})
    assert p["foot"] == pytest.approx([5, 5]) and p["distance"] == pytest.approx(math.sqrt(50))
    q = run("construct_line", {"kind": "parallel", "line": [[0, 0], [10, 0]], "through": [3, 7]})
    assert q["points"][0][1] == pytest.approx(7) and q["points"][1][1] == pytest.approx(7)


def test_transforms_match_canvas_conventions() -> None:
    shape = {"kind": "polygon", "points": [[10, 0], [20, 0], [10, 5]]}
    rot = run("transform_shape", {"shape": shape, "rotate": {"angle": 90, "center": [0, 0]}})["shape"]
    assert rot["points"] == [pytest.approx([0, -10]), pytest.approx([0, -20]), pytest.approx([5, -10])]
    ref = run("transform_shape", {"shape": shape, "reflect": [[0, 0], [0, 1]]})["shape"]
    assert ref["points"] == [pytest.approx([-10, 0]), pytest.approx([-20, 0]), pytest.approx([-10, 5])]
    moved = run("transform_shape", {"shape": {"kind": "circle", "center": [1, 1], "radius": 2}, "translate": [3, 4]})
    assert moved["shape"] == {"kind": "circle", "center": [4, 5], "radius": 2}
    # the canvas rotates elements the same way
    c = Canvas(size=(400, 400))
    call("draw_line", {"start": [210, 200], "end": [220, 200]}, c)
    call("transform", {"ids": ["e1"], "rotate": {"angle": 90, "center": [200, 200]}}, c)
    assert c.elements["e1"].props["start"] == pytest.approx([200, 190])


def test_circle_through_three_points_tangency_and_polygon() -> None:
    c = run("circle_through", {"points": [[0, 0], [10, 0], [0, 10]]})
    assert c["center"] == pytest.approx([5, 5]) and c["radius"] == pytest.approx(math.sqrt(50))
    res = call("circle_through", {"points": [[0, 0], [5, 5], [10, 10]]}, Canvas(size=(50, 50)))
    assert not res.ok and "collinear" in res.text
    circle = {"kind": "circle", "center": [0, 0], "radius": 5}
    assert run("check_tangent", {"circle": circle, "other": {"kind": "line", "points": [[-9, 5], [9, 5]]}})["tangent"]
    assert not run("check_tangent", {"circle": circle, "other": {"kind": "line", "points": [[-9, 3], [9, 3]]}})[
        "tangent"
    ]
    t = run("check_tangent", {"circle": circle, "other": {"kind": "circle", "center": [8, 0], "radius": 3}})
    assert t["tangent"] and t["point"] == pytest.approx([5, 0])
    inner = run("check_tangent", {"circle": circle, "other": {"kind": "circle", "center": [2, 0], "radius": 3}})
    assert inner["tangent"] and inner["point"] == pytest.approx([5, 0])
    p = run("analyze_polygon", {"points": [[0, 0], [4, 0], [4, 3], [0, 3]]})
    assert p["area"] == pytest.approx(12) and p["centroid"] == pytest.approx([2, 1.5]) and p["perimeter"] == 14
    assert p["angles"] == pytest.approx([90, 90, 90, 90]) and p["convex"]
    arrow = run("analyze_polygon", {"points": [[0, 0], [10, 0], [5, 3], [5, 10]]})
    assert not arrow["convex"] and sum(arrow["angles"]) == pytest.approx(360)


def test_solve_exact_and_decimal() -> None:
    s = run("solve", {"equations": ["x^2 - 2 = 0"]})
    assert sorted(sol["x"]["exact"] for sol in s["solutions"]) == ["-sqrt(2)", "sqrt(2)"]
    assert sorted(sol["x"]["decimal"] for sol in s["solutions"]) == pytest.approx([-math.sqrt(2), math.sqrt(2)])
    sys2 = run("solve", {"equations": ["2x + y = 7", "x - y = -1"]})
    assert sys2["solutions"] == [{"x": {"exact": "2", "decimal": 2.0}, "y": {"exact": "3", "decimal": 3.0}}]
    e = run("solve", {"expression": "sqrt(8)/2 + sin(pi/6)"})
    assert e["exact"] == "1/2 + sqrt(2)" and e["decimal"] == pytest.approx(0.5 + math.sqrt(2))
    for bad, words in [
        ("__import__('os')", "not plain math"),
        ("x.evalf(2)", "not plain math"),  # no attribute access: sympy's parser ends in eval()
        ("exp(1).func", "not plain math"),
        ("9^9^9^9", "too large"),
        ("x = x + 1", "always"),
    ]:
        key = "equations" if "=" in bad else "expression"
        res = call("solve", {key: [bad] if key == "equations" else bad}, Canvas(size=(10, 10)))
        assert not res.ok and words in res.text
