"""`RunConfig`: everything `mcot run` is asked to do, declared once — the options of `mcot run` (name, help,
default, range), their validation, and the settings the manifest records — and `ImagineConfig`, the same
for `mcot imagine`.

`mcot run --help` is generated from RunConfig's fields (mcot.core.options), and a test checks that every field
with a flag appears there with its default and help. Fields marked `result=True` change results: they form
the manifest's `config`, and a resume with another value is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from mcot.core.errors import UsageError
from mcot.core.inputs import check_folder_or_absent
from mcot.core.options import check, option, result_settings

MAX_CONCURRENCY = 1024
MAX_WORKERS = 256
MAX_SAMPLES = 100
EXECUTORS = ("local", "ray")
DEFAULT_SEED = 0
"""The seed of a run's order of pairs when `--seed` is not given."""
SAMPLE_KEY = "sample_index"
"""The manifest's `config` key naming which of --samples a run directory holds (absent: sample 1)."""


@dataclass(frozen=True)
class RunConfig:
    """Everything `mcot run` was asked to do (one field per option of `mcot run`, plus fixed loop settings).

    Built from the command line or in code; a value outside its option's rule raises UsageError naming the flag.
    """

    data: Path = option(help="items directory (from `mcot gen` or `mcot convert`) or a benchmark's native files",
                        metavar="PATH")  # fmt: skip
    model: str = option(help="the model: {backends}", metavar="SPEC")
    out: Path = option(help="run directory to write (re-running the same command resumes it)", metavar="DIR")
    mode: str = option("text,canvas", metavar="ARMS",
                       help="comma-separated arms: {toolsets}, or custom (the tools of --tools)")  # fmt: skip
    tools: str | None = option(None, metavar="NAMES",
                               help="comma-separated tool names (`mcot tools`): a custom arm offering exactly these")  # fmt: skip
    format: str | None = option(None, metavar="FORMAT",
                                help="native format of --data when it is not detected: {formats}")  # fmt: skip
    base_url: list[str] | None = option(None, metavar="URL",
                                        help="API base URL (overrides the SDK's environment); give it several "
                                        "times for replicas of one model")  # fmt: skip
    concurrency: int = option(4, ge=1, le=MAX_CONCURRENCY, metavar="K",
                              help="most pairs in flight; lowered on 429/overload answers, raised again after")  # fmt: skip
    limit: int | None = option(None, ge=1, metavar="N", help="only the first N items", result=True)
    sample: int | None = option(None, ge=1, metavar="N", result=True,
                                help="a sample of N items stratified by benchmark and category, drawn with --seed "
                                "(0 when not given)")  # fmt: skip
    samples: int = option(1, ge=1, le=MAX_SAMPLES, metavar="K",
                          help="ask each (item, arm) K times at --temperature: sample 1 in DIR, sample k in "
                          "DIR/samples/k, each a resumable run of its own")  # fmt: skip
    max_steps: int = option(12, ge=1, le=200, metavar="N", help="model turns per item in the arms with tools",
                            result=True)  # fmt: skip
    seed: int | None = option(None, metavar="SEED", help="sampling seed sent to backends that take one", result=True)
    temperature: float = option(0.0, ge=0.0, le=2.0, metavar="T",
                                help="sampling temperature sent to every backend", result=True)  # fmt: skip
    max_tries: int = option(6, ge=1, le=20, metavar="N", help="tries per model call (retries on 429, 5xx, time-outs)")
    item_timeout: float = option(600.0, gt=0, metavar="SECONDS", result=True,
                                 manifest="item_timeout_s", rule="must be a positive number of seconds",
                                 help="wall-clock limit of one (item, arm) pair")  # fmt: skip
    request_timeout: float = option(180.0, gt=0, metavar="SECONDS",
                                    rule="must be a positive number of seconds",
                                    help="time-out of one model request (then it is retried)")  # fmt: skip
    max_rpm: float | None = option(None, gt=0, metavar="N", help="most model requests per minute")
    max_tpm: float | None = option(None, gt=0, metavar="N", help="most tokens per minute (estimated)")
    max_cost: float | None = option(None, ge=0, metavar="USD", rule="must be 0 or more dollars",
                                    help="stop starting pairs once the run has spent this much (resume with more)")  # fmt: skip
    cache: Path | None = option(None, metavar="DIR",
                                help="response cache: an identical request is answered from DIR (temperature 0)")  # fmt: skip
    log_every: float = option(30.0, ge=0, metavar="SECONDS",
                              rule="must be 0 (off) or a number of seconds",
                              help="off a terminal, a progress line every SECONDS (0: none)")  # fmt: skip
    workers: int = option(1, ge=1, le=MAX_WORKERS, metavar="N",
                          help="worker processes (each with its own event loop), or Ray actors")  # fmt: skip
    executor: str = option("local", metavar="KIND", help="local (this machine) or ray (a Ray cluster; the `ray` extra)")
    ray_address: str | None = option(None, metavar="ADDR", help="with --executor ray: auto, HOST:PORT or ray://HOST:PORT")
    unsafe_local_code: bool = option(False,
                                     help="run the code arms' model-written Python without the OS sandbox (only "
                                     "its limits); recorded in the manifest and stated atop every report")  # fmt: skip
    mcp: list[str] | None = option(None, metavar="NAME=COMMAND",
                                   help="start an MCP server (stdio) for the run; `--tools NAME:*` offers its tools "
                                   "(repeatable; the `mcp` extra)")  # fmt: skip
    mcp_timeout: float = option(60.0, gt=0, metavar="SECONDS", rule="must be a positive number of seconds",
                                help="with --mcp: time-out of one MCP tool call (then the call fails)")  # fmt: skip
    max_canvas_images: int = option(3, ge=1, cli=False, result=True,
                                    help="canvas images kept in the conversation (older ones become text)")  # fmt: skip
    max_output_tokens: int | None = option(None, ge=1, cli=False, result=True, help="most output tokens per model call")
    sample_index: int = option(1, ge=1, cli=False,
                               help="which of the --samples this run directory holds (1: the run itself)")  # fmt: skip

    def __post_init__(self) -> None:
        check(self)
        if not self.base_url:
            object.__setattr__(self, "base_url", None)
        if self.executor not in EXECUTORS:
            raise UsageError(f"--executor {self.executor!r} is no executor; choose {' or '.join(EXECUTORS)}")
        if self.cache is not None and self.temperature != 0:
            raise UsageError(
                f"--cache works at temperature 0 only (a cached answer would stand in for a new sample at "
                f"--temperature {self.temperature})"
            )
        if self.cache is not None:
            check_folder_or_absent(self.cache, option="--cache", holds="the response cache lives in")
        if self.ray_address is not None and self.executor != "ray":
            raise UsageError("--ray-address goes with --executor ray")
        if self.mcp and (self.workers > 1 or self.executor != "local"):
            raise UsageError("--mcp servers serve this process: give --workers 1 and --executor local with --mcp")
        if self.samples > 1 and self.cache is not None:
            raise UsageError(
                f"--samples {self.samples} with --cache: every sample after the first would be the cached answer "
                "(give one of them)"
            )
        if self.sample is not None and self.limit is not None:
            raise UsageError("--sample and --limit choose the items in two ways: give one of them")

    @cached_property
    def arms(self) -> tuple[Any, ...]:
        """Return the arms `--mode` and `--tools` name (UsageError for an unknown arm or tool)."""
        from mcot.arms import parse_arms

        return parse_arms(self.mode, self.tools)

    def runs_code(self) -> bool:
        """Return whether an arm of the run offers the `python` tool (model-written code)."""
        return any("python" in arm.tools for arm in self.arms)

    def base_urls(self) -> tuple[str, ...]:
        """Return the model's endpoints (none: the SDK's default or its environment variable)."""
        return tuple(self.base_url or ())

    def schedule_seed(self) -> int:
        """Return the seed that draws `--sample`'s items: `--seed`, else 0 (the same for every one of --samples)."""
        return self.seed if self.seed is not None else DEFAULT_SEED

    def order_seed(self) -> int:
        """Return the seed of the run's order of pairs: the items' seed for sample 1, plus k − 1 for sample k."""
        return self.schedule_seed() + self.sample_index - 1

    def backend_seed(self) -> int | None:
        """Return the sampling seed sent to the backends: `--seed` + k − 1 for sample k (None without --seed), so
        that a seeded backend draws each sample anew."""
        return None if self.seed is None else self.seed + self.sample_index - 1

    def result_settings(self) -> dict[str, Any]:
        """Return the manifest's `config`: the settings that change results, by their manifest names, and
        `sample_index` (k) in the run directory of sample k > 1 of --samples."""
        settings = result_settings(self)
        if self.sample_index > 1:
            settings[SAMPLE_KEY] = self.sample_index
        return settings


@dataclass(frozen=True)
class ImagineConfig:
    """Everything `mcot imagine` was asked to do (one field per option of `mcot imagine`)."""

    data: Path = option(help="GOBench data (one prompt per scenario), or items with image answers", metavar="PATH")
    generator: str = option(help="the image generator: {generators}", metavar="SPEC")
    out: Path = option(help="run directory to write (re-running the same command resumes it)", metavar="DIR")
    n_per_prompt: int = option(1, ge=1, le=64, metavar="K", help="images per prompt (each scored on its own)",
                               result=True)  # fmt: skip
    seed: int | None = option(None, metavar="SEED", help="seed of the first image (sample k uses seed + k)", result=True)
    steps: int | None = option(None, ge=1, le=1000, metavar="N", help="diffusion steps (diffusers)", result=True)
    guidance: float | None = option(None, metavar="G", help="guidance scale (diffusers)",
                                    result=True)  # fmt: skip
    size: str | None = option(None, metavar="WxH", help="image size WIDTHxHEIGHT, e.g. 512x512", result=True)
    base_url: str | None = option(None, metavar="URL", help="API base URL (openai-image)")
    limit: int | None = option(None, ge=1, metavar="N", help="only the first N prompts", result=True)
    concurrency: int = option(2, ge=1, le=MAX_CONCURRENCY, metavar="K", help="images generated at once")
    max_tries: int = option(6, ge=1, le=20, metavar="N", help="tries per API call (retries on 429, 5xx, time-outs)")
    format: str | None = option(None, cli=False, help="native format of --data when it is not detected")

    def __post_init__(self) -> None:
        check(self)
        if self.size is not None:
            width, x, height = self.size.strip().lower().partition("x")
            if not (x and width.isdigit() and height.isdigit() and 2 <= len(width) <= 5 and 2 <= len(height) <= 5):
                raise UsageError(f"--size takes WIDTHxHEIGHT in pixels, e.g. 512x512 (got {self.size!r})")
            object.__setattr__(self, "size", f"{int(width)}x{int(height)}")

    def size_pixels(self) -> tuple[int, int] | None:
        """Return (width, height) of `--size`, or None."""
        if self.size is None:
            return None
        width, _, height = self.size.partition("x")
        return int(width), int(height)

    def options(self) -> dict[str, Any]:
        """Return the generation options every arm uses (recorded in the manifest, checked on resume)."""
        size = list(self.size_pixels() or ()) or None
        return {"seed": self.seed, "steps": self.steps, "guidance": self.guidance, "size": size}

    def result_settings(self) -> dict[str, Any]:
        """Return the manifest's `config`: the fields declared `result=True`, the size as [width, height]."""
        return {**result_settings(self), "size": self.options()["size"]}
