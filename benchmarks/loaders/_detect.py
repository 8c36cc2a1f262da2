"""Which declared data format a path holds: each loader's `detect`, in declaration order."""

from __future__ import annotations

from pathlib import Path

from mcot.core.registry import LOADERS


def detect_format(path: Path) -> str | None:
    """Return the name of the first declared format whose loader recognises the file or folder, or None.

    mcot's own are tried in the order items, gepbench, gobench, rbench-v, omniphys; a plugin's come after.
    """
    path = Path(path)
    if not path.exists():
        return None
    for name, loader in LOADERS.items():
        if loader.detects(path):
            return name
    return None
