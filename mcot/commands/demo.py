"""`mcot demo`: offline end-to-end on generated items with the offline policy (a scripted tool user)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from mcot.demo import DEMO_GAMES_PER_TASK, DEMO_GEPBENCH_FIGURES, DEMO_SEED, generate_suite, prepare_out
from mcot.runner import MODES, RunConfig, run_items
from mcot.viewer import write_viewer

OFFLINE_NOTE = (
    "Note: the `offline` model is a deterministic script that calls mcot's perception and domain tools on the\n"
    "items it recognises (and guesses otherwise). It is not a model: its numbers show that the pipeline works,\n"
    "they say nothing about whether models reason better with a canvas."
)


def run_demo(out: Path) -> int:
    """Generate a small suite, solve it in both modes offline, score, compare, write the viewer; return 0."""
    from mcot.commands.compare import run_compare
    from mcot.commands.score import run_score

    started = time.perf_counter()
    paths = prepare_out(out)
    count = generate_suite(paths, figures=DEMO_GEPBENCH_FIGURES, per_task=DEMO_GAMES_PER_TASK, seed=DEMO_SEED)
    typer.echo(f"[1/4] generated {count} items (GePBench easy+hard, every game task) in {paths.items}")
    summary = run_items(
        RunConfig(data=paths.items, model="offline", out=paths.run, modes=MODES, concurrency=2), quiet=True
    )
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.by_status.items()))
    typer.echo(f"[2/4] solved {summary.total} (item, mode) pairs with the offline policy: {statuses}")
    typer.echo("[3/4] scoring")
    run_score(run_dir=paths.run, judge=None, judge_template=None, base_url=None)
    typer.echo("[4/4] text vs canvas")
    run_compare(run_dir=paths.run, run_b=None, out=paths.comparison, force=False)
    viewer = write_viewer(paths.run)
    typer.echo("")
    typer.echo(OFFLINE_NOTE)
    typer.echo("")
    typer.echo(f"done in {time.perf_counter() - started:.0f}s. Where to look:")
    typer.echo(f"  report      {paths.run / 'report.md'} (and report.html)")
    typer.echo(f"  comparison  {paths.comparison}")
    typer.echo(f"  traces      {viewer} (open in a browser)")
    typer.echo(f"  run         {paths.run} (manifest, results, scores, traces, blobs)")
    return 0
