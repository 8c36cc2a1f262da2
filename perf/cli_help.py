"""How long `mcot --help` takes, against `python -c pass` measured in the same run (issue 27, part 3: under 0.3 s).

Each sample is one fresh process, exec to exit, run in turn with the reference (interleaved, so a busy machine
weighs on both alike): `python -c pass`, `python -m mcot --help` (the console script's work: import mcot.cli,
build the command tree, format the help), and the help of one command generated from a declaration
(`mcot run --help`, `mcot score --help`). Medians of N samples (default 9) and the help's cost over the
interpreter's start (median minus the reference's median). `--before CHECKOUT` also times `mcot --help` of
another checkout of mcot (an older commit: `git archive COMMIT mcot | tar -x -C /tmp/before`), put first on PYTHONPATH.

Usage: python perf/cli_help.py [--repeats 9] [--before CHECKOUT]
Last line: `help_s=… run_help_s=… score_help_s=… python_s=… help_over_python_s=…`
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    "python": ["-c", "pass"],
    "help": ["-m", "mcot", "--help"],
    "run_help": ["-m", "mcot", "run", "--help"],
    "score_help": ["-m", "mcot", "score", "--help"],
}


def once(args: list[str], path: str | None = None) -> float:
    """Return the wall time in seconds of one fresh `python ARGS` process (its output discarded), with `path`
    first on PYTHONPATH when given."""
    env = {**os.environ, "COLUMNS": "100", **({"PYTHONPATH": path} if path else {})}
    start = time.perf_counter()
    out = subprocess.DEVNULL
    # cwd outside the repository: `python -m` puts the cwd first on sys.path, ahead of PYTHONPATH's checkout
    subprocess.run([sys.executable, *args], stdout=out, stderr=out, check=True, env=env, cwd=tempfile.gettempdir())
    return time.perf_counter() - start


def measure(repeats: int, before: str | None = None) -> dict[str, float]:
    """Return the median seconds of each case, the cases run in turn `repeats` times (after one warm-up round)."""
    cases = {name: (args, None) for name, args in CASES.items()}
    if before:
        cases["help_before"] = (CASES["help"], before)
    for args, path in cases.values():
        once(args, path)  # the page cache and .pyc files, for every case alike
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, (args, path) in cases.items():
            samples[name].append(once(args, path))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    """Print the medians and the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--before", help="another checkout of mcot whose `mcot --help` is timed too")
    options = parser.parse_args()
    medians = measure(options.repeats, options.before)
    for name, value in medians.items():
        print(f"{name:<12} median {value:.3f} s over {options.repeats} runs")
    print(
        f"help_s={medians['help']:.3f} run_help_s={medians['run_help']:.3f} score_help_s={medians['score_help']:.3f} "
        f"python_s={medians['python']:.3f} help_over_python_s={medians['help'] - medians['python']:.3f}"
        + (f" help_before_s={medians['help_before']:.3f}" if "help_before" in medians else "")
    )


if __name__ == "__main__":
    main()
