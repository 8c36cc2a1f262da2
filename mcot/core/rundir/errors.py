"""The errors of the run-directory package: each message names the file and what to do about it."""

from __future__ import annotations


class RunDirError(ValueError):
    """A run directory (or one of its files) is missing, malformed, or belongs to another experiment."""


class RunInUseError(RunDirError):
    """Another mcot process holds the run directory's lock: one writer at a time."""
