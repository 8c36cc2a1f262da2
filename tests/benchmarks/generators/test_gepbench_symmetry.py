"""The symmetry relation of the GePBench engine: exact mirror geometry, placement, distractors and questions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.benchmarks.generators.gepbench import relations as rel
from mcot.benchmarks.generators.gepbench import shapes as sh
from mcot.benchmarks.generators.gepbench.placement import Figure, place_figure
from mcot.benchmarks.generators.gepbench.questions import LetterBalancer, make_questions, surely_false

from mcot.core.geometry import reflect_points

TRIANGLE = sh.polygon("triangle", [(0.2, 0.2), (0.45, 0.25), (0.3, 0.5)])


def _signed_area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * float(x @ np.roll(y, -1) - y @ np.roll(x, -1))


def _check_mirror(base: sh.Shape, image: sh.Shape) -> None:
    point, direction = (np.asarray(v) for v in image.params["mirror_axis"])
    assert np.linalg.norm(direction) == pytest.approx(1.0)
    pts, mirrored = np.asarray(base.vertices), np.asarray(image.vertices)[::-1]  # listed in reverse order
    for p, q in zip(pts, mirrored, strict=True):
        mid = (p + q) / 2
        # the axis is the perpendicular bisector of every vertex and its image
        assert abs(float((mid - point) @ np.array([-direction[1], direction[0]]))) < 1e-9
        assert abs(float((q - p) @ direction)) < 1e-9
    assert np.allclose(reflect_points(np.asarray(image.vertices), point, direction)[::-1], pts, atol=1e-12)
    assert image.kind == base.kind
    assert image.area == pytest.approx(base.area)
    assert sh.edge_lengths(image.vertices)[::-1] == pytest.approx(np.roll(sh.edge_lengths(base.vertices), 1))


def test_reflect_across_known_lines() -> None:
    pts = np.array([[0.2, 0.3], [0.6, 0.1]])
    vertical = reflect_points(pts, np.array([0.5, 0.0]), np.array([0.0, 1.0]))  # the line x = 0.5
    assert vertical == pytest.approx(np.array([[0.8, 0.3], [0.4, 0.1]]))
    s = math.sqrt(0.5)
    diagonal = reflect_points(pts, np.array([0.0, 0.0]), np.array([s, s]))  # y = x swaps the coordinates
    assert diagonal == pytest.approx(pts[:, ::-1])


def test_mirror_image_is_the_exact_reflection() -> None:
    rng = np.random.default_rng(4)
    made = []
    for _ in range(40):
        image = rel.mirror_image(TRIANGLE, rng)
        if image is not None:
            _check_mirror(TRIANGLE, image)
            made.append(image)
    assert len(made) >= 10
    for image in made:
        # a mirror image reverses the turning sense: its vertices in corresponding order wind the other way
        corresponding = np.asarray(image.vertices)[::-1]
        assert math.copysign(1, _signed_area(corresponding)) == -math.copysign(1, _signed_area(TRIANGLE.array))


def test_symmetric_builds_only_from_irregular_polygons() -> None:
    for kind in ("triangle", "quadrilateral", "pentagon", "hexagon"):
        assert ("symmetric", rel.mirror_image) in rel.builders_for(kind)
    for kind in ("equilateral triangle", "square", "regular hexagon", "circle", "ellipse", "line", "pentagram"):
        assert all(word != "symmetric" for word, _ in rel.builders_for(kind))
    assert rel.INVERSE["symmetric"] == "symmetric" and "similar" in rel.IMPLIED["symmetric"]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 100_000), level=st.sampled_from(["easy", "hard"]))
def test_placed_symmetric_pairs_keep_their_geometry(seed: int, level: str) -> None:
    fig = place_figure(level, np.random.default_rng(seed))
    for i, j, word in fig.relations:
        if word == "symmetric":
            _check_mirror(fig.shapes[j], fig.shapes[i])
            assert fig.contacts.get((j, i)) in (None, "cross")  # apart or a clean crossing, never touching


def test_symmetric_is_a_distractor_only_when_clearly_false() -> None:
    image = rel.mirror_image(TRIANGLE, np.random.default_rng(1))
    assert image is not None
    bigger = sh.polygon("triangle", [(0.6, 0.6), (0.9, 0.65), (0.72, 0.95)])  # area ratio well above 1.2
    circle = sh.ellipse((0.8, 0.2), 0.1, 0.1, 0.0)
    fig = Figure("easy", [TRIANGLE, image, bigger, circle])
    assert not surely_false("symmetric", 0, 1, fig)
    assert surely_false("symmetric", 0, 2, fig)
    assert surely_false("symmetric", 0, 3, fig)
    assert not surely_false("similar", 0, 1, fig)


def _mirrored_figure() -> Figure:
    rng = np.random.default_rng(2)
    while True:
        image = rel.mirror_image(TRIANGLE, rng)
        if image is not None and image.geometry.distance(TRIANGLE.geometry) > 0.05:
            break
    circle = sh.ellipse((0.85, 0.85), 0.08, 0.08, 0.0)
    return Figure("easy", [TRIANGLE, image, circle], [(1, 0, "symmetric")])


def test_a_mirrored_pair_is_asked_about_as_the_two_triangles() -> None:
    fig = _mirrored_figure()
    asked = 0
    for k in range(12):
        for q in make_questions(fig, np.random.default_rng(k), LetterBalancer(), "mcot"):
            if q.aspect != "relationship":
                continue
            assert q.text == "What is the relationship between the two triangles in the image?"
            assert q.choices[q.answer] == "symmetric" and q.choices[3] == "none of the above"
            assert "similar" not in q.choices and q.answer < 3
            asked += 1
    assert asked >= 6
    for k in range(4):  # the public engine never asks about symmetry: nor does the public style
        public = make_questions(fig, np.random.default_rng(k), LetterBalancer(), "public")
        assert not any("symmetric" in q.choices or "two triangles" in q.text for q in public)
