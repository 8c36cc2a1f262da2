"""`mcot study STUDY.toml --out DIR`: every model × arm × benchmark of a study file, resumable, in one report."""

from __future__ import annotations

from pathlib import Path

import typer

from mcot.command_options import StudyOptions
from mcot.errors import UsageError
from mcot.options import validated
from mcot.rundir import run_lock


@validated(StudyOptions)
def run_study_command(study: Path, out: Path) -> int:
    """Run (or resume) the study, print where its report is; return 0, 3 when some pair failed, 130 if interrupted."""
    from mcot.interrupts import EXIT_INTERRUPTED
    from mcot.study.config import read_study
    from mcot.study.run import refuse_reading_from, run_study

    config = read_study(Path(study))
    refuse_reading_from(config, Path(out))  # before anything is written
    try:
        with run_lock(Path(out), "mcot study"):  # one writer per study folder: a second one refuses at once
            outcome = run_study(config, Path(out))
    except ValueError as exc:  # a bad model spec reaches the user as one line
        raise UsageError(str(exc)) from exc
    for name, run in outcome.runs.items():
        failed = outcome.failed.get(name, 0)
        note = f", {failed} pairs without an answer" if failed else ""
        typer.echo(f"{name}: {run} ({outcome.new_pairs.get(name, 0)} pairs run this time{note})")
    if outcome.interrupted:
        typer.echo("interrupted: re-run the same command to resume (finished pairs are kept)", err=True)
        return EXIT_INTERRUPTED
    typer.echo(f"wrote {outcome.report} and {Path(out) / 'study.html'}")
    return 3 if any(outcome.failed.values()) else 0
