"""Where the repeated samples of a run live (`mcot run --samples K`): sample 1 is RUN itself, sample k ≥ 2 the run
directory RUN/samples/<k>, each an ordinary, resumable run of the same items, arms and settings."""

from __future__ import annotations

from pathlib import Path

from mcot.core.rundir.layout import MANIFEST, SAMPLES


def sample_root(root: Path, index: int) -> Path:
    """Return the run directory of sample `index` (1-based) of the run at `root`: `root` itself for sample 1."""
    if index < 1:
        raise ValueError(f"samples are numbered from 1 (got {index})")
    return Path(root) if index == 1 else Path(root) / SAMPLES / str(index)


def sample_roots(root: Path) -> list[tuple[int, Path]]:
    """Return (k, run directory) of every sample the run at `root` holds, in order: (1, root), then each
    RUN/samples/<k> with a manifest (a folder of another name, or one the run never started, is not a sample)."""
    found = [(1, Path(root))]
    folder = Path(root) / SAMPLES
    if folder.is_dir():
        numbered = [p for p in folder.iterdir() if p.name.isdigit() and int(p.name) >= 2 and p.name == str(int(p.name))]
        found += sorted(((int(p.name), p) for p in numbered if (p / MANIFEST).is_file()), key=lambda kv: kv[0])
    return found
