"""`mcot study STUDY.toml --out DIR`: every model × arm × benchmark of a study file, resumable, in one report."""

from __future__ import annotations

from pathlib import Path

import typer

from mcot.command_options import StudyOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.core.rundir import run_lock
from mcot.interrupts import EXIT_INTERRUPTED
from mcot.study.config import read_study
from mcot.study.run import refuse_reading_from, run_study

FAILED_EXIT = 3
PROBE_BUDGET_EXIT = 4


@validated(StudyOptions)
def run_study_command(study: Path, out: Path) -> int:
    """Run (or resume) the study, print where its report is; return 0, 3 when some pair, probe or judgment failed,
    4 when a `[probes] max_cost` budget stopped probes (the report is written either way), 130 if interrupted."""

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
        for line in outcome.causes.get(name, []):
            typer.echo(f"  {line}")
    if outcome.interrupted:
        typer.echo("interrupted: re-run the same command to resume (finished pairs are kept)", err=True)
        return EXIT_INTERRUPTED
    typer.echo(f"wrote {outcome.report} and {Path(out) / 'study.html'}")
    if outcome.probe_budget:
        typer.echo(f"mcot: the [probes] max_cost budget stopped the probes of {', '.join(outcome.probe_budget)}; "
                   "re-run with a larger one to go on", err=True)  # fmt: skip
        return PROBE_BUDGET_EXIT
    failed_probes = sum(outcome.probes_failed.values())
    if failed_probes:
        typer.echo(f"mcot: {failed_probes} probe(s) failed; re-run the same command to ask them again", err=True)
    if outcome.judge_stopped:
        typer.echo(f"mcot: {outcome.judge_stopped}", err=True)
    missing = sum(outcome.judge_missing.values())
    if missing:
        typer.echo(f"mcot: {missing} judgment(s) are missing (the judge failed or replied unparsably); re-run the "
                   "same command to ask again", err=True)  # fmt: skip
    return FAILED_EXIT if any(outcome.failed.values()) or failed_probes or missing else 0
