"""Peak memory of `mcot export --format hf` (and of `mcot gen gepbench --format llava`) at two sizes: flat in records?

For each size, GePBench items are generated (both levels, ~13 questions a figure), run with the offline model in
the text arm (one (item, arm) pair per question) and scored; then `mcot export RUN --format hf` runs in its own
process, whose peak resident memory (ru_maxrss of the child: file pages it maps count too) is the figure. The
ratio is the large size's peak over the small size's: 1.0 is flat; the records ratio beside it is how much
more data was written. The same is measured for `mcot gen gepbench --format llava` at two figure counts.

Issue 22 measured the export at HEAD before streaming at 425 MB (2,000 pairs), 709 MB (8,000) and 2.15 GB
(21,059), quoted, not re-measured. Runs are kept under --work and reused when present (generating and running
20,000 pairs takes a few minutes on two cores).

Run: python perf/export_memory.py [--small 2000] [--large 20000] [--work DIR] [--llava-small 300]
[--llava-large 3000]. The last line is `small_pairs=… large_pairs=… small_peak_mb=… large_peak_mb=… ratio=…
records_ratio=… llava_small_peak_mb=… llava_large_peak_mb=… llava_ratio=…`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

QUESTIONS_PER_FIGURE = 14.0
"""About how many questions a GePBench figure gets over both levels (13.9 at seed 3): figures = pairs / this."""


def mcot(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run `python -m mcot ARGS` offline; raise with its stderr when it fails."""
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "mcot", *map(str, args)], capture_output=True, text=True, env=env)
    if done.returncode not in (0, 3):
        raise SystemExit(f"mcot {' '.join(map(str, args))} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def child_peak_mb(*args: str | Path) -> float:
    """Return the peak resident memory (MB) of one `mcot ARGS` child process, measured alone."""
    code = (
        "import resource, subprocess, sys;"
        "subprocess.run(sys.argv[1:], check=True, capture_output=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, sys.executable, "-m", "mcot", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return int(done.stdout.strip().splitlines()[-1]) / 1024


def gepbench_run(work: Path, pairs: int) -> tuple[Path, int]:
    """Return a scored offline text-arm run of about `pairs` GePBench questions under `work` (reused), and its size."""
    figures = max(1, round(pairs / QUESTIONS_PER_FIGURE))
    items, run = work / f"gepbench-{figures}", work / f"run-{figures}"
    if not (run / "scores.jsonl").is_file():
        shutil.rmtree(items, ignore_errors=True)
        shutil.rmtree(run, ignore_errors=True)
        mcot("gen", "gepbench", "--n", figures, "--seed", 3, "--out", items)
        mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", run)
        mcot("score", run)
    with (run / "results.jsonl").open(encoding="utf-8") as handle:
        count = sum(1 for _ in handle)
    return run, count


def export_peak(run: Path, out: Path) -> float:
    """Return the peak memory (MB) of `mcot export RUN --format hf` into `out`."""
    shutil.rmtree(out, ignore_errors=True)
    return child_peak_mb("export", run, "--format", "hf", "--out", out)


def llava_peak(work: Path, figures: int) -> float:
    """Return the peak memory (MB) of `mcot gen gepbench --format llava` making `figures` easy figures."""
    out = work / f"llava-{figures}"
    shutil.rmtree(out, ignore_errors=True)
    try:
        return child_peak_mb("gen", "gepbench", "--n", figures, "--level", "easy", "--seed", 5, "--format", "llava", "--out", out)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    """Measure and print the peaks per size and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=2000, help="pairs of the small run")
    parser.add_argument("--large", type=int, default=20000, help="pairs of the large run")
    parser.add_argument("--llava-small", type=int, default=300, help="figures of the small LLaVA generation")
    parser.add_argument("--llava-large", type=int, default=3000, help="figures of the large LLaVA generation")
    parser.add_argument("--work", type=Path, default=None, help="where runs are kept and reused (default: a temp dir)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mcot-export-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    peaks = {}
    sizes = {}
    for label, pairs in (("small", args.small), ("large", args.large)):
        run, count = gepbench_run(work, pairs)
        sizes[label] = count
        peaks[label] = export_peak(run, work / f"export-{label}")
        shutil.rmtree(work / f"export-{label}", ignore_errors=True)
        print(f"export --format hf of {count:,} pairs: peak {peaks[label]:.0f} MB", flush=True)
    llava = {label: llava_peak(work, figures) for label, figures in (("small", args.llava_small), ("large", args.llava_large))}
    print(f"gen gepbench --format llava: {args.llava_small:,} figures {llava['small']:.0f} MB, "
          f"{args.llava_large:,} figures {llava['large']:.0f} MB")  # fmt: skip
    print(f"(this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")
    print(
        f"small_pairs={sizes['small']} large_pairs={sizes['large']} small_peak_mb={peaks['small']:.0f} "
        f"large_peak_mb={peaks['large']:.0f} ratio={peaks['large'] / peaks['small']:.2f} "
        f"records_ratio={sizes['large'] / sizes['small']:.2f} llava_small_peak_mb={llava['small']:.0f} "
        f"llava_large_peak_mb={llava['large']:.0f} llava_ratio={llava['large'] / llava['small']:.2f}"
    )


if __name__ == "__main__":
    main()
