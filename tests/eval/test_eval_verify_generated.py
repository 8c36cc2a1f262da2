"""Trace verifiers against the solution geometry of real generated game items: the true drawing is valid,
a corrupted one is not."""

from __future__ import annotations

import math
from typing import Any

import pytest
from mcot.eval.verify import verify_trace

from mcot.core.item import Item

games = pytest.importorskip("mcot.benchmarks.generators.games")

TASKS = ("maze", "ray", "bounce", "dart", "dots")


def _true_drawing(item: Item) -> list[list[float]]:
    meta = item.meta
    if item.category == "maze":
        cell, (x0, y0) = meta["cell"], meta["origin"]
        return [[x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell] for r, c in meta["path"]]
    if item.category == "dots":
        return [*meta["points"], meta["points"][0]]
    return [list(p) for p in meta["path"]]


def _corrupt(item: Item, points: list[list[float]]) -> list[list[float]]:
    if item.category == "maze":
        return points[:-2]  # stops short of the exit
    if item.category == "dots":
        swapped = list(points)
        swapped[1], swapped[2] = swapped[2], swapped[1]
        return swapped
    if item.category == "dart":
        middle = len(points) // 2
        return [*points[:middle], [points[middle][0], points[middle][1] - 40], *points[middle + 1 :]]
    # ray / bounce: the second segment leaves the first turn 12 degrees off
    (x1, y1), (x2, y2) = points[1], points[2]
    angle = math.radians(12)
    dx, dy = x2 - x1, y2 - y1
    turned = [x1 + dx * math.cos(angle) - dy * math.sin(angle), y1 + dx * math.sin(angle) + dy * math.cos(angle)]
    return [points[0], points[1], turned]


def _steps(points: list[list[float]]) -> list[dict[str, Any]]:
    return [{"kind": "tool", "ops": [{"op": "trace_path", "args": {"points": points}, "id": "e1"}]}]


@pytest.mark.parametrize("task", TASKS)
def test_generated_items_true_and_corrupted_drawings(task: str) -> None:
    for generated in games.generate(task, 8, 5):
        item = generated.item
        truth = _true_drawing(item)
        verdict = verify_trace(item, _steps(truth))
        assert verdict is not None and verdict.verdict == "valid", (item.id, verdict)
        if task in ("ray", "bounce") and len(truth) < 3:
            continue
        corrupted = verify_trace(item, _steps(_corrupt(item, truth)))
        assert corrupted is not None and corrupted.verdict == "invalid", (item.id, corrupted)
