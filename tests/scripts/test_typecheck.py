"""The type check of the README's test command, run beside the other tests: mypy over the package as installed
(scripts/typecheck.py), its layout and cold cache in the test's own folder, 0 errors.

It runs inside the suite rather than before it because its half minute of CPU then fills the time the other
workers spend waiting on subprocesses and servers (docs/testing.md, "The type check")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from extras import needs

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [needs("mypy"), pytest.mark.long_running]


def test_mypy_finds_no_error_in_the_installed_layout(tmp_path: Path) -> None:
    script = ROOT / "scripts" / "typecheck.py"
    argv = [sys.executable, str(script), "--tree", str(tmp_path / "tree"), "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found in "), done.stdout[-2000:]
    assert (tmp_path / "tree" / "mcot" / "agents").is_symlink()  # the rooms as the wheel lays them out
