"""`mcot run`: solve a dataset in one or more arms (text, canvas, tools, custom) into a resumable run directory."""

from __future__ import annotations

import math
from pathlib import Path

import typer

from mcot.arms import describe_arms, parse_arms
from mcot.errors import UsageError
from mcot.rundir import run_lock
from mcot.runner import RunConfig, RunSummary
from mcot.runner import run_items as run_all

MAX_CONCURRENCY = 1024
MAX_WORKERS = 256
EXIT_SOME_FAILED = 3
EXIT_BUDGET = 4


def run_items(
    data: Path,
    model: str,
    out: Path,
    mode: str,
    format: str | None = None,
    base_url: str | list[str] | None = None,
    concurrency: int = 4,
    limit: int | None = None,
    max_steps: int = 12,
    seed: int | None = None,
    temperature: float = 0.0,
    tools: str | None = None,
    max_tries: int = 6,
    item_timeout: float = 600.0,
    request_timeout: float = 180.0,
    max_rpm: float | None = None,
    max_tpm: float | None = None,
    max_cost: float | None = None,
    cache: Path | None = None,
    log_every: float = 30.0,
    workers: int = 1,
    executor: str = "local",
    ray_address: str | None = None,
) -> int:
    """Run the items, print a summary with the causes of failures; return the exit code.

    0: every pair ended with an answer; 3: some pair failed; 4: --max-cost stopped the run; 130: interrupted.
    """
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
    for flag, seconds in (("--item-timeout", item_timeout), ("--request-timeout", request_timeout)):
        if not (math.isfinite(seconds) and seconds > 0):
            raise UsageError(f"{flag} must be a positive number of seconds")
    for flag, value in (("--max-rpm", max_rpm), ("--max-tpm", max_tpm)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise UsageError(f"{flag} must be a positive number")
    if not (math.isfinite(log_every) and log_every >= 0):
        raise UsageError("--log-every must be 0 (off) or a number of seconds")
    if not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be between 1 and {MAX_WORKERS}")
    urls = tuple(base_url) if isinstance(base_url, list | tuple) else ((base_url,) if base_url else ())
    config = RunConfig(
        data=data,
        model=model,
        out=out,
        arms=parse_arms(mode, tools),
        format=format,
        base_url=urls or None,
        concurrency=concurrency,
        limit=limit,
        max_steps=max_steps,
        seed=seed,
        temperature=temperature,
        max_tries=max_tries,
        item_timeout_s=item_timeout,
        request_timeout_s=request_timeout,
        max_rpm=max_rpm,
        max_tpm=max_tpm,
        max_cost_usd=max_cost,
        cache_dir=cache,
        log_every_s=log_every,
        workers=workers,
        executor=executor,
        ray_address=ray_address,
    )
    try:
        with run_lock(out, "mcot run"):  # one writer per run directory: a second one refuses at once
            summary = run_all(config)
    except ValueError as exc:  # a bad model spec or dataset reaches the user as one line
        raise UsageError(str(exc)) from exc
    return report_end(summary, describe_arms(config.arms))


def report_end(summary: RunSummary, arms: str) -> int:
    """Print the summary and how the session ended; return the exit code (0, 3, 4 or 130)."""
    from mcot.interrupts import EXIT_INTERRUPTED
    from mcot.spending import usd

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
