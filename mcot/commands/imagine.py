"""`mcot imagine`: generate images for GOBench-style prompts (or edit diagrams) with a generator into a run."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from mcot.commands.run import MAX_CONCURRENCY, report_end
from mcot.errors import UsageError
from mcot.progress import on_terminal
from mcot.rundir import run_lock

_SIZE = re.compile(r"^(\d{2,5})x(\d{2,5})$")


def parse_size(text: str | None) -> tuple[int, int] | None:
    """Return (width, height) from `WxH` (None when not given); raise UsageError on another form."""
    if text is None:
        return None
    match = _SIZE.match(text.strip().lower())
    if match is None:
        raise UsageError(f"--size takes WIDTHxHEIGHT in pixels, e.g. 512x512 (got {text!r})")
    return int(match.group(1)), int(match.group(2))


def run_imagine(
    data: Path,
    generator: str,
    out: Path,
    n_per_prompt: int = 1,
    seed: int | None = None,
    steps: int | None = None,
    guidance: float | None = None,
    size: str | None = None,
    base_url: str | None = None,
    limit: int | None = None,
    concurrency: int = 2,
    max_tries: int = 6,
) -> int:
    """Generate the images, print a summary with the causes of failures; return 0, or 3 when any image failed."""
    from mcot.imagine import ImagineConfig, arm_specs, imagine_async

    if not 1 <= n_per_prompt <= 64:
        raise UsageError("--n-per-prompt must be between 1 and 64")
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    if steps is not None and not 1 <= steps <= 1000:
        raise UsageError("--steps must be between 1 and 1000")
    config = ImagineConfig(
        data=data,
        generator=generator,
        out=out,
        n_per_prompt=n_per_prompt,
        seed=seed,
        steps=steps,
        guidance=guidance,
        size=parse_size(size),
        base_url=base_url,
        limit=limit,
        concurrency=concurrency,
        max_tries=max_tries,
    )
    try:
        with run_lock(out, "mcot imagine"):  # one writer per run directory: a second one refuses at once
            summary = asyncio.run(imagine_async(config, bar=on_terminal(sys.stderr)))
    except ValueError as exc:  # a bad generator spec or dataset reaches the user as one line
        raise UsageError(str(exc)) from exc
    arms = "\n".join(f"{arm}: generator {spec}" for arm, spec in arm_specs(generator).items())
    return report_end(summary, arms)
