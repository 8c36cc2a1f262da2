import io
import math

import pytest
from mcot.benchmarks.generators.games import make_item
from mcot.benchmarks.generators.games._exact import point
from mcot.benchmarks.generators.games.dots import corners, crossings, describe, is_convex
from PIL import Image


def _pts(raw: list[tuple[int, int]]) -> list:
    return [point(*p) for p in raw]


def test_a_square_with_a_dot_halfway_along_a_side_has_four_sides() -> None:
    square = _pts([(0, 0), (50, 0), (100, 0), (100, 100), (0, 100)])
    assert corners(square) == [0, 2, 3, 4]
    assert is_convex(square) and crossings(square) == []


def test_a_bow_tie_crosses_once_at_its_centre() -> None:
    bow = _pts([(0, 0), (100, 100), (100, 0), (0, 100)])
    assert crossings(bow) == [point(50, 50)]
    assert not is_convex(bow)


def test_a_pentagram_crosses_itself_five_times() -> None:
    star = [
        (
            round(300 + 200 * math.cos(math.radians(90 + 144 * k))),
            round(300 - 200 * math.sin(math.radians(90 + 144 * k))),
        )
        for k in range(5)
    ]
    assert len(crossings(_pts(star))) == 5


def test_an_arrowhead_is_a_concave_quadrilateral() -> None:
    arrow = _pts([(0, 0), (100, 50), (0, 100), (30, 50)])
    assert not is_convex(arrow) and crossings(arrow) == []
    assert describe(len(corners(arrow)), False, 0) == "a concave quadrilateral"
    assert describe(6, True, 0) == "a convex hexagon"
    assert describe(5, False, 2) == "a self-crossing figure with 2 crossings"


@pytest.fixture(scope="module")
def items() -> list:
    return [make_item("dots", 6, i) for i in range(30)]


def test_dots_answers_agree_with_the_meta(items: list) -> None:
    for game in items:
        meta = game.item.meta
        pts = _pts([tuple(p) for p in meta["points"]])
        assert meta["polyline"] == [*meta["points"], meta["points"][0]]
        assert meta["sides"] == len(corners(pts)) and len(meta["crossings"]) == len(crossings(pts))
        kind = meta["kind"]
        if kind == "sides":
            assert game.item.answer == str(meta["sides"])
        elif kind == "crossings":
            assert game.item.answer == str(len(meta["crossings"])) != "0"
        else:
            chosen = game.item.choices[ord(game.item.answer) - ord("A")]
            assert chosen == describe(meta["sides"], meta["convex"], len(meta["crossings"]))


def test_dots_are_black_discs_at_their_points(items: list) -> None:
    for game in items[:10]:
        image = Image.open(io.BytesIO(game.png))
        assert image.mode == "RGB"
        for x, y in game.item.meta["points"]:
            assert image.getpixel((x, y)) == (0, 0, 0)
