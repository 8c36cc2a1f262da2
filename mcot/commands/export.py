"""`mcot export RUN|ITEMS --format jsonl|parquet|hf --out PATH [--as VIEW] [--only-correct] [--score] [--overwrite]
[--toolset NAME]`: a run's traces as a dataset, or an items directory's prompts as RL rows (docs/export.md)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import typer

from mcot.command_options import ExportOptions
from mcot.errors import UsageError
from mcot.eval.errors import EvalError
from mcot.export import ExportError, export_run
from mcot.options import validated
from mcot.rundir import RunDirError, run_lock


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
) -> int:
    """Export RUN, print warnings on stderr and one summary line; return the exit code (0, or 1 on a write error)."""
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
    typer.echo(f"exported {summary.count} records ({format}, {view}{flagged}) to {out}{scored}")
    return 0
