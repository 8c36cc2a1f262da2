"""Graph tools: maze routes against an independent BFS, graph queries, triangle counts of figures counted by hand."""

from __future__ import annotations

import itertools
import random
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.canvas import Canvas
from mcot.tools import call

MAZE = [
    "#########",
    "#S..#...#",
    "#.#.#.#.#",
    "#.#...#.#",
    "#.#####.#",
    "#...#..E#",
    "###.#.###",
    "#.....#A#",
    "#########",
]


def bfs(grid: list[str], start: tuple[int, int], goal_chars: str) -> int | None:
    """An independent reference: plain BFS distance from start to the nearest goal character."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        if grid[r][c] in goal_chars:
            return seen[(r, c)]
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < len(grid) and 0 <= nc < len(grid[0]) and grid[nr][nc] != "#" and (nr, nc) not in seen:
                seen[(nr, nc)] = seen[(r, c)] + 1
                queue.append((nr, nc))
    return None


def test_known_maze_path() -> None:
    res = call("solve_maze", {"grid": MAZE}, Canvas(size=(200, 200)))
    assert res.ok, res.text
    assert res.data["length"] == 14 == bfs(MAZE, (1, 1), "E")  # counted by hand: both routes take 14
    path = res.data["path"]
    assert path[0] == [1, 1] and MAZE[path[-1][0]][path[-1][1]] == "E"
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in itertools.pairwise(path))
    assert res.data["distances"] == {"A": None, "E": 14}


def test_maze_pixels_and_drawing() -> None:
    c = Canvas(size=(200, 200))
    res = call("solve_maze", {"grid": ["S.E"], "cell": 20, "origin": [10, 10], "draw": True}, c)
    assert res.data["pixels"] == [[20, 20], [40, 20], [60, 20]]
    assert res.drawn == ["e1"] and c.log[0]["op"] == "trace_path"


def test_maze_errors_say_what_to_fix() -> None:
    c = Canvas(size=(50, 50))
    assert "no start cell 'S'" in call("solve_maze", {"grid": ["..E"]}, c).text
    assert "no path" in call("solve_maze", {"grid": ["S#E"]}, c).text
    assert "same length" in call("solve_maze", {"grid": ["S.", "E"]}, c).text
    assert "needs cell and origin" in call("solve_maze", {"grid": ["SE"], "draw": True}, c).text
    assert c.log == []


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_random_mazes_match_bfs(seed: int) -> None:
    rng = random.Random(seed)
    rows, cols = rng.randint(2, 12), rng.randint(2, 12)
    cells = [["#" if rng.random() < 0.3 else "." for _ in range(cols)] for _ in range(rows)]
    free = [(r, c) for r in range(rows) for c in range(cols)]
    s, e = rng.sample(free, 2)
    cells[s[0]][s[1]], cells[e[0]][e[1]] = "S", "E"
    grid = ["".join(r) for r in cells]
    expected = bfs(grid, s, "E")
    res = call("solve_maze", {"grid": grid}, Canvas(size=(50, 50)))
    if expected is None:
        assert not res.ok and "no path" in res.text
    else:
        assert res.ok and res.data["length"] == expected


def test_graph_queries() -> None:
    edges = [["A", "B"], ["B", "C"], ["C", "A"], ["C", "D"], ["E", "F"]]
    c = Canvas(size=(10, 10))
    q = lambda query, **kw: call("query_graph", {"edges": edges, "query": query, **kw}, c)  # noqa: E731
    assert q("connected").data["connected"] is False
    assert q("components").data == {"count": 2, "components": [["A", "B", "C", "D"], ["E", "F"]]}
    assert q("leaves").data["leaves"] == ["D", "E", "F"]
    cycles = q("cycles").data
    assert cycles["has_cycle"] and cycles["independent_cycles"] == 1 and sorted(cycles["cycles"][0]) == ["A", "B", "C"]
    assert q("shortest_path", source="A", target="D").data == {"path": ["A", "C", "D"], "length": 2}
    assert "no path" in q("shortest_path", source="A", target="E").text
    numeric = call("query_graph", {"edges": [[1, 2], [2, 3]], "query": "degrees"}, c)
    assert numeric.data["degrees"] == {"1": 1, "2": 2, "3": 1}


def S(a: list[float], b: list[float]) -> list[list[float]]:
    return [a, b]


TRIANGLE = [S([0, 100], [100, 100]), S([100, 100], [50, 0]), S([50, 0], [0, 100])]


@pytest.mark.parametrize(
    ("extra", "count"),
    [
        ([], 1),
        ([S([50, 0], [50, 100])], 3),  # one cevian
        ([S([50, 0], [30, 100]), S([50, 0], [70, 100])], 6),  # two cevians from the apex: 3 + 2 + 1
        ([S([25, 50], [75, 50]), S([25, 50], [50, 100]), S([75, 50], [50, 100])], 5),  # medial triangle: 4 small + 1
        ([S([25, 50], [75, 50])], 2),  # one line parallel to the base
    ],
)
def test_triangle_counts_by_hand(extra: list, count: int) -> None:
    res = call("count_triangles", {"segments": TRIANGLE + extra}, Canvas(size=(10, 10)))
    assert res.ok and res.data["count"] == count


def test_square_with_diagonals_and_star_of_david() -> None:
    square = [
        S([0, 0], [10, 0]),
        S([10, 0], [10, 10]),
        S([10, 10], [0, 10]),
        S([0, 10], [0, 0]),
        S([0, 0], [10, 10]),
        S([10, 0], [0, 10]),
    ]
    assert call("count_triangles", {"segments": square}, Canvas(size=(10, 10))).data["count"] == 8
    up = [[0.0, 100.0], [100.0, 100.0], [50.0, 13.4]]
    down = [[0.0, 42.27], [100.0, 42.27], [50.0, 128.87]]
    star = [S(t[i], t[(i + 1) % 3]) for t in (up, down) for i in range(3)]
    assert call("count_triangles", {"segments": star}, Canvas(size=(10, 10))).data["count"] == 8


def test_split_sides_still_make_one_triangle() -> None:
    pieces = [S([0, 100], [40, 100]), S([40, 100], [100, 100]), S([100, 100], [50, 0]), S([50, 0], [0, 100])]
    assert call("count_triangles", {"segments": pieces}, Canvas(size=(10, 10))).data["count"] == 1
