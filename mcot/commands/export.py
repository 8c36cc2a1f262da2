"""`mcot export`: a run's traces as a dataset (JSON lines, parquet, or a Hugging Face folder)."""

from __future__ import annotations

from pathlib import Path

import typer

from eval.rundir import RunDirError
from mcot.errors import UsageError
from mcot.exporter import ExportError, export_run


def run_export(run_dir: Path, format: str, out: Path) -> int:
    """Export and print how many records were written; return 0."""
    try:
        count = export_run(run_dir, format, out)
    except (ExportError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    typer.echo(f"exported {count} records ({format}) to {out}")
    return 0
