"""RBench-V-style game and optics items with exact ground truth: maze, bounce, dart, ray, dots, triangles.

`generate(task, n, seed)` yields finished items (the mcot `Item` plus its PNG bytes); each task module has a
`build(rng) -> Scene` that draws one scene, computes its answer in closed form and raises `FragileScene` when the
answer would hinge on a pixel, in which case the scene is sampled again. Nothing here imports tools/.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from mcot.benchmarks.generators.games import bounce, dart, dots, maze, ray, triangles
from mcot.benchmarks.generators.games._common import FragileScene, GameError, Scene
from mcot.benchmarks.generators.games._render import png_bytes

from mcot.core.item import Item

TASKS: dict[str, Callable[[random.Random], Scene]] = {
    "maze": maze.build,
    "bounce": bounce.build,
    "dart": dart.build,
    "ray": ray.build,
    "dots": dots.build,
    "triangles": triangles.build,
}
MAX_ATTEMPTS = 500
BLOCK = 32
"""Items a worker makes in one go (`make_block`)."""


@dataclass(frozen=True)
class GameItem:
    """A generated item and the PNG bytes of its one image (at `item.images[0]`)."""

    item: Item
    png: bytes


def scene_rng(task: str, seed: int, index: int, attempt: int) -> random.Random:
    """Return the random source of one attempt at one item: independent of every other item."""
    return random.Random(f"mcot-games:{task}:{seed}:{index}:{attempt}")


def build_scene(task: str, seed: int, index: int) -> tuple[Scene, int]:
    """Return scene number `index` of `task` for `seed` and the attempt that produced it (past fragile ones)."""
    if task not in TASKS:
        raise GameError(f"unknown game task {task!r}; choose one of {', '.join(TASKS)}")
    for attempt in range(MAX_ATTEMPTS):
        try:
            return TASKS[task](scene_rng(task, seed, index, attempt)), attempt
        except FragileScene:
            continue
    raise GameError(f"{task}: no robust scene after {MAX_ATTEMPTS} attempts (seed {seed}, item {index})")


def make_item(task: str, seed: int, index: int) -> GameItem:
    """Return item number `index` of `task` for `seed`: the mcot item and its PNG."""
    scene, attempt = build_scene(task, seed, index)
    item_id = f"{task}-{seed}-{index:05d}"
    width, height = scene.image.size
    item = Item(
        id=item_id,
        benchmark="games",
        category=task,
        question=scene.question,
        images=[f"images/{task}/{item_id}.png"],
        choices=scene.choices,
        answer=scene.answer,
        answer_type=scene.answer_type,
        meta={"task": task, "seed": seed, "index": index, "attempt": attempt, "size": [width, height], **scene.meta},
    )
    return GameItem(item=item, png=png_bytes(scene.image))


def generate(task: str, n: int, seed: int) -> Iterator[GameItem]:
    """Yield `n` items of one task, deterministically for `seed`."""
    for index in range(n):
        yield make_item(task, seed, index)


def make_block(task: str, seed: int, start: int, stop: int) -> list[GameItem]:
    """Return items `start` to `stop - 1` of `task` for `seed` (each depends on its index alone, so workers can
    make blocks of a run in any order and the bytes stay the same)."""
    return [make_item(task, seed, index) for index in range(start, stop)]


def blocks(tasks: list[str], n: int, size: int = BLOCK) -> list[tuple[str, int, int]]:
    """Return the (task, first index, end index) blocks of `n` items per task, in writing order."""
    return [(task, start, min(start + size, n)) for task in tasks for start in range(0, n, size)]


__all__ = [
    "BLOCK",
    "TASKS",
    "FragileScene",
    "GameError",
    "GameItem",
    "Scene",
    "blocks",
    "build_scene",
    "generate",
    "make_block",
    "make_item",
    "scene_rng",
]
