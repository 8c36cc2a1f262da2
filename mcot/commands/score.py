"""`mcot score RUN [--judge SPEC] [--judge-template FILE] [--base-url URL]`: score a run, write the report."""

from __future__ import annotations

from pathlib import Path

import typer

from eval.errors import EvalError
from mcot.errors import UsageError


def run_score(
    run_dir: Path, judge: str | None = None, judge_template: Path | None = None, base_url: str | None = None
) -> int:
    """Score RUN with each benchmark's protocol, print the tables and what to do next; return the exit code (0)."""
    from eval.metrics import benchmark_tables
    from eval.report import method_table
    from eval.scoring import score_run

    judge_model = None
    if judge is not None:
        from mcot.judging import judge_from_spec

        try:
            judge_model = judge_from_spec(judge, base_url)
        except Exception as exc:  # an unknown or unusable spec: the backend's message says what to fix
            raise UsageError(f"cannot use judge {judge!r}: {exc}") from exc
    try:
        summary = score_run(Path(run_dir), judge=judge_model, template=judge_template)
    except EvalError as exc:
        raise UsageError(str(exc)) from exc
    if summary.source_changed:
        typer.echo(f"note: {summary.source_changed}")
    for table in [method_table(summary.scores), *benchmark_tables(summary.scores)]:
        typer.echo(table.markdown())
    if summary.missing_items:
        typer.echo(
            f"{len(summary.missing_items)} result(s) name items not in RUN/items.jsonl (not scored): "
            f"{summary.missing_items[:5]}"
        )
    for line in summary.advice:
        typer.echo(f"to do: {line}")
    if judge_model is not None:
        typer.echo(f"judge {judge}: {summary.cache_hits} cached, {summary.cache_misses} asked")
    typer.echo(f"wrote {Path(run_dir) / 'scores.jsonl'}, report.md and report.html")
    return 0
