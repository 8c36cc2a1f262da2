"""The fault soak (perf/soak.py) in CI size: 20 items × 2 arms at 30 % faults, each wire format, run and judge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long_running

ROOT = Path(__file__).resolve().parents[2]


def last_line_figures(output: str) -> dict[str, str]:
    """Return the `key=value` pairs of a perf script's last line."""
    return dict(pair.split("=", 1) for pair in output.strip().splitlines()[-1].split())


@pytest.mark.timeout(240)
@pytest.mark.parametrize("wire", ["openai-compatible", "anthropic"])
def test_soak_loses_and_duplicates_nothing_under_faults(wire: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "perf" / "soak.py"), "--items", "20", "--wire", wire, "--keep", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=230,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = last_line_figures(proc.stdout)
    assert (figures["lost"], figures["duplicated"]) == ("0", "0"), proc.stdout
    # a failed pair is retried by the second pass; the faults are seeded by the request bytes, so this holds
    assert (figures["done"], figures["failed"]) == ("40", "0"), proc.stdout
    assert int(figures["retries"]) > 0  # 30 % of the requests failed: the runner retried them
    injected = next(line for line in proc.stdout.splitlines() if line.strip().startswith("injected:"))
    assert injected.count(":") >= 8, injected  # most fault kinds met at this size
    score = [line for line in proc.stdout.splitlines() if "score pass" in line]
    assert score and "exit 0" in score[-1] and "judge_error" not in score[-1], proc.stdout
    assert "'judge':" in score[-1]  # numbers in words: the judge was asked, under faults too
