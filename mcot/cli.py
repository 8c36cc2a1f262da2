"""The `mcot` command line: a thin layer that parses options and calls the command modules lazily.

Each command is one `_declare(group, name, Options, module, function, help)`: its parameters are generated from
the declaration `Options` (mcot/command_options.py, mcot/runconfig.py), checked by it, and passed to
`mcot.commands.<module>.<function>`, imported only when the command runs (docs/extending.md).
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from mcot.cli_help import CONTEXT_SETTINGS, GeneratorGroup, HelpTyper
from mcot.command_options import (
    CompareOptions,
    ConvertOptions,
    DemoOptions,
    EnvServeOptions,
    ExportOptions,
    GamesOptions,
    GenReportOptions,
    GepbenchOptions,
    McpServeOptions,
    PlanOptions,
    PluginsOptions,
    ProbeOptions,
    ScoreOptions,
    SelectHardestOptions,
    StudyOptions,
    ToolCallOptions,
    ToolsListOptions,
    VerlConfigOptions,
    ViewOptions,
)
from mcot.core.options import command
from mcot.dispatch import dispatch
from mcot.runconfig import ImagineConfig, RunConfig

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
TOOLS_HELP = "List the tools a model can call (with their JSON schemas), or run one on a canvas from the shell."
tools_app = HelpTyper(help=TOOLS_HELP)
app.add_typer(tools_app, name="tools")
select_app = HelpTyper(
    help="Choose items from scored runs: the hardest share (OmniPhys's Test-Mini).", no_args_is_help=True
)
app.add_typer(select_app, name="select")
env_app = HelpTyper(help="mcot's canvas as a training environment: configs for trainers (docs/training.md).")
app.add_typer(env_app, name="env")
mcp_app = HelpTyper(help="mcot's canvas and tools over the Model Context Protocol (the `mcp` extra; docs/mcp.md).")
app.add_typer(mcp_app, name="mcp")


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


def _declare(group: typer.Typer, name: str, config: type[Any], module: str, function: str, doc: str) -> None:
    """Add the command `name` to `group`: its parameters are `config`'s fields, and it runs
    `mcot.commands.<module>.<function>` with them."""

    def body(**values: Any) -> None:
        dispatch(module, function, config, **values)

    generated = command(config, body, name=name.replace("-", "_"), doc=doc)
    generated.target = (module, function)  # type: ignore[attr-defined]
    group.command(name)(generated)


_declare(
    app,
    "demo",
    DemoOptions,
    "demo",
    "run_demo",
    "Offline end-to-end: generate items, solve them in the text, canvas and tools arms, score, report, view.",
)
_declare(
    gen_app,
    "gepbench",
    GepbenchOptions,
    "gen_gepbench",
    "gen_gepbench",
    "GePBench-style geometric perception items (6 aspects, up to 3 questions each, easy and hard).",
)
_declare(
    gen_app,
    "games",
    GamesOptions,
    "gen_games",
    "gen_games",
    "RBench-V-style game and optics items with exact solution geometry.",
)
_declare(
    gen_app,
    "report",
    GenReportOptions,
    "gen_gepbench",
    "gen_report",
    "Answer-letter balance and validator agreement of a generated items directory.",
)
_declare(
    app,
    "convert",
    ConvertOptions,
    "convert",
    "run_convert",
    "Convert a benchmark's native files to an mcot items directory.",
)
_declare(
    app,
    "run",
    RunConfig,
    "run",
    "run_items",
    "Solve items with a model in one or more arms into a resumable run directory (exit 3: some failed, 4: the "
    "--max-cost budget stopped it, 130: interrupted; re-run the same command to resume).",
)
_declare(
    app,
    "score",
    ScoreOptions,
    "score",
    "run_score",
    "Score a run with each benchmark's protocol; write scores.jsonl and report.md/html.",
)
_declare(
    app,
    "compare",
    CompareOptions,
    "compare",
    "run_compare",
    "Arms on the same items: paired differences, intervals, McNemar, Holm, detectable difference, flips.",
)
_declare(
    app,
    "probe",
    ProbeOptions,
    "probe",
    "run_probe",
    "Does the drawing matter? Ask the run's model again for an arm's final answers with its own drawings removed, "
    "swapped or moved; RUN/probes.jsonl (exit 3: some probes failed, 4: --max-cost stopped it).",
)
_declare(
    app,
    "study",
    StudyOptions,
    "study",
    "run_study_command",
    "Several models × arms × benchmarks: one resumable run per model, then DIR/study.md and study.html.",
)
_declare(
    app,
    "plan",
    PlanOptions,
    "plan",
    "run_plan",
    "The paired items a McNemar test needs to detect --effect over --baseline.",
)
_declare(
    app,
    "export",
    ExportOptions,
    "export",
    "run_export",
    "Export a run as a dataset, one record per (item, arm); failed and budget-stopped traces flagged by status.",
)
_declare(
    env_app,
    "verl-config",
    VerlConfigOptions,
    "env",
    "write_verl_config",
    "Write the verl tool config of mcot's canvas tools (mcot.env.verl.CanvasTool), one entry per tool.",
)
_declare(
    env_app,
    "serve",
    EnvServeOptions,
    "serve",
    "serve_env",
    'Serve the canvas environment as an OpenEnv server: reset / step {"tool", "arguments"} / state (`openenv` extra).',
)
_declare(
    mcp_app,
    "serve",
    McpServeOptions,
    "serve",
    "serve_mcp",
    "Serve a toolset as an MCP server (stdio by default), one blank canvas per session (docs/mcp.md).",
)
_declare(
    app,
    "view",
    ViewOptions,
    "view",
    "run_view",
    "Write the static trace viewer for a run: filters, deep links, side by side, j/k, rating (docs/viewer.md).",
)
_declare(
    app,
    "imagine",
    ImagineConfig,
    "imagine",
    "run_imagine",
    "Generate GOBench-style optical scenes (or edit diagrams) into a run directory (exit 3: some failed).",
)
_declare(
    app,
    "plugins",
    PluginsOptions,
    "plugins",
    "list_plugins",
    "The installed plugins (entry-point group mcot.plugins) and those that failed to load (exit 1).",
)
_declare(
    tools_app, "call", ToolCallOptions, "tools", "call_tool", "Run one tool on a canvas and print its result as JSON."
)
_declare(
    select_app,
    "hardest",
    SelectHardestOptions,
    "select",
    "run_select_hardest",
    "Write the hardest items by H = 0.75 · failure rate + 0.25 · solution-length percentile, with selection.json.",
)


def _tools_list(ctx: typer.Context, **values: Any) -> None:
    if ctx.invoked_subcommand is None:  # `mcot tools call …` runs its own command
        dispatch("tools", "list_tools", ToolsListOptions, **values)


_tools = command(ToolsListOptions, _tools_list, name="tools", doc=TOOLS_HELP, context=True)
_tools.target = ("tools", "list_tools")  # type: ignore[attr-defined]
tools_app.callback(invoke_without_command=True)(_tools)


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
