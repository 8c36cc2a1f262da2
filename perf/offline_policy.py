"""Solve generated game items with the offline policy in the tools arm; print the solve rate per task.

Generates N items per task (mcot.benchmarks.generators.games) into a temporary directory, solves each with
`mcot.agents.solve(item, root, load_model("offline"), "tools")` after registering the built-in strategies, and
compares the final answer (the \\boxed value) with the item's answer. Prints one line per task and, last,
``maze_rate=<x> ray_rate=<y> ... s_per_item=<z>``.

Run: python perf/offline_policy.py [--n 50] [--seed 11] [--tasks maze,ray,...]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
from pathlib import Path

from mcot.agents import load_model, solve
from mcot.agents.offline.builtin import register_builtin_strategies
from mcot.benchmarks.generators.games import generate

from mcot.core.item import Item, ItemsWriter, read_items

TASKS = ("maze", "ray", "dart", "bounce", "dots", "triangles")


def boxed(text: str) -> str | None:
    """Return the last \\boxed{...} value of a final answer, or None."""
    found = re.findall(r"\\boxed\{([^{}]*)\}", text)
    return found[-1].strip() if found else None


def write_games(out: Path, tasks: list[str], n: int, seed: int) -> Path:
    """Generate n items per task into `out`; return the items directory."""
    writer = ItemsWriter(out)
    for task in tasks:
        for game in generate(task, n, seed):
            writer.add_image(game.item.images[0], game.png)
            writer.add(game.item)
    writer.commit()
    return out


async def solve_all(items: list[Item], root: Path) -> list[tuple[Item, str, float]]:
    """Return (item, final text, seconds) for each item solved in the tools arm by the offline policy."""
    model = load_model("offline")
    out = []
    for item in items:
        started = time.perf_counter()
        prediction, _ = await solve(item, root, model, "tools")
        out.append((item, prediction.text, time.perf_counter() - started))
    return out


def main() -> None:
    """Run the measurement and print the per-task rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="items per task")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--show-misses", action="store_true", help="print the ids of wrong answers")
    args = parser.parse_args()
    tasks = [t for t in args.tasks.split(",") if t]
    register_builtin_strategies()
    with tempfile.TemporaryDirectory() as tmp:
        root = write_games(Path(tmp) / "games", tasks, args.n, args.seed)
        solved = asyncio.run(solve_all(read_items(root), root))
    rates: dict[str, float] = {}
    total_s = 0.0
    for task in tasks:
        rows = [(item, text, s) for item, text, s in solved if item.category == task]
        right = [item for item, text, _ in rows if boxed(text) == item.answer]
        secs = sum(s for _, _, s in rows)
        total_s += secs
        rates[task] = len(right) / len(rows) if rows else 0.0
        print(f"{task:10s} solved {len(right)}/{len(rows)} = {rates[task]:.2f}   {secs / max(1, len(rows)):.3f} s/item")
        if args.show_misses:
            for item, text, _ in rows:
                if boxed(text) != item.answer:
                    print(f"   miss {item.id}: answered {boxed(text)!r}, key {item.answer!r}: {text.splitlines()[0]}")
    pairs = " ".join(f"{t}_rate={rates[t]:.2f}" for t in tasks)
    print(f"{pairs} s_per_item={total_s / max(1, len(solved)):.3f}")


if __name__ == "__main__":
    main()
