"""How long `mcot --help` takes, against `python -c pass` measured in the same run (issue 27, part 3: under 0.3 s).

Each sample is one fresh process, exec to exit, run in turn with the reference (interleaved, so a busy machine
weighs on both alike): `python -c pass`, `python -m mcot --help` (the console script's work: import mcot.cli,
build the command tree, format the help), and the help of one command generated from a declaration
(`mcot run --help`, `mcot score --help`). For each: the median wall time of N samples (default 9), and the
median CPU time (user + system of the child), which a busy machine inflates less than the wall time; and the
help's cost over the interpreter's start (median minus the reference's median). `--before CHECKOUT` also times
`mcot --help` of another checkout of mcot (an older commit: `git archive COMMIT mcot | tar -x -C /tmp/before`),
put first on PYTHONPATH.

Usage: python perf/cli_help.py [--repeats 9] [--before CHECKOUT]
Last line: `help_s=… help_cpu_s=… run_help_s=… score_help_s=… python_s=… help_over_python_s=…
[help_before_s=… help_before_cpu_s=…]`
"""

from __future__ import annotations

import argparse
import os
import resource
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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(args: list[str], path: str | None = None) -> tuple[float, float]:
    """Return (wall, CPU) seconds of one fresh `python ARGS` process (its output discarded), with `path` first on
    PYTHONPATH when given."""
    env = {**os.environ, "COLUMNS": "100", **({"PYTHONPATH": path} if path else {})}
    out = subprocess.DEVNULL
    cpu, start = _children_cpu(), time.perf_counter()
    # cwd outside the repository: `python -m` puts the cwd first on sys.path, ahead of PYTHONPATH's checkout
    subprocess.run([sys.executable, *args], stdout=out, stderr=out, check=True, env=env, cwd=tempfile.gettempdir())
    return time.perf_counter() - start, _children_cpu() - cpu


def measure(repeats: int, before: str | None = None) -> dict[str, tuple[float, float]]:
    """Return the median (wall, CPU) seconds of each case, the cases run in turn `repeats` times (after one
    warm-up round)."""
    cases = {name: (args, None) for name, args in CASES.items()}
    if before:
        cases["help_before"] = (CASES["help"], before)
    for args, path in cases.values():
        once(args, path)  # the page cache and .pyc files, for every case alike
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, (args, path) in cases.items():
            samples[name].append(once(args, path))
    return {
        name: (statistics.median(s[0] for s in values), statistics.median(s[1] for s in values))
        for name, values in samples.items()
    }


def main() -> None:
    """Print the medians and the summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--before", help="another checkout of mcot whose `mcot --help` is timed too")
    options = parser.parse_args()
    medians = measure(options.repeats, options.before)
    for name, (wall, cpu) in medians.items():
        print(f"{name:<12} median {wall:.3f} s wall, {cpu:.3f} s CPU over {options.repeats} runs")
    line = (
        f"help_s={medians['help'][0]:.3f} help_cpu_s={medians['help'][1]:.3f} run_help_s={medians['run_help'][0]:.3f} "
        f"score_help_s={medians['score_help'][0]:.3f} python_s={medians['python'][0]:.3f} "
        f"help_over_python_s={medians['help'][0] - medians['python'][0]:.3f}"
    )
    if "help_before" in medians:
        line += f" help_before_s={medians['help_before'][0]:.3f} help_before_cpu_s={medians['help_before'][1]:.3f}"
    print(line)


if __name__ == "__main__":
    main()
