"""`mcot demo`: offline end-to-end on generated items with the offline policy (a scripted tool user)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from mcot.arms import describe_arms, parse_arms
from mcot.command_options import DemoOptions
from mcot.demo import DEMO_GAMES_PER_TASK, DEMO_GEPBENCH_FIGURES, DEMO_SEED, generate_suite, prepare_out
from mcot.eval.caveats import OFFLINE_NOTE
from mcot.options import validated
from mcot.runconfig import RunConfig
from mcot.rundir import write_text_atomic
from mcot.runner import run_items
from mcot.viewer import write_viewer

DEMO_ARMS = "text,canvas,tools"


def offline_caveat(arms: str = DEMO_ARMS) -> str:
    """Return the demo's caveat: what the offline policy is, and which tools each arm offered."""
    return f"{OFFLINE_NOTE}\n\nArms and the tools each offered:\n{describe_arms(parse_arms(arms))}"


@validated(DemoOptions)
def run_demo(out: Path) -> int:
    """Generate a small suite, solve it in the three arms offline, score, compare, write the viewer; return 0."""
    from mcot.commands.compare import comparison_markdown
    from mcot.commands.score import run_score

    started = time.perf_counter()
    paths = prepare_out(out)
    count = generate_suite(paths, figures=DEMO_GEPBENCH_FIGURES, per_task=DEMO_GAMES_PER_TASK, seed=DEMO_SEED)
    typer.echo(f"[1/4] generated {count} items (GePBench easy+hard, every game task) in {paths.items}")
    config = RunConfig(data=paths.items, model="offline", out=paths.run, mode=DEMO_ARMS, concurrency=2)
    summary = run_items(config, quiet=True)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.by_status.items()))
    typer.echo(f"[2/4] solved {summary.total} (item, arm) pairs with the offline policy: {statuses}")
    caveat = offline_caveat()
    typer.echo("[3/4] scoring")
    typer.echo(caveat + "\n")
    run_score(run_dir=paths.run, judge=None, judge_template=None, base_url=None)
    typer.echo("[4/4] text vs canvas, text vs tools")
    sections = [comparison_markdown(paths.run, a="text", b=arm) for arm in ("canvas", "tools")]
    text = "# mcot demo — arms compared\n\n" + caveat.replace("\n", "  \n") + "\n\n" + "\n".join(sections)
    write_text_atomic(paths.comparison, text)
    typer.echo("\n".join(sections))
    viewer = write_viewer(paths.run)
    typer.echo("\nRemember: the offline policy is a scripted tool user, not a model (the note above says what it is).")
    typer.echo(f"done in {time.perf_counter() - started:.0f}s. Where to look:")
    typer.echo(f"  report      {paths.run / 'report.md'} (and report.html)")
    typer.echo(f"  comparison  {paths.comparison}")
    typer.echo(f"  traces      {viewer} (open in a browser)")
    typer.echo(f"  run         {paths.run} (manifest, results, scores, traces, blobs)")
    return 0
