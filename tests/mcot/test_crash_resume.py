"""Crash and resume (perf/crash_resume.py) in CI size: `mcot run` SIGKILLed 3 times, `mcot score` and `mcot export`
once each; nothing lost or duplicated, nothing paid twice, and with the response cache the scores of an
uninterrupted run (but for answers a kill cut off in flight)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long_running

ROOT = Path(__file__).resolve().parents[2]


def last_line_figures(output: str, line: int = -1) -> dict[str, str]:
    """Return the `key=value` pairs of a line of a perf script's output (the last by default)."""
    return dict(pair.split("=", 1) for pair in output.strip().splitlines()[line].split())


@pytest.mark.timeout(280)
def test_kills_lose_duplicate_and_repay_nothing_and_scores_match(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "perf" / "crash_resume.py"),
            "--items",
            "16",
            "--kills",
            "3",
            "--keep",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=270,
    )
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    figures = last_line_figures(proc.stdout)
    details = last_line_figures(proc.stdout, -2)
    assert details["cache"] == "on", "mcot run offers no --cache"
    assert int(figures["kills"]) == 5, proc.stdout  # 3 during run, 1 during score, 1 during export
    assert figures["pairs"] == "32"
    assert (figures["lost"], figures["duplicated"], figures["repaid"]) == ("0", "0", "0"), proc.stdout
    # the scores equal the uninterrupted run's, except where a kill cut off an answer the server had already sent
    # (it can be neither stored nor kept: the drifting test model may answer the re-asked request otherwise)
    assert details["scores_differ_otherwise"] == "0", proc.stdout
    assert figures["scores_equal"] == "True" or int(details["repaid_at_kill"]) > 0, proc.stdout
    assert details["exported"] == "32"
    assert "left behind by the killed export after the re-run: nothing" in proc.stdout, proc.stdout
