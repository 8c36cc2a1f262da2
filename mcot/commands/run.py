"""`mcot run`: solve a dataset in one or more arms (text, canvas, tools, custom) into a resumable run directory."""

from __future__ import annotations

import math
from pathlib import Path

import typer

from mcot.arms import describe_arms, parse_arms
from mcot.errors import UsageError
from mcot.runner import RunConfig, RunSummary
from mcot.runner import run_items as run_all

MAX_CONCURRENCY = 256
EXIT_SOME_FAILED = 3


def run_items(
    data: Path,
    model: str,
    out: Path,
    mode: str,
    format: str | None = None,
    base_url: str | None = None,
    concurrency: int = 4,
    limit: int | None = None,
    max_steps: int = 12,
    seed: int | None = None,
    temperature: float = 0.0,
    tools: str | None = None,
    max_tries: int = 6,
) -> int:
    """Run the items, print a summary with the causes of failures; return 0, or 3 when any pair failed."""
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    if not 1 <= max_steps <= 200:
        raise UsageError("--max-steps must be between 1 and 200")
    if not 1 <= max_tries <= 20:
        raise UsageError("--max-tries must be between 1 and 20")
    if not (math.isfinite(temperature) and 0.0 <= temperature <= 2.0):
        raise UsageError("--temperature must be between 0 and 2")
    config = RunConfig(
        data=data,
        model=model,
        out=out,
        arms=parse_arms(mode, tools),
        format=format,
        base_url=base_url,
        concurrency=concurrency,
        limit=limit,
        max_steps=max_steps,
        seed=seed,
        temperature=temperature,
        max_tries=max_tries,
    )
    try:
        summary = run_all(config)
    except ValueError as exc:  # a bad model spec or dataset reaches the user as one line
        raise UsageError(str(exc)) from exc
    print_summary(summary, describe_arms(config.arms))
    return EXIT_SOME_FAILED if summary.failures.failed else 0


def print_summary(summary: RunSummary, arms: str) -> None:
    """Print what the run did this time, the arms (one line each), and — when pairs failed — how many and why."""
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
