"""Block mazes: which exit can the start reach, and how many steps the shortest route takes (BFS)."""

from __future__ import annotations

import random
from collections import deque

from mcot.benchmarks.generators.games._common import AnswerKind, FragileScene, Scene, place_choices, require
from mcot.benchmarks.generators.games._render import BLACK, LABEL_COLORS, START_GREEN, blank
from PIL import Image

Cell = tuple[int, int]
EXIT_COLORS = ("red", "blue", "orange", "purple")
MARGIN = 20
KINDS = ("reachable", "steps")


def shortest_paths(grid: list[str], start: Cell) -> dict[Cell, Cell | None]:
    """Return the BFS parent of every cell reachable from `start` (4-neighbour moves between non-wall cells)."""
    parents: dict[Cell, Cell | None] = {start: None}
    queue = deque([start])
    rows, cols = len(grid), len(grid[0])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#" and (nr, nc) not in parents:
                parents[(nr, nc)] = (r, c)
                queue.append((nr, nc))
    return parents


def route(parents: dict[Cell, Cell | None], goal: Cell) -> list[Cell]:
    """Return the cells from the BFS root to `goal` (inclusive) following `parents`."""
    path = [goal]
    while (step := parents[path[-1]]) is not None:
        path.append(step)
    return path[::-1]


def _carve(rng: random.Random, rows: int, cols: int) -> list[list[str]]:
    """Return a perfect maze: rooms at odd (row, col), walls between them opened by a randomised DFS."""
    cells = [["#"] * cols for _ in range(rows)]
    start = (2 * rng.randrange(rows // 2) + 1, 2 * rng.randrange(cols // 2) + 1)
    cells[start[0]][start[1]] = "."
    stack = [start]
    while stack:
        r, c = stack[-1]
        options = [
            (r + dr, c + dc)
            for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2))
            if 0 < r + dr < rows and 0 < c + dc < cols and cells[r + dr][c + dc] == "#"
        ]
        if not options:
            stack.pop()
            continue
        nr, nc = rng.choice(options)
        cells[(r + nr) // 2][(c + nc) // 2] = "."
        cells[nr][nc] = "."
        stack.append((nr, nc))
    return cells


def _border_doors(rows: int, cols: int) -> list[Cell]:
    """Return the border cells next to a room, where an exit may open."""
    doors = [(0, c) for c in range(1, cols, 2)] + [(rows - 1, c) for c in range(1, cols, 2)]
    doors += [(r, 0) for r in range(1, rows, 2)] + [(r, cols - 1) for r in range(1, rows, 2)]
    return doors


def build(rng: random.Random) -> Scene:
    """Return one maze item: a 'reachable' choice question or a 'steps' number question."""
    kind = rng.choice(KINDS)
    rows, cols = 2 * rng.randint(4, 8) + 1, 2 * rng.randint(4, 9) + 1
    cells = _carve(rng, rows, cols)
    if kind == "steps":  # open extra walls so that routes have loops and the shortest one matters
        for _ in range(rng.randint(2, rows * cols // 25)):
            r, c = rng.randrange(1, rows - 1), rng.randrange(1, cols - 1)
            if (r + c) % 2 == 1:
                cells[r][c] = "."
    n_exits = 4 if kind == "reachable" else rng.randint(2, 4)
    doors = _border_doors(rows, cols)
    exits: list[Cell] = []
    for door in rng.sample(doors, len(doors)):
        if all(abs(door[0] - e[0]) + abs(door[1] - e[1]) >= 6 for e in exits):
            exits.append(door)
        if len(exits) == n_exits:
            break
    require(len(exits) == n_exits, "not enough well-separated exits")
    floor = [(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1) if cells[r][c] == "."]
    start = rng.choice(floor)
    labels = [chr(ord("A") + i) for i in range(n_exits)]
    color_names = rng.sample(EXIT_COLORS, n_exits)
    for (r, c), label in zip(exits, labels, strict=True):
        cells[r][c] = label
    cells[start[0]][start[1]] = "S"

    target = rng.randrange(n_exits)
    if kind == "reachable":
        _block_other_exits(rng, cells, start, exits, target)
    grid = ["".join(row) for row in cells]
    parents = shortest_paths(grid, start)
    reachable = [label for cell, label in zip(exits, labels, strict=True) if cell in parents]
    require(exits[target] in parents, "target exit unreachable")
    path = route(parents, exits[target])
    steps = len(path) - 1
    require(steps >= 4, "route too short to be interesting")

    cell_px = max(12, min(36, (640 - 2 * MARGIN) // max(rows, cols)))
    image = _render(grid, cell_px, exits, [LABEL_COLORS[name] for name in color_names])
    listing = ", ".join(f"{label} ({name})" for label, name in zip(labels, color_names, strict=True))
    intro = (
        "The picture is a maze seen from above, drawn as a grid of square cells: black cells are walls, white "
        "cells are open floor. You start on the green cell and may move one cell at a time to an open cell that "
        "shares a side with the current one (no diagonal moves, no passing through walls). The coloured cells on "
        f"the outer edge are exits: {listing}. "
    )
    if kind == "reachable":
        require(reachable == [labels[target]], "more than one exit reachable")
        choices, answer = place_choices(
            rng,
            f"exit {labels[target]} ({color_names[target]})",
            [
                f"exit {label} ({name})"
                for i, (label, name) in enumerate(zip(labels, color_names, strict=True))
                if i != target
            ],
        )
        question = intro + "Exactly one exit can be reached from the start. Which one?"
        answer_type: AnswerKind = "choice"
    else:
        choices, answer = None, str(steps)
        question = intro + (
            f"What is the smallest number of moves needed to go from the start to exit {labels[target]} "
            f"({color_names[target]})? Each move goes to a neighbouring cell; the last move steps onto the exit cell."
        )
        answer_type = "number"
    meta = {
        "kind": kind,
        "grid": grid,
        "cell": cell_px,
        "origin": [MARGIN, MARGIN],
        "start": list(start),
        "exits": {
            label: {"cell": list(cell), "color": list(LABEL_COLORS[name]), "color_name": name}
            for label, cell, name in zip(labels, exits, color_names, strict=True)
        },
        "target": labels[target],
        "reachable": reachable,
        "path": [list(cell) for cell in path],
        "steps": steps,
    }
    return Scene(image=image, question=question, answer=answer, answer_type=answer_type, choices=choices, meta=meta)


def _block_other_exits(rng: random.Random, cells: list[list[str]], start: Cell, exits: list[Cell], target: int) -> None:
    """Wall off one cell on each other exit's route that the target's route does not use (the maze is a tree)."""
    grid = ["".join(row) for row in cells]
    parents = shortest_paths(grid, start)
    keep = set(route(parents, exits[target]))
    for i, door in enumerate(exits):
        if i == target or door not in parents:
            continue
        candidates = [cell for cell in route(parents, door)[:-1] if cell not in keep and cell != start]
        if not candidates:
            raise FragileScene("an exit shares the whole route of the target")
        r, c = rng.choice(candidates[len(candidates) // 3 :] or candidates)
        cells[r][c] = "#"
        grid = ["".join(row) for row in cells]
        parents = shortest_paths(grid, start)


def _render(grid: list[str], cell: int, exits: list[Cell], colors: list[tuple[int, int, int]]) -> Image.Image:
    """Return the maze image: black walls, white floor, green start, each exit filled with its colour."""
    rows, cols = len(grid), len(grid[0])
    image, draw = blank(cols * cell + 2 * MARGIN, rows * cell + 2 * MARGIN)
    exit_color = dict(zip(exits, colors, strict=True))
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            fill = BLACK if ch == "#" else START_GREEN if ch == "S" else exit_color.get((r, c))
            if fill is not None:
                x0, y0 = MARGIN + c * cell, MARGIN + r * cell
                draw.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=fill)
    return image
