"""Figures per second of the GePBench engine, end to end, on one core: descriptions, rendering, questions, the
pixel validator and the files (items.jsonl and the JPEG figures, as `mcot gen gepbench` writes them without
--native), for easy and hard separately.

The public engine (matplotlib, rejection sampling) makes about 9 easy and 0.25 hard figures/s on this machine
class (../shared/PERFORMANCE.md); it is not installed here, so those figures are quoted, not re-measured.
Each level runs `--repeats` times in fresh items directories after a short warm-up (imports, noise tables); the
median wall-clock and CPU-time rates are printed, since shared machines are noisy, and the best run's CPU rate
(the least disturbed one: on a busy 2-core machine even CPU time per figure varies by 40 % with the neighbours'
load). The last line is ``easy_fig_s=<wall> hard_fig_s=<wall> peak_mb=<max RSS> easy_cpu_fig_s=<cpu>
hard_cpu_fig_s=<cpu> easy_best_cpu_fig_s=<cpu> hard_best_cpu_fig_s=<cpu>``.

Run: python perf/gen_gepbench.py [--easy 200] [--hard 80] [--repeats 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.generators.gepbench.engine import write
from benchmarks.item import ItemsWriter

PUBLIC_ENGINE = {"easy": 9.0, "hard": 0.25}  # figures/s, measured side by side on this machine class


def rate(level: str, n: int, seed: int, root: Path, repeats: int) -> tuple[float, float, float, int]:
    """Return median (wall figures/s, CPU figures/s) and the best CPU figures/s over `repeats` runs of n figures,
    and the questions per run."""
    with ItemsWriter(root / f"warm-{level}") as writer:
        write(writer, 5, seed + 1, level)
    walls, cpus, questions = [], [], 0
    for k in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        with ItemsWriter(root / f"{level}-{k}") as writer:
            stats = write(writer, n, seed + k, level)
        walls.append(n / (time.perf_counter() - wall))
        cpus.append(n / (time.process_time() - cpu))
        questions = sum(stats.kept.values())
    return statistics.median(walls), statistics.median(cpus), max(cpus), questions


def main() -> None:
    """Measure both levels and print the rates, the ratios to the public engine and the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--easy", type=int, default=200, help="easy figures to time per run")
    parser.add_argument("--hard", type=int, default=80, help="hard figures to time per run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="runs per level; medians are reported")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    results: dict[str, tuple[float, float, float, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for level, n in (("easy", args.easy), ("hard", args.hard)):
            results[level] = rate(level, n, args.seed, Path(tmp), args.repeats)
            wall, cpu, best, questions = results[level]
            print(
                f"{level}: {n} figures, {questions} questions: {wall:.1f} figures/s wall, {cpu:.1f} figures/s CPU "
                f"(best run {best:.1f}) "
                f"({wall / PUBLIC_ENGINE[level]:.0f}x the public engine's {PUBLIC_ENGINE[level]} figures/s)"
            )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(
        f"easy_fig_s={results['easy'][0]:.1f} hard_fig_s={results['hard'][0]:.1f} peak_mb={peak_mb:.0f} "
        f"easy_cpu_fig_s={results['easy'][1]:.1f} hard_cpu_fig_s={results['hard'][1]:.1f} "
        f"easy_best_cpu_fig_s={results['easy'][2]:.1f} hard_best_cpu_fig_s={results['hard'][2]:.1f}"
    )


if __name__ == "__main__":
    main()
