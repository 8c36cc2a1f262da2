"""`mcot gen games`: write RBench-V-style game and optics items with exact solution geometry."""

from __future__ import annotations

from pathlib import Path

from benchmarks.generators.games import TASKS, GameError, generate
from benchmarks.item import ItemError, ItemsWriter
from mcot.errors import UsageError

MAX_ITEMS_PER_TASK = 100_000


def gen_games(out: Path, task: str, n: int, seed: int) -> int:
    """Generate `n` items per task (`task` one of the game tasks or 'all') into `out`; return 0 on success."""
    tasks = list(TASKS) if task == "all" else [task]
    if task != "all" and task not in TASKS:
        raise UsageError(f"unknown --task {task!r}; choose one of {', '.join(TASKS)} or all")
    if not 1 <= n <= MAX_ITEMS_PER_TASK:
        raise UsageError(f"--n must be between 1 and {MAX_ITEMS_PER_TASK} items per task, got {n}")
    try:
        writer = ItemsWriter(Path(out))
    except (ItemError, OSError) as exc:
        raise UsageError(f"cannot write --out {out}: {exc}") from exc
    try:
        for name in tasks:
            for game in generate(name, n, seed):
                writer.add_image(game.item.images[0], game.png)
                writer.add(game.item)
        writer.commit()
    except GameError as exc:
        writer.abort()
        raise UsageError(str(exc)) from exc
    except BaseException:
        writer.abort()
        raise
    print(f"wrote {writer.count} items ({', '.join(tasks)}; {n} per task, seed {seed}) to {out}")
    return 0
