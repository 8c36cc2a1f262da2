"""Errors the CLI turns into exit codes."""


class UsageError(Exception):
    """Bad usage or bad input: the CLI prints the message on one line and exits 2."""
