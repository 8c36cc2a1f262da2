"""The `shared_data` fixture: the benchmarks' real sample files, read in place (skipped when absent)."""

from pathlib import Path

import pytest
from loader_files import SHARED


@pytest.fixture
def shared_data() -> Path:
    """The shared real data folder; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    return SHARED
