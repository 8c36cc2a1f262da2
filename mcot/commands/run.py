"""`mcot run`: solve a dataset in one or more arms (text, canvas, tools, custom) into a resumable run directory."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from mcot.arms import describe_arms
from mcot.core.errors import UsageError
from mcot.core.item import read_items
from mcot.core.rundir import run_lock
from mcot.interrupts import EXIT_INTERRUPTED
from mcot.mcp.servers import started
from mcot.repeats import run_samples
from mcot.runconfig import RunConfig
from mcot.runner import RunSummary
from mcot.sampling import coverage
from mcot.spending import usd

EXIT_SOME_FAILED = 3
EXIT_BUDGET = 4


def run_items(**options: Any) -> int:
    """Run the items `mcot run`'s options name, print a summary with the causes of failures; return the exit code.

    0: every pair ended with an answer; 3: some pair failed; 4: --max-cost stopped the run; 130: interrupted.
    """
    config = RunConfig(**options)
    with mcp_servers(config):  # their tools are declared before the arms that name them are read
        config.arms  # noqa: B018 - an unknown arm or tool is a UsageError before anything is loaded
        try:
            with run_lock(config.out, "mcot run"):  # one writer per run directory: a second one refuses at once
                summary = run_samples(config)
        except ValueError as exc:  # a bad model spec or dataset reaches the user as one line
            raise UsageError(str(exc)) from exc
    if config.limit or config.sample:
        typer.echo(f"coverage ({_chosen(config)}): {run_coverage(summary.run_dir)}")
    return report_end(summary, describe_arms(config.arms))


@contextlib.contextmanager
def mcp_servers(config: RunConfig) -> Iterator[None]:
    """Keep the `--mcp` servers of a run started (and their tools declared) for the body's duration."""
    if not config.mcp:
        yield
        return

    with started(config.mcp, config.mcp_timeout):
        yield


def report_end(summary: RunSummary, arms: str) -> int:
    """Print the summary and how the session ended; return the exit code (0, 3, 4 or 130)."""

    if summary.stopped == "interrupt":
        typer.echo(
            f"interrupted: {summary.done} of {summary.total} pairs done ({summary.cancelled} in flight cancelled, "
            "nothing of theirs kept), re-run the same command to resume",
            err=True,
        )
        return EXIT_INTERRUPTED
    print_summary(summary, arms)
    if summary.stopped == "budget":
        typer.echo(
            f"--max-cost reached: {usd(summary.spent_usd)} spent of {usd(summary.max_cost_usd or 0.0)}; "
            f"{summary.not_started} pairs not started; re-run with a larger --max-cost to go on",
            err=True,
        )
        return EXIT_BUDGET
    return EXIT_SOME_FAILED if summary.failures.failed else 0


def print_summary(summary: RunSummary, arms: str) -> None:
    """Print what the run did this time, the arms (one line each), and — when pairs failed — how many and why."""
    for index, sample in enumerate(summary.samples, start=1):
        statuses = ", ".join(f"{n} {s}" for s, n in sorted(sample.by_status.items())) or "nothing new"
        typer.echo(f"sample {index} of {len(summary.samples)}: {sample.run_dir}: {sample.total} pairs; "
                   f"{sample.skipped_done} already done; this time {statuses} in {sample.wall_s:.1f}s")  # fmt: skip
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.by_status.items())) or "nothing new"
    typer.echo(
        f"{summary.run_dir}: {summary.total} (item, arm) pairs; {summary.skipped_done} already done; "
        f"this time {statuses} in {summary.wall_s:.1f}s"
    )
    typer.echo(arms)
    failures = summary.failures
    if not failures.failed:
        return
    if summary.succeeded == 0:
        typer.echo(f"no pair succeeded: all {summary.total} failed", err=True)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(failures.by_status.items()))
    typer.echo(f"{failures.failed} of {summary.total} pairs did not end with an answer ({statuses}); causes:", err=True)
    for line in failures.lines():
        typer.echo(f"  {line}", err=True)
    typer.echo(
        "re-run the same command to retry the failed pairs (finished ones are kept); "
        f"details in {summary.run_dir / 'results.jsonl'}",
        err=True,
    )


def _chosen(config: RunConfig) -> str:
    if config.sample:
        return f"a sample of {config.sample} stratified by benchmark and category, seed {config.seed or 0}"
    return f"the first {config.limit} items"


def run_coverage(run_dir: Path) -> str:
    """Return the coverage line of a run's frozen items (which benchmarks and categories, how many of each)."""

    return coverage(read_items(run_dir))
