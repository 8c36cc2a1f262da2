"""The limits of a code session: what a cell may use, and how much of what it produces comes back to the model."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class CodeLimits:
    """What one code session may use (set inside the sandbox with setrlimit, the wall clock by the parent) and
    how much of a cell's output is returned (the rest is cut, and the model is told what was cut).

    `memory_mb` bounds the session's address space (a 50 GB allocation fails with MemoryError); `cpu_s` its
    total CPU time; `file_mb` any one file it writes; `scratch_mb` the writable scratch folder (`/scratch`, a
    tmpfs of that size, also the home and temporary folder); `open_files` its file descriptors; `cell_s` the
    wall clock of one cell (then it is interrupted, and restarted if it does not stop); `start_s` the wall
    clock of a session's start. New processes are refused outright (only threads may start), so there is no
    process count to tune.
    """

    memory_mb: int = 2048
    cpu_s: int = 600
    file_mb: int = 64
    scratch_mb: int = 128
    open_files: int = 256
    cell_s: float = 20.0
    start_s: float = 60.0
    cell_chars: int = 100_000
    output_chars: int = 8_000
    images_per_cell: int = 4
    image_max_side: int = 2048
    image_max_pixels: int = 4_194_304

    def manifest_entry(self) -> dict[str, Any]:
        """Return the limits as the run manifest records them (every field by name)."""
        return asdict(self)


DEFAULT_LIMITS = CodeLimits()
"""The limits every code arm runs under unless a caller passes others."""


def prompt_listing(limits: CodeLimits = DEFAULT_LIMITS) -> str:
    """Return the limits of a session as the code arms' system prompts state them (one sentence)."""
    return (
        f"Each cell may run for {limits.cell_s:g} s; the session has {limits.memory_mb:,} MB of memory, "
        f"{limits.cpu_s} s of CPU time and a writable folder /scratch of {limits.scratch_mb} MB; it has no network "
        f"and cannot start programs. Of a cell's output you get at most {limits.output_chars:,} characters and "
        f"{limits.images_per_cell} images of at most {limits.image_max_side} pixels a side."
    )
