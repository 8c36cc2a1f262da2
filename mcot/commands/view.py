"""`mcot view`: write the static trace viewer of a run."""

from __future__ import annotations

from pathlib import Path

import typer

from eval.rundir import RunDirError
from mcot.errors import UsageError
from mcot.viewer import write_viewer


def run_view(run_dir: Path, out: Path | None) -> int:
    """Write the viewer and print where it is; return 0."""
    try:
        page = write_viewer(run_dir, out)
    except RunDirError as exc:
        raise UsageError(str(exc)) from exc
    typer.echo(f"viewer: {page} (open it in a browser; it works from file://)")
    return 0
