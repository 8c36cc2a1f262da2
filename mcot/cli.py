"""The `mcot` command line: a thin layer that parses options and calls the command modules lazily."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from mcot.cli_help import CONTEXT_SETTINGS, GeneratorGroup, HelpTyper
from mcot.errors import UsageError
from mcot.options import command
from mcot.oserrors import os_failure
from mcot.runconfig import ImagineConfig, RunConfig
from mcot.rundir import RunDirError

app = HelpTyper(
    name="mcot",
    help="Multimodal chain-of-thought with a canvas: solve, score and trace visual-reasoning benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings=CONTEXT_SETTINGS,
)
gen_app = HelpTyper(help="Generate items with exact ground truth.", no_args_is_help=True, cls=GeneratorGroup)
app.add_typer(gen_app, name="gen")
tools_app = HelpTyper(
    help="List the tools a model can call (with their JSON schemas), or run one on a canvas from the shell."
)
app.add_typer(tools_app, name="tools")
select_app = HelpTyper(
    help="Choose items from scored runs: the hardest share (OmniPhys's Test-Mini).", no_args_is_help=True
)
app.add_typer(select_app, name="select")
env_app = HelpTyper(help="mcot's canvas as a training environment: configs for trainers (docs/training.md).")
app.add_typer(env_app, name="env")
mcp_app = HelpTyper(help="mcot's canvas and tools over the Model Context Protocol (the `mcp` extra; docs/mcp.md).")
app.add_typer(mcp_app, name="mcp")

RUN_HELP = "run directory made by `mcot run` or `mcot imagine`"
GenWorkers = Annotated[
    int | None,
    typer.Option(metavar="N", help="worker processes (or Ray tasks at a time); the same bytes for any N"),
]
ExecutorKind = Annotated[
    str, typer.Option(metavar="KIND", help="local (this machine) or ray (a Ray cluster; the `ray` extra)")
]
RayAddress = Annotated[
    str | None, typer.Option(metavar="ADDR", help="with --executor ray: auto, HOST:PORT or ray://HOST:PORT")
]


def _print_version(value: bool) -> None:
    if value:
        from mcot import __version__

        typer.echo(f"mcot {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", help="print mcot's version and exit", is_eager=True, callback=_print_version),
    ] = False,
) -> None:
    """Multimodal chain-of-thought with a canvas: solve, score and trace visual-reasoning benchmarks."""


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"mcot: {message}", err=True)
    raise typer.Exit(code)


def dispatch(module: str, function: str, **kwargs: Any) -> None:
    """Import `mcot.commands.<module>` only when its command runs (fast start-up), and call it."""
    command_module = importlib.import_module(f"mcot.commands.{module}")
    target: Callable[..., Any] = getattr(command_module, function)
    try:
        code = target(**kwargs)
    except (UsageError, RunDirError) as exc:
        _fail(str(exc))
    except OSError as exc:  # a full disk, a read-only folder, …: one line, never a traceback (mcot/oserrors.py)
        _fail(*os_failure(exc, kwargs))
    else:
        if code:
            raise typer.Exit(int(code))


@app.command()
def demo(
    out: Annotated[
        Path, typer.Option(metavar="DIR", help="where the demo writes its items, runs, report and viewer")
    ] = Path("mcot-demo"),
) -> None:
    """Offline end-to-end: generate items, solve them in the text, canvas and tools arms, score, report, view."""
    dispatch("demo", "run_demo", out=out)


@gen_app.command("gepbench")
def gen_gepbench(
    out: Annotated[Path, typer.Option(metavar="DIR", help="items directory to create (must not hold files)")],
    n: Annotated[
        int,
        typer.Option(
            "--n",
            metavar="FIGURES",
            help="number of figures, not questions: each gives up to 3 questions per aspect, about 13 for an easy "
            "figure and 15 for a hard one (the default 100, half easy, makes about 1,400 questions)",
        ),
    ] = 100,
    seed: Annotated[int, typer.Option(metavar="SEED", help="random seed (same seed, same bytes)")] = 0,
    level: Annotated[
        str, typer.Option(metavar="easy|hard|both", help="figure difficulty; both: the first half easy, then hard")
    ] = "both",
    format: Annotated[
        str,
        typer.Option(
            metavar="items|native|llava",
            help="items: the mcot items directory (items.jsonl, images/, generation.json); native: also the "
            "GePBench release layout (figures/, rules-LEVEL.json, vqa-LEVEL/*.jsonl); llava: also LLaVA training "
            "data, llava-captions.json (a caption per figure) and llava-instructions.json (the questions)",
        ),
    ] = "items",
    native: Annotated[bool, typer.Option("--native", help="the same as --format native (older spelling)")] = False,
    effects: Annotated[
        bool, typer.Option("--effects", help="hard figures: faint texture and occluding white strokes")
    ] = False,
    style: Annotated[
        str, typer.Option(metavar="public|mcot", help="question wording: public (the benchmark's own) or mcot")
    ] = "public",
    noise: Annotated[
        str,
        typer.Option(metavar="paper|release|none", help="hard figures' noise: paper, release (Gaussian only) or none"),
    ] = "paper",
    workers: GenWorkers = None,
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
) -> None:
    """GePBench-style geometric perception items (6 aspects, up to 3 questions each, easy and hard)."""
    dispatch(
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
        format=format,
        workers=workers,
        executor=executor,
        ray_address=ray_address,
    )


@gen_app.command("games")
def gen_games(
    out: Annotated[Path, typer.Option(metavar="DIR", help="items directory to create (must not hold files)")],
    task: Annotated[
        str, typer.Option(metavar="TASK", help="maze, bounce, dart, ray, dots, triangles, or all of them")
    ] = "all",
    n: Annotated[int, typer.Option("--n", metavar="N", help="items per task (one question each)")] = 50,
    seed: Annotated[int, typer.Option(metavar="SEED", help="random seed (same seed, same bytes)")] = 0,
    workers: GenWorkers = None,
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
) -> None:
    """RBench-V-style game and optics items with exact solution geometry."""
    dispatch(
        "gen_games",
        "gen_games",
        out=out,
        task=task,
        n=n,
        seed=seed,
        workers=workers,
        executor=executor,
        ray_address=ray_address,
    )


@gen_app.command("report")
def gen_report(
    data: Annotated[Path, typer.Argument(metavar="DATA", help="items directory made by `mcot gen gepbench`")],
) -> None:
    """Answer-letter balance and validator agreement of a generated items directory."""
    dispatch("gen_gepbench", "gen_report", data=data)


@app.command()
def convert(
    format: Annotated[str, typer.Argument(metavar="FORMAT", help="the benchmark's format: {formats}")],
    src: Annotated[Path, typer.Argument(metavar="SRC", help="the benchmark's native file or directory")],
    out: Annotated[Path, typer.Option(metavar="DIR", help="items directory to create (must not hold files)")],
    generation: Annotated[bool, typer.Option("--generation", help="GOBench: one generation item per scenario")] = False,
    scores: Annotated[
        Path | None, typer.Option(metavar="FILE", help="GOBench: VLMEvalKit TSV with the human scores")
    ] = None,
    mapping: Annotated[
        str | None, typer.Option(metavar="MAPPING", help="OmniPhys: field mapping, a JSON/YAML file or k=v,...")
    ] = None,
) -> None:
    """Convert a benchmark's native files to an mcot items directory."""
    dispatch(
        "convert",
        "run_convert",
        format=format,
        src=src,
        out=out,
        generation=generation,
        scores=scores,
        mapping=mapping,
    )


def _run(**values: Any) -> None:
    dispatch("run", "run_items", **values)


app.command("run")(
    command(
        RunConfig,
        _run,
        name="run",
        doc="Solve items with a model in one or more arms into a resumable run directory (exit 3: some failed, 4: "
        "the --max-cost budget stopped it, 130: interrupted; re-run the same command to resume).",
    )
)


@app.command()
def score(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help=RUN_HELP)],
    judge: Annotated[
        str | None,
        typer.Option(
            metavar="SPEC",
            help="judge model for what rules cannot settle, in the forms of `mcot run --model` (e.g. openai:gpt-4o)",
        ),
    ] = None,
    judge_template: Annotated[Path | None, typer.Option(metavar="FILE", help="your own judge prompt template")] = None,
    base_url: Annotated[str | None, typer.Option(metavar="URL", help="judge API base URL")] = None,
    protocol: Annotated[
        str,
        typer.Option(
            metavar="PROTOCOL",
            help="{protocols}; or both: official in scores.jsonl, robust in scores.robust.jsonl, and where they differ",
        ),
    ] = "official",
    human: Annotated[
        list[Path] | None,
        typer.Option(
            metavar="FILE",
            help="people's ratings saved by `mcot view RUN --rate` (repeat for several raters): the report's "
            '"Judge and people" section, and their verdicts in scores.human.jsonl',
        ),
    ] = None,
) -> None:
    """Score a run with each benchmark's protocol; write scores.jsonl and report.md/html."""
    dispatch(
        "score",
        "run_score",
        run_dir=run_dir,
        judge=judge,
        judge_template=judge_template,
        base_url=base_url,
        protocol=protocol,
        human=human or [],
    )


@app.command()
def compare(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help=f"{RUN_HELP}, scored by `mcot score`")],
    others: Annotated[
        list[Path] | None,
        typer.Argument(metavar="RUN_B", help="more scored runs on the same items (other models, or RUN's arm pair)"),
    ] = None,
    a: Annotated[str | None, typer.Option("--a", metavar="ARM", help="the baseline arm (default: text)")] = None,
    b: Annotated[
        str | None,
        typer.Option("--b", metavar="ARM", help="the arm compared with it (default: canvas, or the other arm)"),
    ] = None,
    arms: Annotated[
        str | None, typer.Option("--arms", metavar="ARMS", help="comma-separated arms compared with text")
    ] = None,
    out: Annotated[Path | None, typer.Option(metavar="FILE", help="write the comparison as markdown here")] = None,
    force: Annotated[bool, typer.Option("--force", help="compare runs that differ in more than the arm")] = False,
) -> None:
    """Arms on the same items: paired differences, intervals, McNemar, Holm, detectable difference, flips."""
    more = list(others or [])
    dispatch("compare", "run_compare", run_dir=run_dir, run_b=more[0] if more else None, more=more[1:],
             a=a, b=b, arms=arms, out=out, force=force)  # fmt: skip


@app.command()
def study(
    study_file: Annotated[Path, typer.Argument(metavar="STUDY.toml", help="the study: data, arms, [[model]]s")],
    out: Annotated[Path, typer.Option(metavar="DIR", help="study folder (re-running the same command resumes it)")],
) -> None:
    """Several models × arms × benchmarks: one resumable run per model, then DIR/study.md and study.html."""
    dispatch("study", "run_study_command", study=study_file, out=out)


@app.command()
def plan(
    baseline: Annotated[float, typer.Option(metavar="P", help="the baseline arm's expected accuracy (0-1)")],
    effect: Annotated[float, typer.Option(metavar="D", help="the difference to detect (e.g. 0.05)")],
    discordance: Annotated[
        float | None, typer.Option(metavar="PSI", help="share of discordant pairs (default: as if independent)")
    ] = None,
    power: Annotated[float, typer.Option(metavar="POWER", help="the power wanted")] = 0.8,
    alpha: Annotated[float, typer.Option(metavar="ALPHA", help="the two-sided test's level")] = 0.05,
) -> None:
    """The paired items a McNemar test needs to detect --effect over --baseline."""
    dispatch("plan", "run_plan", baseline=baseline, effect=effect, discordance=discordance, power=power, alpha=alpha)


@app.command()
def export(
    run_dir: Annotated[
        Path, typer.Argument(metavar="RUN", help=f"{RUN_HELP}, or an items directory (--as verl|trl: prompt rows)")
    ],
    format: Annotated[
        str,
        typer.Option(
            metavar="FORMAT",
            help="{export_formats}",
        ),
    ],
    out: Annotated[Path, typer.Option(metavar="PATH", help="folder to create (jsonl, hf) or file to write (parquet)")],
    as_: Annotated[
        str,
        typer.Option(
            "--as",
            metavar="VIEW",
            help="{export_views}",
        ),
    ] = "records",
    only_correct: Annotated[bool, typer.Option("--only-correct", help="only the pairs scored correct")] = False,
    score: Annotated[
        bool, typer.Option("--score", help="score an unscored run first (official protocol, no judge)")
    ] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="replace an earlier export at --out")] = False,
    toolset: Annotated[
        str | None, typer.Option(metavar="NAME", help="an items directory's arm: the toolset its prompts offer (canvas)")
    ] = None,
) -> None:
    """Export a run as a dataset, one record per (item, arm); failed and budget-stopped traces flagged by status."""
    dispatch(
        "export",
        "run_export",
        run_dir=run_dir,
        format=format,
        out=out,
        view=as_,
        only_correct=only_correct,
        score=score,
        overwrite=overwrite,
        toolset=toolset,
    )


@env_app.command("verl-config")
def env_verl_config(
    out: Annotated[Path, typer.Option(metavar="FILE", help="the YAML file to write (verl's tool_config_path)")],
    toolset: Annotated[str, typer.Option(metavar="NAME", help="the toolset whose tools verl offers")] = "canvas",
    images_root: Annotated[
        Path | None, typer.Option(metavar="DIR", help="where rows' image paths are relative to (a jsonl export)")
    ] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="replace an existing file")] = False,
) -> None:
    """Write the verl tool config of mcot's canvas tools (mcot.env.verl.CanvasTool), one entry per tool."""
    dispatch("env", "write_verl_config", toolset=toolset, out=out, images_root=images_root, overwrite=overwrite)


@env_app.command("serve")
def env_serve(
    toolset: Annotated[str, typer.Option(metavar="NAME", help="the toolset whose tools a step may call")] = "canvas",
    port: Annotated[int, typer.Option(metavar="PORT", help="the port to listen on")] = 8000,
    host: Annotated[str, typer.Option(metavar="HOST", help="the address to listen on (0.0.0.0: every interface)")] = (
        "127.0.0.1"
    ),
    images_root: Annotated[
        Path | None, typer.Option(metavar="DIR", help="where rows' image paths are relative to (a jsonl export)")
    ] = None,
    max_sessions: Annotated[int, typer.Option(metavar="N", help="most sessions (connections) at once")] = 16,
) -> None:
    """Serve the canvas environment as an OpenEnv server: reset / step {"tool", "arguments"} / state (`openenv` extra)."""
    dispatch("serve", "serve_env", toolset=toolset, host=host, port=port, images_root=images_root,
             max_sessions=max_sessions)  # fmt: skip


@mcp_app.command("serve")
def mcp_serve(
    toolset: Annotated[str, typer.Option(metavar="NAME", help="the toolset whose tools the server offers")] = "canvas",
    http: Annotated[
        str | None, typer.Option(metavar="HOST:PORT", help="serve streamable HTTP here instead of stdio")
    ] = None,
    images_root: Annotated[
        Path | None, typer.Option(metavar="DIR", help="the folder start_canvas may read images from (default: .)")
    ] = None,
) -> None:
    """Serve a toolset as an MCP server (stdio by default), one blank canvas per session (docs/mcp.md)."""
    dispatch("serve", "serve_mcp", toolset=toolset, http=http, images_root=images_root)


@app.command()
def view(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="the run directory to view (made by `mcot run`)")],
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="the viewer page to write (default RUN/index.html); its traces go to <page>_files/ beside it",
        ),
    ] = None,
    rate: Annotated[
        bool,
        typer.Option(
            "--rate",
            help="add rating controls (right/wrong, diagram grades, a generated image's questions and scales), "
            "kept in the browser and saved as a JSON file for `mcot score RUN --human FILE`",
        ),
    ] = False,
) -> None:
    """Write the static trace viewer for a run: filters, deep links, side by side, j/k, rating (docs/viewer.md)."""
    dispatch("view", "run_view", run_dir=run_dir, out=out, rate=rate)


def _imagine(**values: Any) -> None:
    dispatch("imagine", "run_imagine", **values)


app.command("imagine")(
    command(
        ImagineConfig,
        _imagine,
        name="imagine",
        doc="Generate GOBench-style optical scenes (or edit diagrams) into a run directory (exit 3: some failed).",
    )
)


@app.command()
def plugins(
    everything: Annotated[
        bool, typer.Option("--all", help="also list what every registry holds, and who declared it")
    ] = False,
) -> None:
    """The installed plugins (entry-point group mcot.plugins) and those that failed to load (exit 1)."""
    dispatch("plugins", "list_plugins", everything=everything)


@tools_app.callback(invoke_without_command=True)
def tools_list(
    ctx: typer.Context,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="print a JSON list instead of text: per tool its name, group, description, parameters (the "
            "JSON Schema of its arguments, as models are sent it) and an example call",
        ),
    ] = False,
) -> None:
    """List the tools a model can call (with their JSON schemas), or run one on a canvas from the shell."""
    if ctx.invoked_subcommand is None:
        dispatch("tools", "list_tools", json_out=json_out)


@tools_app.command("call")
def tools_call(
    name: Annotated[str, typer.Argument(metavar="NAME", help="tool name, as `mcot tools` lists them")],
    arguments: Annotated[str, typer.Argument(metavar="JSON", help="the tool's arguments as a JSON object")] = "{}",
    image: Annotated[Path | None, typer.Option(metavar="FILE", help="base image of the canvas")] = None,
    out: Annotated[Path | None, typer.Option(metavar="FILE", help="write the canvas PNG here")] = None,
    size: Annotated[str, typer.Option(metavar="WxH", help="blank canvas size when there is no --image")] = "640x640",
) -> None:
    """Run one tool on a canvas and print its result as JSON."""
    dispatch("tools", "call_tool", name=name, arguments=arguments, image=image, out=out, size=size)


@select_app.command("hardest")
def select_hardest(
    runs: Annotated[
        list[Path],
        typer.Option(metavar="RUN", help="a scored run directory; more follow it or another --runs"),
    ],
    out: Annotated[Path, typer.Option(metavar="DIR", help="items directory to create (must not hold files)")],
    share: Annotated[
        float, typer.Option(metavar="SHARE", help="the fraction of the items to keep, hardest first (0.10: 10 %)")
    ] = 0.10,
    more: Annotated[
        list[Path] | None,
        typer.Argument(metavar="RUN", help="more scored runs (`--runs A B C`): every model and arm of each counts"),
    ] = None,
) -> None:
    """Write the hardest items by H = 0.75 · failure rate + 0.25 · solution-length percentile, with selection.json."""
    dispatch("select", "run_select_hardest", runs=[*runs, *(more or [])], share=share, out=out)


def main() -> None:
    """Entry point of the `mcot` console script."""
    try:
        app(prog_name="mcot")
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        # The command is over and its files are closed. The interpreter's last garbage collections would walk
        # every object of the loaded libraries (LangGraph, pydantic…): 0.3-1 s of exit. Frozen objects are not
        # walked; the process ends just the same (atexit handlers still run).
        import gc

        gc.freeze()


if __name__ == "__main__":
    main()
