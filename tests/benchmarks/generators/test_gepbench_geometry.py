"""Shapes, the paper's sampling rules, relations and constructive placement of the GePBench engine."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.benchmarks.generators.gepbench import relations as rel
from mcot.benchmarks.generators.gepbench import shapes as sh
from mcot.benchmarks.generators.gepbench.placement import (
    GAP,
    LEVEL_SHAPES,
    MAX_CROSSINGS,
    MIN_CROSS_ANGLE,
    contact,
    place_figure,
)
from mcot.benchmarks.generators.gepbench.sampling import (
    MARGIN,
    MIN_AREA,
    MIN_EDGE,
    inside_canvas,
    rectangle,
    sample_shape,
)
from mcot.benchmarks.generators.gepbench.vocabulary import (
    article,
    inclusion_note,
    matches,
    members,
    plural,
    unique_name,
)


def _samples(kind: str, count: int = 40) -> list[sh.Shape]:
    rng = np.random.default_rng(11)
    out = []
    while len(out) < count:
        shape = sample_shape(kind, rng)
        if shape is not None:
            out.append(shape)
    return out


@pytest.mark.parametrize("kind", sh.KINDS)
def test_every_kind_obeys_the_paper_rules(kind: str) -> None:
    for shape in _samples(kind):
        assert shape.kind == kind
        assert inside_canvas(shape)
        assert shape.array.min() >= MARGIN and shape.array.max() <= 1 - MARGIN
        if kind in sh.POLYGON_KINDS:
            assert shape.area > MIN_AREA
            assert min(sh.edge_lengths(shape.outline)) > MIN_EDGE
            assert all(0.15 * math.pi <= a <= 0.85 * math.pi for a in sh.interior_angles(shape.outline))
        if kind == "rectangle":
            w, h = shape.params["width"], shape.params["height"]
            assert min(w, h) / max(w, h) <= 0.8
        if kind == "ellipse":
            assert shape.params["minor_axis"] / shape.params["major_axis"] <= 0.8
        if kind == "line":
            assert 0.2 <= math.dist(*shape.outline) <= 0.8
        if kind in ("pentagram", "hexagram"):
            outer, inner = shape.params["outer_radius"], shape.params["inner_radius"]
            assert 0.15 <= outer <= 0.4 and 0.4 <= inner / outer <= 0.7
        if kind == "sector":
            span = shape.params["end_angle"] - shape.params["start_angle"]
            assert math.pi / 12 <= span <= 5 * math.pi / 12


def test_irregular_polygons_never_pass_for_regular_ones() -> None:
    for shape in _samples("triangle", 60):
        assert not all(abs(a - math.pi / 3) < 0.15 for a in sh.interior_angles(shape.outline))
    for shape in _samples("quadrilateral", 60):
        assert not all(abs(a - math.pi / 2) < 0.15 for a in sh.interior_angles(shape.outline))


def test_measures_of_known_shapes() -> None:
    square = rectangle((0.5, 0.5), 0.2, 0.2, 0.0)
    assert square.kind == "square"
    assert square.area == pytest.approx(0.04)
    assert square.centroid == pytest.approx((0.5, 0.5))
    assert square.spans == pytest.approx((0.2, 0.2))
    circle = sh.ellipse((0.3, 0.6), 0.1, 0.1, 0.0)
    assert circle.kind == "circle"
    assert circle.area == pytest.approx(math.pi * 0.01, rel=0.01)
    line = sh.segment((0.1, 0.1), (0.4, 0.5))
    assert line.centroid == pytest.approx((0.25, 0.3))
    assert line.spans == pytest.approx((0.3, 0.4))


def test_equilateral_triangle_counts_as_a_triangle() -> None:
    eq = sh.regular("equilateral triangle", (0.3, 0.3), 0.15, 3, 0.0)
    tri = sh.polygon("triangle", [(0.6, 0.6), (0.85, 0.62), (0.7, 0.84)])
    assert matches("triangle", eq) and matches("equilateral triangle", eq)
    assert members("triangle", [eq, tri]) == [0, 1]
    assert inclusion_note("triangle", [eq, tri]) == " (equilateral triangles included)"
    assert unique_name(0, [eq, tri]) == "equilateral triangle"
    assert unique_name(1, [eq, tri]) is None  # "triangle" covers both, and their areas are too close
    big = sh.polygon("triangle", [(0.5, 0.5), (0.95, 0.5), (0.7, 0.95)])
    assert unique_name(1, [eq, big]) == "larger triangle"


def test_grammar() -> None:
    assert article("ellipse") == "an ellipse"
    assert article("equilateral triangle") == "an equilateral triangle"
    assert article("regular hexagon") == "a regular hexagon"
    assert plural("ellipse") == "ellipses" and plural("line") == "lines"


def test_relations_have_their_exact_geometry() -> None:
    rng = np.random.default_rng(3)
    eq = sh.regular("equilateral triangle", (0.5, 0.5), 0.2, 3, 0.3)
    inc = rel.incircle(eq, rng)
    assert inc is not None and inc.params["major_axis"] == pytest.approx(0.1)  # r = R/2
    assert tuple(inc.params["center"]) == pytest.approx((0.5, 0.5))
    right = sh.polygon("triangle", [(0.2, 0.2), (0.7, 0.2), (0.2, 0.6)])
    circ = rel.circumcircle(right, rng)
    assert circ is not None and tuple(circ.params["center"]) == pytest.approx((0.45, 0.4))  # hypotenuse midpoint
    circle = sh.ellipse((0.5, 0.5), 0.2, 0.2, 0.0)
    for _ in range(10):
        line = rel.tangent_line(circle, rng)
        if line is not None:
            p, q = np.asarray(line.outline)
            u, v = q - p, np.array([0.5, 0.5]) - p
            d = abs(u[0] * v[1] - u[1] * v[0]) / np.linalg.norm(u)
            assert d == pytest.approx(0.2, abs=1e-9)
    dia = rel.diameter(circle, rng)
    assert dia is not None and math.dist(*dia.outline) == pytest.approx(0.4)
    assert dia.centroid == pytest.approx((0.5, 0.5))
    square = sh.regular("square", (0.5, 0.5), 0.15, 4, 0.0)
    for _ in range(10):
        other = rel.shared_edge(square, rng)
        if other is not None:
            shared = {tuple(np.round(v, 9)) for v in other.vertices} & {tuple(np.round(v, 9)) for v in square.vertices}
            assert len(shared) == 2
            assert other.region.intersection(square.region).area == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), level=st.sampled_from(["easy", "hard"]))
def test_placement_keeps_pairs_apart_touching_or_crossing_cleanly(seed: int, level: str) -> None:
    fig = place_figure(level, np.random.default_rng(seed))
    lo, hi = LEVEL_SHAPES[level]
    assert lo <= len(fig.shapes) <= hi
    crossings = [0] * len(fig.shapes)
    for i in range(len(fig.shapes)):
        for j in range(i + 1, len(fig.shapes)):
            a, b = fig.shapes[i].geometry, fig.shapes[j].geometry
            contact = fig.contacts.get((i, j))
            if contact is None:
                assert a.distance(b) >= GAP - 1e-12  # never a near-touch
            elif contact == "cross":
                crossings[i] += 1
                crossings[j] += 1
                assert a.intersects(b)
    assert max(crossings) <= MAX_CROSSINGS
    assert all(s.array.min() >= MARGIN and s.array.max() <= 1 - MARGIN for s in fig.shapes)


def test_a_grazing_pair_is_rejected_and_a_clean_crossing_accepted() -> None:
    circle = sh.ellipse((0.5, 0.5), 0.2, 0.2, 0.0)
    grazing = sh.segment((0.2, 0.701), (0.8, 0.699))  # dips just inside the circle's top: a near-tangent
    crossing = sh.segment((0.2, 0.2), (0.8, 0.8))
    near = sh.segment((0.2, 0.71), (0.8, 0.71))  # 0.01 above the circle: closer than GAP
    assert contact(grazing, circle) is None
    assert contact(crossing, circle) == "cross"
    assert contact(near, circle) is None
    assert contact(sh.segment((0.1, 0.1), (0.3, 0.1)), circle) == "apart"
    assert MIN_CROSS_ANGLE > 0


def test_placement_is_deterministic() -> None:
    a = place_figure("hard", np.random.default_rng([5, 1, 9]))
    b = place_figure("hard", np.random.default_rng([5, 1, 9]))
    assert a.native() == b.native()
