"""The options of every `mcot` command but `run` and `imagine` (mcot/runconfig.py), declared once.

One dataclass per command: each field is one option or argument — flag, placeholder, help, default and bounds
(mcot.core.options.option). `mcot.cli` generates the command's parameters from it, its `__post_init__` refuses a bad
value naming the flag, and the command function in `mcot/commands/` takes the fields as its keyword arguments
(decorated `@validated(Options)`, so a call from Python is checked the same way). Light on purpose: `mcot --help`
imports this module and nothing of what the commands do; the classes are not frozen, since building a frozen
dataclass costs `mcot --help` a few milliseconds more each.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcot.core.options import check, option

MAX_ITEMS_PER_TASK = 100_000
"""The most items per task `mcot gen games --n` makes."""
MAX_FIGURES = 1_000_000
"""The most figures `mcot gen gepbench --n` makes."""
MAX_GENERATED_ITEMS = 1_000_000
"""The most items `mcot gen NAME --n` asks a declared item generator for."""

ITEMS_OUT = "items directory to create (must not hold files)"
RUN_HELP = "run directory made by `mcot run` or `mcot imagine`"
SEED_HELP = "random seed (same seed, same bytes)"


class _Checked:
    """Mixin: a declaration's values are coerced and checked against their rules when it is built."""

    def __post_init__(self) -> None:
        check(self)


@dataclass(kw_only=True)
class DemoOptions(_Checked):
    """`mcot demo`."""

    out: Path = option(
        Path("mcot-demo"), metavar="DIR", help="where the demo writes its items, runs, report and viewer"
    )


def _workers() -> int | None:
    """Return the declaration of a generator's `--workers` (shared by the built-in generators)."""
    return option(None, metavar="N", help="worker processes (or Ray tasks at a time); the same bytes for any N")


def _executor() -> str:
    """Return the declaration of a generator's `--executor`."""
    return option("local", metavar="KIND", help="local (this machine) or ray (a Ray cluster; the `ray` extra)")


def _ray_address() -> str | None:
    """Return the declaration of a generator's `--ray-address`."""
    return option(None, metavar="ADDR", help="with --executor ray: auto, HOST:PORT or ray://HOST:PORT")


@dataclass(kw_only=True)
class GepbenchOptions(_Checked):
    """`mcot gen gepbench`."""

    out: Path = option(metavar="DIR", help=ITEMS_OUT)
    n: int = option(100, ge=1, le=MAX_FIGURES, metavar="FIGURES", rule=f"must be between 1 and {MAX_FIGURES:,} figures",
                    help="number of figures, not questions: each gives up to 3 questions per aspect, about 13 for an "
                    "easy figure and 15 for a hard one (the default 100, half easy, makes about 1,400 questions)")  # fmt: skip
    seed: int = option(0, metavar="SEED", help=SEED_HELP)
    level: str = option(
        "both", metavar="easy|hard|both", help="figure difficulty; both: the first half easy, then hard"
    )
    format: str = option("items", metavar="items|native|llava",
                         help="items: the mcot items directory (items.jsonl, images/, generation.json); native: also "
                         "the GePBench release layout (figures/, rules-LEVEL.json, vqa-LEVEL/*.jsonl); llava: also "
                         "LLaVA training data, llava-captions.json (a caption per figure) and llava-instructions.json "
                         "(the questions)")  # fmt: skip
    native: bool = option(False, help="the same as --format native (older spelling)")
    effects: bool = option(False, help="hard figures: faint texture and occluding white strokes")
    style: str = option("public", metavar="public|mcot", help="question wording: public (the benchmark's own) or mcot")
    noise: str = option("paper", metavar="paper|release|none",
                        help="hard figures' noise: paper, release (Gaussian only) or none")  # fmt: skip
    workers: int | None = _workers()
    executor: str = _executor()
    ray_address: str | None = _ray_address()


@dataclass(kw_only=True)
class GamesOptions(_Checked):
    """`mcot gen games`."""

    out: Path = option(metavar="DIR", help=ITEMS_OUT)
    task: str = option("all", metavar="TASK", help="maze, bounce, dart, ray, dots, triangles, or all of them")
    n: int = option(50, ge=1, le=MAX_ITEMS_PER_TASK, metavar="N", help="items per task (one question each)",
                    rule=f"must be between 1 and {MAX_ITEMS_PER_TASK} items per task")  # fmt: skip
    seed: int = option(0, metavar="SEED", help=SEED_HELP)
    workers: int | None = _workers()
    executor: str = _executor()
    ray_address: str | None = _ray_address()


@dataclass(kw_only=True)
class GenReportOptions(_Checked):
    """`mcot gen report`."""

    data: Path = option(argument=True, metavar="DATA", help="items directory made by `mcot gen gepbench`")


@dataclass(kw_only=True)
class GenItemsOptions(_Checked):
    """`mcot gen NAME`, one command per declared item generator (NAME is the command, not an option)."""

    name: str = option(cli=False, help="the declared item generator")
    out: Path = option(metavar="DIR", help=ITEMS_OUT)
    n: int = option(100, ge=1, le=MAX_GENERATED_ITEMS, metavar="N", help="number of items")
    seed: int = option(0, metavar="SEED", help=SEED_HELP)


@dataclass(kw_only=True)
class ConvertOptions(_Checked):
    """`mcot convert`."""

    format: str = option(argument=True, metavar="FORMAT", help="the benchmark's format: {formats}")
    src: Path = option(argument=True, metavar="SRC", help="the benchmark's native file or directory")
    out: Path = option(metavar="DIR", help=ITEMS_OUT)
    generation: bool = option(False, help="GOBench: one generation item per scenario")
    scores: Path | None = option(None, metavar="FILE", help="GOBench: VLMEvalKit TSV with the human scores")
    mapping: str | None = option(None, metavar="MAPPING", help="OmniPhys: field mapping, a JSON/YAML file or k=v,...")


@dataclass(kw_only=True)
class ScoreOptions(_Checked):
    """`mcot score`."""

    run_dir: Path = option(argument=True, metavar="RUN", help=RUN_HELP)
    judge: str | None = option(None, metavar="SPEC",
                               help="judge model for what rules cannot settle, in the forms of `mcot run --model` "
                               "(e.g. openai:gpt-4o)")  # fmt: skip
    judge_template: Path | None = option(None, metavar="FILE", help="your own judge prompt template")
    base_url: str | None = option(None, metavar="URL", help="judge API base URL")
    protocol: str = option("official", metavar="PROTOCOL",
                           help="{protocols}; or both: official in scores.jsonl, robust in scores.robust.jsonl, and "
                           "where they differ")  # fmt: skip
    human: list[Path] | None = option(None, metavar="FILE",
                                      help="people's ratings saved by `mcot view RUN --rate` (repeat for several "
                                      "raters): the report's \"Judge and people\" section, and their verdicts in "
                                      "scores.human.jsonl")  # fmt: skip


@dataclass(kw_only=True)
class CompareOptions(_Checked):
    """`mcot compare`."""

    run_dir: Path = option(argument=True, metavar="RUN", help=f"{RUN_HELP}, scored by `mcot score`")
    more: list[Path] | None = option(None, argument=True, metavar="RUN_B",
                                     help="more scored runs on the same items (other models, or RUN's arm pair)")  # fmt: skip
    a: str | None = option(None, metavar="ARM", help="the baseline arm (default: text)")
    b: str | None = option(None, metavar="ARM", help="the arm compared with it (default: canvas, or the other arm)")
    arms: str | None = option(None, metavar="ARMS", help="comma-separated arms compared with text")
    out: Path | None = option(None, metavar="FILE", help="write the comparison as markdown here")
    force: bool = option(False, help="compare runs that differ in more than the arm")


@dataclass(kw_only=True)
class StudyOptions(_Checked):
    """`mcot study`."""

    study: Path = option(argument=True, metavar="STUDY.toml", help="the study: data, arms, [[model]]s")
    out: Path = option(metavar="DIR", help="study folder (re-running the same command resumes it)")


@dataclass(kw_only=True)
class PlanOptions(_Checked):
    """`mcot plan`."""

    baseline: float = option(metavar="P", help="the baseline arm's expected accuracy (0-1)")
    effect: float = option(metavar="D", help="the difference to detect (e.g. 0.05)")
    discordance: float | None = option(None, metavar="PSI",
                                       help="share of discordant pairs (default: as if independent)")  # fmt: skip
    power: float = option(0.8, gt=0, lt=1, metavar="POWER", help="the power wanted")
    alpha: float = option(0.05, gt=0, lt=1, metavar="ALPHA", help="the two-sided test's level")


@dataclass(kw_only=True)
class ExportOptions(_Checked):
    """`mcot export`."""

    run_dir: Path = option(argument=True, metavar="RUN",
                           help=f"{RUN_HELP}, or an items directory (--as verl|trl: prompt rows)")  # fmt: skip
    more: list[Path] | None = option(None, argument=True, metavar="MORE_RUNS",
                                     help="more runs exported with RUN into one dataset (a study's models); "
                                     "splits keep each cluster whole across them")  # fmt: skip
    format: str = option(metavar="FORMAT", help="{export_formats}")
    out: Path = option(metavar="PATH", help="folder to create (jsonl, hf) or file to write (parquet)")
    view: str = option("records", flag="--as", metavar="VIEW", help="{export_views}")
    only_correct: bool = option(False, help="only the pairs scored correct")
    mode: list[str] | None = option(None, metavar="ARMS", help="only these arms (comma-separated, or repeat it)")
    benchmark: list[str] | None = option(None, metavar="NAMES",
                                         help="only the items of these benchmarks (comma-separated, or repeat it)")  # fmt: skip
    split: str | None = option(None, metavar="NAME=FRACTION,...",
                               help="write a part per split (e.g. train=0.9,val=0.1), whole clusters (a GePBench "
                               "figure, a game's scene, an item) to each; --out is then a folder")  # fmt: skip
    seed: int = option(0, metavar="SEED", help="the seed the splits' clusters are shuffled with")
    tokenizer: str | None = option(None, metavar="PATH_OR_NAME",
                                   help="the trainer's Hugging Face tokenizer: count the records' tokens with its "
                                   "chat template (default: estimated as characters / 4)")  # fmt: skip
    score: bool = option(False, help="score an unscored run first (official protocol, no judge)")
    overwrite: bool = option(False, help="replace an earlier export at --out")
    toolset: str | None = option(None, metavar="NAME",
                                 help="an items directory's arm: the toolset its prompts offer (canvas)")  # fmt: skip
    allow_partial: bool = option(False, help="exit 0 when images, turns or records are left out (still said)")


@dataclass(kw_only=True)
class VerlConfigOptions(_Checked):
    """`mcot env verl-config`."""

    out: Path = option(metavar="FILE", help="the YAML file to write (verl's tool_config_path)")
    toolset: str = option("canvas", metavar="NAME", help="the toolset whose tools verl offers")
    images_root: Path | None = option(None, metavar="DIR",
                                      help="where rows' image paths are relative to (a jsonl export)")  # fmt: skip
    overwrite: bool = option(False, help="replace an existing file")


@dataclass(kw_only=True)
class EnvServeOptions(_Checked):
    """`mcot env serve`."""

    toolset: str = option("canvas", metavar="NAME", help="the toolset whose tools a step may call")
    port: int = option(8000, ge=1, le=65535, metavar="PORT", help="the port to listen on")
    host: str = option("127.0.0.1", metavar="HOST", help="the address to listen on (0.0.0.0: every interface)")
    images_root: Path | None = option(None, metavar="DIR",
                                      help="where rows' image paths are relative to (a jsonl export)")  # fmt: skip
    max_sessions: int = option(16, ge=1, le=1024, metavar="N", help="most sessions (connections) at once")


@dataclass(kw_only=True)
class McpServeOptions(_Checked):
    """`mcot mcp serve`."""

    toolset: str = option("canvas", metavar="NAME", help="the toolset whose tools the server offers")
    http: str | None = option(None, metavar="HOST:PORT", help="serve streamable HTTP here instead of stdio")
    images_root: Path | None = option(None, metavar="DIR",
                                      help="the folder start_canvas may read images from (default: .)")  # fmt: skip


@dataclass(kw_only=True)
class ViewOptions(_Checked):
    """`mcot view`."""

    run_dir: Path = option(argument=True, metavar="RUN", help="the run directory to view (made by `mcot run`)")
    out: Path | None = option(None, metavar="FILE",
                              help="the viewer page to write (default RUN/index.html); its traces go to "
                              "<page>_files/ beside it")  # fmt: skip
    rate: bool = option(False, help="add rating controls (right/wrong, diagram grades, a generated image's questions "
                        "and scales), kept in the browser and saved as a JSON file for `mcot score RUN --human FILE`")  # fmt: skip


@dataclass(kw_only=True)
class PluginsOptions(_Checked):
    """`mcot plugins`."""

    everything: bool = option(False, flag="--all", help="also list what every registry holds, and who declared it")


@dataclass(kw_only=True)
class ToolsListOptions(_Checked):
    """`mcot tools`."""

    json_out: bool = option(False, flag="--json",
                            help="print a JSON list instead of text: per tool its name, group, description, "
                            "parameters (the JSON Schema of its arguments, as models are sent it) and an example call")  # fmt: skip


@dataclass(kw_only=True)
class ToolCallOptions(_Checked):
    """`mcot tools call`."""

    name: str = option(argument=True, metavar="NAME", help="tool name, as `mcot tools` lists them")
    arguments: str = option("{}", argument=True, metavar="JSON", help="the tool's arguments as a JSON object")
    image: Path | None = option(None, metavar="FILE", help="base image of the canvas")
    out: Path | None = option(None, metavar="FILE", help="write the canvas PNG here")
    size: str = option("640x640", metavar="WxH", help="blank canvas size when there is no --image")


@dataclass(kw_only=True)
class SelectHardestOptions(_Checked):
    """`mcot select hardest`."""

    runs: list[Path] = option(metavar="RUN", help="a scored run directory; more follow it or another --runs")
    out: Path = option(metavar="DIR", help=ITEMS_OUT)
    share: float = option(0.10, metavar="SHARE", help="the fraction of the items to keep, hardest first (0.10: 10 %)")
    more: list[Path] | None = option(None, argument=True, metavar="RUN",
                                     help="more scored runs (`--runs A B C`): every model and arm of each counts")  # fmt: skip


@dataclass(kw_only=True)
class ProbeOptions(_Checked):
    """`mcot probe`."""

    run_dir: Path = option(argument=True, metavar="RUN", help="run directory made by `mcot run`")
    arm: str = option(metavar="ARM", help="the arm whose finished pairs are probed (canvas, tools, code, …)")
    kinds: str = option("blank,shuffle,perturb", metavar="KINDS",
                        help="comma-separated probes: blank (the drawing removed), shuffle (another item's drawings), "
                        "perturb (the drawing moved by --shift, or mirrored with --mirror)")  # fmt: skip
    limit: int | None = option(None, ge=1, metavar="N", help="only the arm's first N finished pairs (items' order)")
    seed: int = option(0, metavar="SEED", help="seed of shuffle's choice of the item whose drawings are shown")
    shift: float = option(20.0, ge=-4096, le=4096, metavar="PX",
                          help="perturb: pixels the model's elements move right and down")  # fmt: skip
    mirror: bool = option(False, help="perturb: mirror the model's elements about the canvas's vertical centre line")
    protocol: str = option("official", metavar="PROTOCOL", help="the protocol that reads the answers: {protocols}")
    cache: Path | None = option(None, metavar="DIR",
                                help="response cache: an identical request is answered from DIR (temperature 0)")  # fmt: skip
    max_cost: float | None = option(None, gt=0, metavar="USD", help="stop starting probes once they cost this much")
    concurrency: int = option(4, ge=1, le=1024, metavar="K", help="most probes in flight")
    max_tries: int = option(6, ge=1, le=20, metavar="N", help="tries per model call (retries on 429, 5xx, time-outs)")
