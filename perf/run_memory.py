"""Peak memory of `mcot run` against the size of the run: flat, or growing with every pair it holds.

Generates GePBench items once (`mcot gen gepbench`, about 14 questions a figure), then runs
`mcot run --model offline --mode text` on the first SMALL and on the first LARGE of them, each in a fresh
subprocess, and reads each run's peak resident set size from the kernel (`wait4`'s `ru_maxrss`). The small run is
the reference; the ratio large/small is what issue 21 part 11 asks to keep within 1.10.

    python perf/run_memory.py [--small 2000] [--large 20000] [--repeat 1] [--keep DIR]

The last line is `key=value` pairs: `peak_small_mb`, `peak_large_mb`, `ratio`, `pairs_small`, `pairs_large`,
`per_pair_kb` (the growth per extra pair).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTIONS_PER_FIGURE = 13.5
"""GePBench gives about 13 questions for an easy figure and 15 for a hard one; a few are dropped by the validator."""


def mcot(*argv: str) -> list[str]:
    """Return the command line of `mcot ARGV…` with this interpreter."""
    return [sys.executable, "-m", "mcot", *argv]


def generate(out: Path, questions: int) -> Path:
    """Generate at least `questions` GePBench items into `out`; return the items directory."""
    figures = math.ceil(questions / QUESTIONS_PER_FIGURE * 1.05) + 1
    subprocess.run(mcot("gen", "gepbench", "--n", str(figures), "--seed", "0", "--out", str(out)), check=True)
    with (out / "items.jsonl").open("rb") as handle:
        have = sum(1 for _ in handle)
    if have < questions:
        raise SystemExit(f"generated {have} questions, fewer than {questions}; raise QUESTIONS_PER_FIGURE's margin")
    return out


def peak_rss_mb(items: Path, run: Path, pairs: int) -> tuple[float, float]:
    """Run `mcot run` on the first `pairs` items in a fresh process; return (its peak RSS in MB, wall seconds)."""
    shutil.rmtree(run, ignore_errors=True)
    argv = mcot("run", "--data", str(items), "--model", "offline", "--mode", "text", "--out", str(run))
    argv += ["--limit", str(pairs), "--log-every", "0"]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"mcot run on {pairs} pairs exited {process.returncode}")
    return usage.ru_maxrss / 1024.0, time.perf_counter() - started  # ru_maxrss is in KiB on Linux


def main() -> None:
    """Measure both sizes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=int, default=2000, help="pairs of the reference run")
    parser.add_argument("--large", type=int, default=20000, help="pairs of the large run")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each size (the median is reported)")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="mcot-run-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        items = work / "items"
        if not (items / "items.jsonl").is_file():
            generate(items, args.large)
        peaks: dict[int, list[float]] = {args.small: [], args.large: []}
        for _ in range(args.repeat):
            for pairs in (args.small, args.large):
                peak, wall = peak_rss_mb(items, work / f"run-{pairs}", pairs)
                peaks[pairs].append(peak)
                print(f"{pairs} pairs: peak RSS {peak:.1f} MB ({wall:.1f} s)", flush=True)
        small, large = statistics.median(peaks[args.small]), statistics.median(peaks[args.large])
        growth_kb = (large - small) * 1024.0 / max(args.large - args.small, 1)
        print(f"median peak RSS: {small:.1f} MB at {args.small} pairs, {large:.1f} MB at {args.large} pairs")
        print(
            f"peak_small_mb={small:.1f} peak_large_mb={large:.1f} ratio={large / small:.3f} "
            f"pairs_small={args.small} pairs_large={args.large} per_pair_kb={growth_kb:.3f}"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
