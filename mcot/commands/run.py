"""`mcot run`: solve a dataset in text and/or canvas mode into a resumable run directory."""

from __future__ import annotations

from pathlib import Path

import typer

from mcot.errors import UsageError
from mcot.runner import RunConfig, parse_modes
from mcot.runner import run_items as run_all

MAX_CONCURRENCY = 256


def run_items(
    data: Path,
    model: str,
    out: Path,
    mode: str,
    format: str | None,
    base_url: str | None,
    concurrency: int,
    limit: int | None,
    max_steps: int,
    seed: int,
) -> int:
    """Run the items and print a one-line summary; return the exit code (0 even when some items failed)."""
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    if not 1 <= max_steps <= 200:
        raise UsageError("--max-steps must be between 1 and 200")
    config = RunConfig(
        data=data,
        model=model,
        out=out,
        modes=parse_modes(mode),
        format=format,
        base_url=base_url,
        concurrency=concurrency,
        limit=limit,
        max_steps=max_steps,
        seed=seed,
    )
    try:
        summary = run_all(config)
    except ValueError as exc:  # a bad model spec or dataset reaches the user as one line
        raise UsageError(str(exc)) from exc
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.by_status.items())) or "nothing new"
    typer.echo(
        f"{summary.run_dir}: {summary.total} (item, mode) pairs; {summary.skipped_done} already done; "
        f"this time {statuses} in {summary.wall_s:.1f}s"
    )
    failed = summary.by_status.get("error", 0)
    if failed:
        typer.echo(f"{failed} failed: see the error field in {summary.run_dir / 'results.jsonl'}", err=True)
    return 0
