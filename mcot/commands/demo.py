"""`mcot demo`: offline end-to-end on generated items with the offline policy (a scripted tool user)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from mcot.arms import describe_arms, parse_arms
from mcot.command_options import DemoOptions
from mcot.commands.compare import comparison_markdown
from mcot.commands.score import run_score
from mcot.core.options import validated
from mcot.core.rundir import run_lock, write_text_atomic
from mcot.demo import DEMO_GAMES_PER_TASK, DEMO_GEPBENCH_FIGURES, DEMO_SEED, generate_suite, prepare_out
from mcot.eval.caveats import OFFLINE_NOTE
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.tools.code.sandbox import sandbox_problem
from mcot.viewer import write_viewer

DEMO_ARMS = "text,canvas,tools,code"
"""The demo's arms; `code` (the offline policy writing Python for the maze and dart items) only where the sandbox
starts (`demo_arms`)."""


def demo_arms() -> str:
    """Return the arms the demo runs: DEMO_ARMS, without `code` (said in one line) where the sandbox cannot start."""

    problem = sandbox_problem()
    if problem is None:
        return DEMO_ARMS
    typer.echo(f"the demo skips the code arm: {problem}", err=True)
    return ",".join(arm for arm in DEMO_ARMS.split(",") if arm != "code")


def offline_caveat(arms: str = DEMO_ARMS) -> str:
    """Return the demo's caveat: what the offline policy is, and which tools each arm offered."""
    return f"{OFFLINE_NOTE}\n\nArms and the tools each offered:\n{describe_arms(parse_arms(arms))}"


@validated(DemoOptions)
def run_demo(out: Path) -> int:
    """Generate a small suite, solve it in the three arms offline, score, compare, write the viewer; return 0."""

    started = time.perf_counter()
    with run_lock(Path(out), "mcot demo"):  # one demo per folder: a second one refuses before clearing anything
        return _demo(Path(out), started)


def _demo(out: Path, started: float) -> int:
    paths = prepare_out(out)
    count = generate_suite(paths, figures=DEMO_GEPBENCH_FIGURES, per_task=DEMO_GAMES_PER_TASK, seed=DEMO_SEED)
    typer.echo(f"[1/4] generated {count} items (GePBench easy+hard, every game task) in {paths.items}")
    arms = demo_arms()
    config = RunConfig(data=paths.items, model="offline", out=paths.run, mode=arms, concurrency=2)
    summary = run_items(config, quiet=True)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.by_status.items()))
    typer.echo(f"[2/4] solved {summary.total} (item, arm) pairs with the offline policy: {statuses}")
    caveat = offline_caveat(arms)
    typer.echo("[3/4] scoring")
    typer.echo(caveat + "\n")
    run_score(run_dir=paths.run, judge=None, judge_template=None, base_url=None)
    compared = [arm for arm in arms.split(",") if arm != "text"]
    typer.echo(f"[4/4] {', '.join(f'text vs {arm}' for arm in compared)}")
    sections = [comparison_markdown(paths.run, a="text", b=arm) for arm in compared]
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
