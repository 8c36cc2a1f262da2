"""The `mcot` command line: a thin layer that parses options and calls the command modules lazily."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from mcot.errors import UsageError

app = typer.Typer(
    name="mcot",
    help="Multimodal chain-of-thought with a canvas: solve, score and trace visual-reasoning benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
gen_app = typer.Typer(help="Generate items with exact ground truth.", no_args_is_help=True)
app.add_typer(gen_app, name="gen")
tools_app = typer.Typer(help="List the tools a model can call (with their schemas), or run one.")
app.add_typer(tools_app, name="tools")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"mcot: {message}", err=True)
    raise typer.Exit(code)


BENCHMARK_FREE = frozenset({"gen_gepbench", "gen_games", "convert", "tools"})
"""Command modules that never score or prompt, and so start without loading the benchmark declarations."""


def _dispatch(module: str, function: str, **kwargs: Any) -> None:
    """Import `mcot.commands.<module>` only when its command runs (fast start-up), and call it."""
    if module not in BENCHMARK_FREE:
        from mcot.benchmarks import declare_builtin

        declare_builtin()
    command_module = importlib.import_module(f"mcot.commands.{module}")
    target: Callable[..., Any] = getattr(command_module, function)
    try:
        code = target(**kwargs)
    except UsageError as exc:
        _fail(str(exc))
    else:
        if code:
            raise typer.Exit(int(code))


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="where the demo writes its items, runs and report")] = Path("mcot-demo"),
) -> None:
    """Offline end-to-end: generate items, run text vs canvas with the offline policy, score, report, view."""
    _dispatch("demo", "run_demo", out=out)


@gen_app.command("gepbench")
def gen_gepbench(
    out: Annotated[Path, typer.Option(help="items directory to create")],
    n: Annotated[int, typer.Option("--n", help="number of figures")] = 100,
    seed: Annotated[int, typer.Option(help="random seed (same seed, same bytes)")] = 0,
    level: Annotated[str, typer.Option(help="easy, hard or both")] = "both",
    native: Annotated[bool, typer.Option(help="also write the GePBench native layout")] = False,
    effects: Annotated[bool, typer.Option(help="hard figures: faint texture and occluding white strokes")] = False,
    style: Annotated[str, typer.Option(help="public (the benchmark's own wording) or mcot")] = "public",
    noise: Annotated[str, typer.Option(help="hard figures' noise: paper, release (Gaussian only) or none")] = "paper",
) -> None:
    """GePBench-style geometric perception items (6 aspects, up to 3 questions each, easy and hard)."""
    _dispatch(
        "gen_gepbench",
        "gen_gepbench",
        out=out,
        n=n,
        seed=seed,
        level=level,
        native=native,
        effects=effects,
        style=style,
        noise=noise,
    )


@gen_app.command("games")
def gen_games(
    out: Annotated[Path, typer.Option(help="items directory to create")],
    task: Annotated[str, typer.Option(help="maze, bounce, dart, ray, dots, triangles or all")] = "all",
    n: Annotated[int, typer.Option("--n", help="items per task")] = 50,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
) -> None:
    """RBench-V-style game and optics items with exact solution geometry."""
    _dispatch("gen_games", "gen_games", out=out, task=task, n=n, seed=seed)


@gen_app.command("report")
def gen_report(
    data: Annotated[Path, typer.Argument(help="items directory made by `mcot gen`")],
) -> None:
    """Answer-letter balance and validator agreement of a generated items directory."""
    _dispatch("gen_gepbench", "gen_report", data=data)


@app.command()
def convert(
    format: Annotated[str, typer.Argument(help="rbench-v | gepbench | gobench | omniphys")],
    src: Annotated[Path, typer.Argument(help="the benchmark's native file or directory")],
    out: Annotated[Path, typer.Option(help="items directory to create")],
    generation: Annotated[bool, typer.Option(help="GOBench: one generation item per scenario")] = False,
    scores: Annotated[Path | None, typer.Option(help="GOBench: VLMEvalKit TSV with human scores")] = None,
    mapping: Annotated[str | None, typer.Option(help="OmniPhys: field mapping, JSON/YAML file or k=v,...")] = None,
) -> None:
    """Convert a benchmark's native files to an mcot items directory."""
    _dispatch(
        "convert",
        "run_convert",
        format=format,
        src=src,
        out=out,
        generation=generation,
        scores=scores,
        mapping=mapping,
    )


@app.command()
def run(
    data: Annotated[Path, typer.Option(help="items directory or a benchmark's native files")],
    model: Annotated[str, typer.Option(help="offline | scripted:FILE | openai:M | anthropic:M | openai-compatible:M")],
    out: Annotated[Path, typer.Option(help="run directory (re-running the same command resumes it)")],
    mode: Annotated[
        str,
        typer.Option(
            help="comma-separated arms: text (no tools), canvas (only the canvas tools), "
            "tools (canvas + domain tools), custom (the tools of --tools)"
        ),
    ] = "text,canvas",
    tools: Annotated[
        str | None, typer.Option(help="comma-separated tool names: a custom arm offering exactly these")
    ] = None,
    format: Annotated[str | None, typer.Option(help="native format of --data when not detected")] = None,
    base_url: Annotated[str | None, typer.Option(help="API base URL (overrides the SDK's environment)")] = None,
    concurrency: Annotated[int, typer.Option(help="items solved at once")] = 4,
    limit: Annotated[int | None, typer.Option(help="only the first N items")] = None,
    max_steps: Annotated[int, typer.Option(help="model turns per item in the arms with tools")] = 12,
    seed: Annotated[int | None, typer.Option(help="sampling seed sent to backends that take one")] = None,
    temperature: Annotated[float, typer.Option(help="sampling temperature sent to every backend")] = 0.0,
    max_tries: Annotated[int, typer.Option(help="tries per model call (retries on 429, 5xx, time-outs)")] = 6,
) -> None:
    """Solve items with a model in one or more arms, writing a resumable run directory (exit 3: some failed)."""
    _dispatch(
        "run",
        "run_items",
        data=data,
        model=model,
        out=out,
        mode=mode,
        tools=tools,
        format=format,
        base_url=base_url,
        concurrency=concurrency,
        limit=limit,
        max_steps=max_steps,
        seed=seed,
        temperature=temperature,
        max_tries=max_tries,
    )


@app.command()
def score(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="run directory")],
    judge: Annotated[str | None, typer.Option(help="model SPEC of the judge for what rules cannot settle")] = None,
    judge_template: Annotated[Path | None, typer.Option(help="your own judge prompt template")] = None,
    base_url: Annotated[str | None, typer.Option(help="judge API base URL")] = None,
    protocol: Annotated[
        str,
        typer.Option(
            help="official: each benchmark's published scoring; robust: mcot's own extraction and matching; "
            "both: official in scores.jsonl, robust in scores.robust.jsonl, and where they differ"
        ),
    ] = "official",
) -> None:
    """Score a run with each benchmark's protocol; write scores.jsonl and report.md/html."""
    _dispatch(
        "score",
        "run_score",
        run_dir=run_dir,
        judge=judge,
        judge_template=judge_template,
        base_url=base_url,
        protocol=protocol,
    )


@app.command()
def compare(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="a scored run")],
    run_b: Annotated[Path | None, typer.Argument(metavar="RUN_B", help="a second run to pair with")] = None,
    a: Annotated[str | None, typer.Option("--a", help="the baseline arm (default: text)")] = None,
    b: Annotated[
        str | None, typer.Option("--b", help="the arm compared with it (default: canvas, or the other arm)")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="write the comparison as markdown here")] = None,
    force: Annotated[bool, typer.Option(help="compare runs that differ in more than the arm")] = False,
) -> None:
    """Two arms on the same items: paired differences, bootstrap intervals, McNemar, flips."""
    _dispatch("compare", "run_compare", run_dir=run_dir, run_b=run_b, a=a, b=b, out=out, force=force)


@app.command()
def export(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN")],
    format: Annotated[str, typer.Option(help="jsonl | parquet | hf")],
    out: Annotated[Path, typer.Option(help="output file or directory")],
) -> None:
    """Export a run's traces as a dataset, one record per (item id, mode)."""
    _dispatch("export", "run_export", run_dir=run_dir, format=format, out=out)


@app.command()
def view(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN")],
    out: Annotated[Path | None, typer.Option(help="where to write the viewer (default RUN/index.html)")] = None,
) -> None:
    """Write the static trace viewer for a run."""
    _dispatch("view", "run_view", run_dir=run_dir, out=out)


@app.command()
def imagine(
    data: Annotated[Path, typer.Option(help="GOBench data (one prompt per scenario), or items with image answers")],
    generator: Annotated[str, typer.Option(help="diffusers:PATH | openai-image:MODEL | procedural")],
    out: Annotated[Path, typer.Option(help="run directory (re-running the same command resumes it)")],
    n_per_prompt: Annotated[int, typer.Option(help="images per prompt (each scored on its own)")] = 1,
    seed: Annotated[int | None, typer.Option(help="seed of the first image (sample k uses seed + k)")] = None,
    steps: Annotated[int | None, typer.Option(help="diffusion steps (diffusers)")] = None,
    guidance: Annotated[float | None, typer.Option(help="guidance scale (diffusers)")] = None,
    size: Annotated[str | None, typer.Option(help="image size WIDTHxHEIGHT, e.g. 512x512")] = None,
    base_url: Annotated[str | None, typer.Option(help="API base URL (openai-image)")] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N prompts")] = None,
    concurrency: Annotated[int, typer.Option(help="images generated at once")] = 2,
    max_tries: Annotated[int, typer.Option(help="tries per API call (retries on 429, 5xx, time-outs)")] = 6,
) -> None:
    """Generate GOBench-style optical scenes (or edit diagrams) into a run directory (exit 3: some failed)."""
    _dispatch(
        "imagine",
        "run_imagine",
        data=data,
        generator=generator,
        out=out,
        n_per_prompt=n_per_prompt,
        seed=seed,
        steps=steps,
        guidance=guidance,
        size=size,
        base_url=base_url,
        limit=limit,
        concurrency=concurrency,
        max_tries=max_tries,
    )


@tools_app.callback(invoke_without_command=True)
def tools_list(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="print the schemas as JSON")] = False,
) -> None:
    """List every tool with its description and argument schema."""
    if ctx.invoked_subcommand is None:
        _dispatch("tools", "list_tools", json_out=json_out)


@tools_app.command("call")
def tools_call(
    name: Annotated[str, typer.Argument(help="tool name")],
    arguments: Annotated[str, typer.Argument(help="JSON object of arguments")] = "{}",
    image: Annotated[Path | None, typer.Option(help="base image of the canvas")] = None,
    out: Annotated[Path | None, typer.Option(help="write the canvas PNG here")] = None,
    size: Annotated[str, typer.Option(help="blank canvas WxH when no --image")] = "640x640",
) -> None:
    """Run one tool on a canvas and print its result as JSON."""
    _dispatch("tools", "call_tool", name=name, arguments=arguments, image=image, out=out, size=size)


def main() -> None:
    """Entry point of the `mcot` console script."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
