"""Fuzz 10,000 tool calls near every canvas limit: the test suite's fuzz (tests/canvas/test_fuzz_limits.py) at
full size, with fresh random calls each run.

It runs that test file under pytest (in one process) with FUZZ_CALLS set, reads the figures it writes, and prints
them. The test fails on the first call that raises, answers without a usable error, takes over the memory cap, or
leaves the canvas changed after failing (pixels, elements, log, version, redo); then this script says which call
and exits non-zero. The time a call takes is this script's check, not the test's (a loaded machine would fail a
timed unit test): a call that computes longer than a second (CPU; a tool in a worker process: wall) is named and
the exit status is 1. The last line is
``calls=<n> ok=<n> failed=<n> crashes=<n> rollbacks_exact=<n> slowest_call_s=<s> peak_call_mb=<mb>``.

Run: python perf/fuzz_tools.py [--calls 10000]   (FUZZ_SEED=N to repeat an earlier run's calls)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/canvas/test_fuzz_limits.py"


def main() -> int:
    """Run the fuzz at full size and print its figures; return the test run's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcot-fuzz-") as folder:
        report = Path(folder) / "figures.json"
        env = {**os.environ, "FUZZ_CALLS": str(options.calls), "FUZZ_REPORT": str(report)}
        started = time.perf_counter()
        tests = [f"{TEST}::test_tool_calls_near_every_limit", f"{TEST}::test_fuzz_figures"]
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:randomly", "-o", "timeout=0", *tests],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - started
        if done.returncode != 0 or not report.is_file():
            print(done.stdout[-6000:], done.stderr[-2000:], sep="\n")
            print(f"the fuzz failed (exit {done.returncode}) after {wall:.0f} s; the failing call is named above")
            return done.returncode or 1
        figures = json.loads(report.read_text())
    print(
        f"tool calls fuzzed: {figures['calls']} in {wall:.0f} s ({figures['tools_called']} tools and junk names), "
        f"seed {figures['seed']} (FUZZ_SEED={figures['seed']} repeats these calls)"
    )
    print(f"answered: {figures['ok']} ok, {figures['failed']} refused with an error naming the tool; crashes: 0")
    print(
        f"failed calls checked for an exact rollback: {figures['rollbacks_checked']} (pixels re-rendered for "
        f"{figures['pixel_checks']})"
    )
    print("calls per canvas: " + ", ".join(f"{k} {v}" for k, v in sorted(figures["by_canvas"].items())))
    print(f"slowest call: {figures['slowest_s']:.3f} s CPU ({figures['slowest_call'][:160]})")
    print(
        f"median call: {figures['median_call_ms']:.3f} ms; peak memory of one call: {figures['peak_call_mb']} MB; "
        f"process peak: {figures['process_peak_mb']} MB"
    )
    over = figures["calls_over_the_time_limit"]
    for call in figures["over_the_time_limit"]:
        print(f"over the time limit: {call}")
    print(
        f"calls={figures['calls']} ok={figures['ok']} failed={figures['failed']} crashes={figures['crashes']} "
        f"rollbacks_exact={figures['rollbacks_checked']} slowest_call_s={figures['slowest_s']:.3f} "
        f"peak_call_mb={figures['peak_call_mb']} over_time_limit={over}"
    )
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
