"""mcot.core.geometry: rotation, reflection, scaling and composition against known values, in screen coordinates."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcot.core import geometry as g

_coord = st.floats(-1000, 1000)
_point = st.tuples(_coord, _coord)


def test_rotation_is_counter_clockwise_on_screen_and_exact_at_right_angles() -> None:
    assert g.rotate_point((60, 50), 90, (50, 50)) == (50.0, 40.0)  # y points down: a left turn goes up
    assert g.rotate_point((60, 50), -90, (50, 50)) == (50.0, 60.0)
    assert g.rotate_point((1, 0), 180) == (-1.0, 0.0)
    assert g.rotate_vector((1, 0), 90) == (0.0, -1.0)
    x, y = g.rotate_point((1, 0), 60)
    assert (x, y) == pytest.approx((0.5, -math.sqrt(3) / 2))
    assert g.turn(90) == (0.0, 1.0)


def test_reflections_of_points_and_of_directions_are_different_operations() -> None:
    assert g.reflect_point((2, 0), (0, 0), (0, 1)) == pytest.approx((-2.0, 0.0))  # mirror in the line x = 0
    assert g.reflect_point((3, 1), (0, 0), (5, 5)) == pytest.approx((1.0, 3.0))  # y = x swaps the coordinates
    assert g.reflect_vector((1, 1), (0, 1)) == (1.0, -1.0)  # bounce off a floor
    with pytest.raises(ValueError, match="distinct"):
        g.reflection((1, 1), (1, 1))


def test_scaling_about_a_centre_and_composition() -> None:
    assert g.scaling(2, (10, 10)).apply((12, 10)) == (14.0, 10.0)
    half = g.scaling(0.5)
    assert half.scale_factor == 0.5
    moved_then_turned = g.translation(10, 0).then(g.rotation(90))
    assert moved_then_turned.apply((0, 0)) == pytest.approx((0.0, -10.0))
    assert g.IDENTITY.then(g.rotation(30, (4, 5))) == g.rotation(30, (4, 5))
    assert g.rotation(90, (3, 4)).as_tuple() == (0.0, -1.0, 1.0, 0.0, -1.0, 7.0)


@given(_point, _point, _point, st.floats(-720, 720))
def test_reflection_is_an_involution_and_rotation_keeps_distances(p, a, b, angle) -> None:
    if math.dist(a, b) < 1e-3:
        return
    twice = g.reflect_point(g.reflect_point(p, a, b), a, b)
    assert twice == pytest.approx(p, abs=1e-6)
    assert math.dist(g.rotate_point(p, angle, a), a) == pytest.approx(math.dist(p, a), abs=1e-6)
    assert g.reflection(a, b).scale_factor == pytest.approx(1.0)


def test_the_array_form_reflects_like_the_scalar_form() -> None:
    points = np.array([[0.2, 0.3], [0.6, 0.1], [0.9, 0.8]])
    direction = np.array([math.cos(0.7), math.sin(0.7)])
    point = np.array([0.4, 0.5])
    rows = g.reflect_points(points, point, direction)
    far = point + direction
    for row, p in zip(rows, points, strict=True):
        assert tuple(row) == pytest.approx(g.reflect_point(tuple(p), tuple(point), tuple(far)), abs=1e-12)
