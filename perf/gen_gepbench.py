"""Figures and questions per second of the GePBench engine, end to end, on one core: descriptions, rendering
(with the paper's noise on hard figures), questions, the pixel validator and the files (items.jsonl and the
JPEG figures, as `mcot gen gepbench` writes them without --native), for easy and hard separately.

The public engine (matplotlib, rejection sampling), measured side by side on this machine class with its own
flags and one worker (../shared/PERFORMANCE.md), makes 6.1 easy figures/s with 12.1 questions a figure and 0.19
hard figures/s with 13.8 questions a figure; it is not installed here, so those figures are quoted, not
re-measured. The ratios compare figures per second and questions per second (figures/s x questions a figure).

Each level runs `--repeats` times in fresh items directories after a short warm-up (imports, noise tables); the
medians of the wall-clock and CPU-time rates are printed, since shared machines are noisy, and the best run's CPU
rate (the least disturbed one). The last line is ``easy_fig_s=<wall> hard_fig_s=<wall> peak_mb=<max RSS>
easy_cpu_fig_s=<cpu> hard_cpu_fig_s=<cpu> easy_best_cpu_fig_s=<cpu> hard_best_cpu_fig_s=<cpu> easy_q_s=<wall>
hard_q_s=<wall> easy_q_ratio=<x> hard_q_ratio=<x>`` (questions per second and their ratios to the public
engine, from the wall-clock medians).

Run: python perf/gen_gepbench.py [--easy 200] [--hard 80] [--repeats 3] [--seed 0] [--style public|mcot]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mcot.benchmarks.generators.gepbench.engine import write

from mcot.core.item import ItemsWriter

# the public engine, one core, measured side by side: (figures/s wall, questions a figure)
PUBLIC_ENGINE = {"easy": (6.1, 12.1), "hard": (0.19, 13.8)}


@dataclass
class Rate:
    """One level's medians over the repeats: figures/s (wall, CPU), best CPU figures/s, questions/s (wall)."""

    figures: int
    questions: int
    wall_fig_s: float
    cpu_fig_s: float
    best_cpu_fig_s: float
    wall_q_s: float

    @property
    def q_per_figure(self) -> float:
        """Return the questions a figure (of the last run)."""
        return self.questions / self.figures


def rate(level: str, n: int, seed: int, root: Path, repeats: int, style: str) -> Rate:
    """Return the medians over `repeats` runs of n figures of one level."""
    with ItemsWriter(root / f"warm-{level}") as writer:
        write(writer, 5, seed + 1, level, wording=style)
    walls, cpus, q_rates, questions = [], [], [], 0
    for k in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        with ItemsWriter(root / f"{level}-{k}") as writer:
            stats = write(writer, n, seed + k, level, wording=style)
        elapsed = time.perf_counter() - wall
        questions = sum(stats.kept.values())
        walls.append(n / elapsed)
        cpus.append(n / (time.process_time() - cpu))
        q_rates.append(questions / elapsed)
    return Rate(n, questions, statistics.median(walls), statistics.median(cpus), max(cpus), statistics.median(q_rates))


def main() -> None:
    """Measure both levels and print the rates, the ratios to the public engine and the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--easy", type=int, default=200, help="easy figures to time per run")
    parser.add_argument("--hard", type=int, default=80, help="hard figures to time per run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="runs per level; medians are reported")
    parser.add_argument("--style", default="public", choices=("public", "mcot"), help="question style")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    results: dict[str, Rate] = {}
    ratios: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for level, n in (("easy", args.easy), ("hard", args.hard)):
            r = results[level] = rate(level, n, args.seed, Path(tmp), args.repeats, args.style)
            public_fig_s, public_q_fig = PUBLIC_ENGINE[level]
            ratios[level] = (r.wall_fig_s / public_fig_s, r.wall_q_s / (public_fig_s * public_q_fig))
            print(
                f"{level}: {n} figures, {r.questions} questions ({r.q_per_figure:.1f} a figure; public engine "
                f"{public_q_fig}): {r.wall_fig_s:.1f} figures/s wall, {r.cpu_fig_s:.1f} CPU (best run "
                f"{r.best_cpu_fig_s:.1f}), {r.wall_q_s:.0f} questions/s wall; {ratios[level][0]:.0f}x the public "
                f"engine per figure ({public_fig_s}/s), {ratios[level][1]:.0f}x per question "
                f"({public_fig_s * public_q_fig:.1f}/s)"
            )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    easy, hard = results["easy"], results["hard"]
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; style {args.style}")
    print(
        f"easy_fig_s={easy.wall_fig_s:.1f} hard_fig_s={hard.wall_fig_s:.1f} peak_mb={peak_mb:.0f} "
        f"easy_cpu_fig_s={easy.cpu_fig_s:.1f} hard_cpu_fig_s={hard.cpu_fig_s:.1f} "
        f"easy_best_cpu_fig_s={easy.best_cpu_fig_s:.1f} hard_best_cpu_fig_s={hard.best_cpu_fig_s:.1f} "
        f"easy_q_s={easy.wall_q_s:.0f} hard_q_s={hard.wall_q_s:.0f} "
        f"easy_q_ratio={ratios['easy'][1]:.1f} hard_q_ratio={ratios['hard'][1]:.1f}"
    )


if __name__ == "__main__":
    main()
