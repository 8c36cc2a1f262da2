"""`mcot gen games`: write RBench-V-style game and optics items with exact solution geometry."""

from __future__ import annotations

from pathlib import Path

from mcot.benchmarks.generators.games import TASKS, GameError, blocks, make_block
from mcot.command_options import GamesOptions
from mcot.core.errors import UsageError
from mcot.core.item import ItemError, ItemsWriter
from mcot.core.options import validated
from mcot.executors.blocks import block_mapper, check_workers


@validated(GamesOptions)
def gen_games(
    out: Path,
    task: str,
    n: int,
    seed: int,
    workers: int | None = None,
    executor: str = "local",
    ray_address: str | None = None,
) -> int:
    """Generate `n` items per task (`task` one of the game tasks or 'all') into `out`; return 0 on success.

    `workers` worker processes (executor "local") or Ray tasks at a time (executor "ray") make the items in
    blocks; every item depends on (task, seed, index) alone, so the bytes are the same for any count."""
    tasks = list(TASKS) if task == "all" else [task]
    if task != "all" and task not in TASKS:
        raise UsageError(f"unknown --task {task!r}; choose one of {', '.join(TASKS)} or all")
    check_workers(workers, executor, ray_address)
    try:
        writer = ItemsWriter(Path(out), command="mcot gen games")
    except ItemError as exc:  # an OSError (a full disk, a read-only folder) is said by the CLI, exit 1 or 2
        raise UsageError(f"cannot write --out {out}: {exc}") from exc
    try:
        with block_mapper(workers, executor, ray_address) as mapper:
            for block in mapper(make_block, [(name, seed, start, stop) for name, start, stop in blocks(tasks, n)]):
                for game in block:
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
