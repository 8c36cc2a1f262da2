"""Fixtures of the eval tests: run directories made by hand (see handmade.py)."""

from pathlib import Path

import pytest
from handmade import MakeRun, run_builder


@pytest.fixture()
def make_run(tmp_path: Path) -> MakeRun:
    """Return a builder of hand-made run directories under tmp_path."""
    return run_builder(tmp_path)
