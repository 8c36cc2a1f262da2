"""`mcot export RUN|ITEMS --format jsonl|parquet|hf --out PATH [--as VIEW] [--only-correct] [--score] [--overwrite]
[--toolset NAME]`: a run's traces as a dataset, or an items directory's prompts as RL rows (docs/export.md)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import typer

from mcot.command_options import ExportOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.core.rundir import RunDirError, run_lock
from mcot.eval.errors import EvalError
from mcot.export import ExportError, export_run


@validated(ExportOptions)
def run_export(
    run_dir: Path,
    format: str,
    out: Path,
    view: str = "records",
    only_correct: bool = False,
    score: bool = False,
    overwrite: bool = False,
    toolset: str | None = None,
    allow_partial: bool = False,
) -> int:
    """Export RUN, print warnings on stderr and one summary line; return the exit code: 0, 1 on a write error, 3
    when images, turns or records were left out (each said in one line) unless `allow_partial`."""
    writes_run = score or Path(out).absolute().is_relative_to(Path(run_dir).absolute())  # --score writes scores
    try:
        with run_lock(run_dir, "mcot export") if writes_run else nullcontext():
            summary = export_run(
                Path(run_dir),
                format,
                Path(out),
                view=view,
                only_correct=only_correct,
                overwrite=overwrite,
                score=score,
                toolset=toolset,
            )
    except (ExportError, EvalError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        typer.echo(f"mcot: cannot write the export to {out}: {exc}; nothing was left there", err=True)
        return 1
    for warning in summary.warnings:
        typer.echo(f"warning: {warning}", err=True)
    scored = f"; scored {run_dir} first (official protocol)" if summary.scored_now else ""
    flagged = f", {summary.flagged} flagged (status not ok)" if summary.flagged else ""
    for line in summary.left_out:
        typer.echo(f"mcot: {line}", err=True)
    typer.echo(f"exported {summary.count} records ({format}, {view}{flagged}) to {out}{scored}")
    if summary.left_out and not allow_partial:
        typer.echo("mcot: the export is partial (exit 3): add --allow-partial to accept it", err=True)
        return 3
    return 0
