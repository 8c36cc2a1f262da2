import io
import itertools

import pytest
from mcot.benchmarks.generators.games import make_item
from mcot.benchmarks.generators.games.maze import route, shortest_paths
from PIL import Image


def test_bfs_counts_the_moves_of_a_hand_solved_grid() -> None:
    grid = [
        "#####",
        "#S..#",
        "###.#",
        "#...#",
        "#A###",
    ]
    parents = shortest_paths(grid, (1, 1))
    path = route(parents, (4, 1))
    assert path == [(1, 1), (1, 2), (1, 3), (2, 3), (3, 3), (3, 2), (3, 1), (4, 1)]
    assert len(path) - 1 == 7


def test_a_walled_off_cell_is_not_reached() -> None:
    grid = ["S#A", "##."]
    assert (0, 2) not in shortest_paths(grid, (0, 0))


@pytest.fixture(scope="module")
def items() -> list:
    return [make_item("maze", 11, i) for i in range(30)]


def test_meta_path_is_a_shortest_route_on_the_grid(items: list) -> None:
    for game in items:
        meta = game.item.meta
        grid, path = meta["grid"], meta["path"]
        assert grid[path[0][0]][path[0][1]] == "S"
        assert grid[path[-1][0]][path[-1][1]] == meta["target"]
        for (r0, c0), (r1, c1) in itertools.pairwise(path):
            assert abs(r0 - r1) + abs(c0 - c1) == 1
            assert grid[r1][c1] != "#"
        start = tuple(meta["start"])
        goal = tuple(meta["exits"][meta["target"]]["cell"])
        assert len(route(shortest_paths(grid, start), goal)) == len(path) == meta["steps"] + 1
        if meta["kind"] == "steps":
            assert game.item.answer == str(meta["steps"]) and game.item.answer_type == "number"
        else:
            assert meta["reachable"] == [meta["target"]]
            letter = game.item.answer
            assert game.item.choices[ord(letter) - ord("A")].startswith(f"exit {meta['target']} ")


def test_pixels_follow_the_rendering_conventions(items: list) -> None:
    for game in items[:10]:
        meta = game.item.meta
        image = Image.open(io.BytesIO(game.png))
        assert image.mode == "RGB"
        x0, y0, cell = meta["origin"][0], meta["origin"][1], meta["cell"]
        colors = {label: tuple(e["color"]) for label, e in meta["exits"].items()}
        for r, row in enumerate(meta["grid"]):
            for c, ch in enumerate(row):
                pixel = image.getpixel((x0 + c * cell + cell // 2, y0 + r * cell + cell // 2))
                expected = {"#": (0, 0, 0), ".": (255, 255, 255), "S": (0, 170, 0)}.get(ch) or colors[ch]
                assert pixel == expected, (game.item.id, r, c)
