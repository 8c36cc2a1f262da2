"""`mcot imagine`: generate images for GOBench-style prompts (or edit diagrams) with a generator into a run."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcot.commands.run import report_end
from mcot.core.errors import UsageError
from mcot.core.rundir import run_lock
from mcot.imagine import arm_specs, imagine_async
from mcot.progress import on_terminal
from mcot.runconfig import ImagineConfig


def run_imagine(**options: Any) -> int:
    """Generate the images `mcot imagine`'s options ask for, print a summary with the causes of failures; return 0,
    or 3 when any image failed."""

    config = ImagineConfig(**options)
    try:
        with run_lock(config.out, "mcot imagine"):  # one writer per run directory: a second one refuses at once
            summary = asyncio.run(imagine_async(config, bar=on_terminal(sys.stderr)))
    except ValueError as exc:  # a bad generator spec or dataset reaches the user as one line
        raise UsageError(str(exc)) from exc
    arms = "\n".join(f"{arm}: generator {spec}" for arm, spec in arm_specs(config.generator).items())
    return report_end(summary, arms)
