"""Items per second of each game generator, end to end (scene, answer key, checks, PNG), on one core.

Rates use this process's CPU time, so that other load on a shared machine does not count.

Usage: python perf/gen_games.py [--n 40] [--repeats 3]
Prints a table of medians and, last, one line of key=value pairs: <task>_items_s=... and write_items_s=... (the
whole `mcot gen games --task all` path, files included).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path

from mcot.benchmarks.generators.games import TASKS, make_item

from mcot.commands.gen_games import gen_games


def items_per_second(task: str, n: int, seed: int) -> float:
    """Return how many items of `task` one core makes per second (scene to PNG bytes)."""
    start = time.process_time()
    for index in range(n):
        make_item(task, seed, index)
    return n / (time.process_time() - start)


def write_rate(n: int, seed: int) -> float:
    """Return items per second of the whole command, writing an items directory for every task."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            gen_games(Path(tmp) / "items", "all", n, seed)
        return n * len(TASKS) / (time.process_time() - start)


def main() -> None:
    """Measure every task and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="items per task per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, float] = {}
    for task in TASKS:
        rates = [items_per_second(task, args.n, seed) for seed in range(args.repeats)]
        figures[f"{task}_items_s"] = statistics.median(rates)
        print(f"{task:10s} {figures[f'{task}_items_s']:8.1f} items/s  (runs: {', '.join(f'{r:.1f}' for r in rates)})")
    figures["write_items_s"] = statistics.median(write_rate(args.n // 2 or 1, seed) for seed in range(args.repeats))
    print(f"{'all+write':10s} {figures['write_items_s']:8.1f} items/s")
    print(" ".join(f"{key}={value:.1f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
