"""How long `mcot --help` takes, against `python -c pass` measured in the same run (issue 27, part 3: under 0.3 s).

Each sample is one fresh process, exec to exit, run in turn with the reference (interleaved, so a busy machine
weighs on both alike): `python -c pass`, `python -m mcot --help` (the console script's work: import mcot.cli,
build the command tree, format the help), and the help of one command generated from a declaration
(`mcot run --help`, `mcot score --help`). Medians of N samples (default 9) and the help's cost over the
interpreter's start (median minus the reference's median).

Usage: python perf/cli_help.py [--repeats 9]
Last line: `help_s=… run_help_s=… score_help_s=… python_s=… help_over_python_s=…`
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = {
    "python": ["-c", "pass"],
    "help": ["-m", "mcot", "--help"],
    "run_help": ["-m", "mcot", "run", "--help"],
    "score_help": ["-m", "mcot", "score", "--help"],
}


def once(args: list[str]) -> float:
    """Return the wall time in seconds of one fresh `python ARGS` process (its output discarded)."""
    env = {**os.environ, "COLUMNS": "100"}
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def measure(repeats: int) -> dict[str, float]:
    """Return the median seconds of each case, the cases run in turn `repeats` times (after one warm-up round)."""
    for args in CASES.values():
        once(args)  # the page cache and .pyc files, for every case alike
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(repeats):
        for name, args in CASES.items():
            samples[name].append(once(args))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    """Print the medians and the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    options = parser.parse_args()
    medians = measure(options.repeats)
    for name, value in medians.items():
        print(f"{name:<12} median {value:.3f} s over {options.repeats} runs")
    print(
        f"help_s={medians['help']:.3f} run_help_s={medians['run_help']:.3f} score_help_s={medians['score_help']:.3f} "
        f"python_s={medians['python']:.3f} help_over_python_s={medians['help'] - medians['python']:.3f}"
    )


if __name__ == "__main__":
    main()
