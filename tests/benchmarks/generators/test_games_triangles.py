import io
from math import comb

import pytest
from mcot.benchmarks.generators.games import make_item
from mcot.benchmarks.generators.games._exact import on_segment, point
from mcot.benchmarks.generators.games.triangles import count_triangles
from PIL import Image

A, B, C = (300, 100), (100, 500), (500, 500)


def _segs(pairs: list) -> list:
    return [(point(*p), point(*q)) for p, q in pairs]


def _triangle_with(*extra: tuple) -> list:
    return _segs([(A, B), (B, C), (C, A), *extra])


def test_a_lone_triangle_is_one() -> None:
    assert len(count_triangles(_triangle_with())) == 1


def test_one_cevian_makes_three() -> None:
    assert len(count_triangles(_triangle_with((A, (250, 500))))) == 3


@pytest.mark.parametrize("k", [2, 3, 4])
def test_k_cevians_from_one_corner_make_k_plus_2_choose_2(k: int) -> None:
    cevians = [(A, (100 + 400 * (i + 1) // (k + 1), 500)) for i in range(k)]
    assert len(count_triangles(_triangle_with(*cevians))) == comb(k + 2, 2)


def test_a_cevian_and_a_parallel_to_the_base_make_six() -> None:
    # rays from A: AB, AD, AC (3), cut by two horizontals (BC and the midline): C(3, 2) * 2 = 6
    assert len(count_triangles(_triangle_with((A, (300, 500)), ((200, 300), (400, 300))))) == 6


def test_a_rectangle_with_both_diagonals_has_eight() -> None:
    p, q, r, s = (0, 0), (200, 0), (200, 100), (0, 100)
    assert len(count_triangles(_segs([(p, q), (q, r), (r, s), (s, p), (p, r), (q, s)]))) == 8


@pytest.fixture(scope="module")
def items() -> list:
    return [make_item("triangles", 8, i) for i in range(20)]


def test_every_listed_triangle_has_its_sides_on_drawn_segments(items: list) -> None:
    for game in items:
        meta = game.item.meta
        segs = _segs([tuple(map(tuple, s)) for s in meta["segments"]])
        assert game.item.answer == str(meta["count"]) == str(len(meta["triangles"]))
        assert len(count_triangles(segs)) == meta["count"]
        for tri in meta["triangles"]:
            assert len({tuple(v) for v in tri}) == 3
        image = Image.open(io.BytesIO(game.png))
        for (x0, y0), (x1, y1) in meta["segments"]:
            assert image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)) == (0, 0, 0)


def test_on_segment_is_exact() -> None:
    assert on_segment(point(150, 400), point(100, 500), point(300, 100))
    assert not on_segment(point(151, 400), point(100, 500), point(300, 100))
