"""Running a command: its values checked against its declaration, then its module imported and called.

`mcot.cli` declares the commands and `mcot.cli_help` builds those of declared item generators; both run them
through `dispatch`, which turns a usage error, a run-directory error or an OSError into one line on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from mcot.core.errors import UsageError
from mcot.core.options import arguments
from mcot.core.oserrors import os_failure
from mcot.core.ref import Ref
from mcot.core.rundir import RunDirError


def fail(message: str, code: int = 2) -> None:
    """Print `mcot: message` on stderr and exit with `code` (2: a usage or input error)."""
    typer.echo(f"mcot: {message}", err=True)
    raise typer.Exit(code)


def dispatch(module: str, function: str, config: type[Any], **values: Any) -> None:
    """Check the values against the command's declaration `config`, then import `mcot.commands.<module>` (only
    when its command runs: fast start-up) and call its `function` with them."""
    kwargs = values
    try:
        kwargs = arguments(config(**values))
        target: Callable[..., Any] = Ref(f"mcot.commands.{module}:{function}").resolve()
        code = target(**kwargs)
    except (UsageError, RunDirError) as exc:
        fail(str(exc))
    except OSError as exc:  # a full disk, a read-only folder, …: one line, never a traceback (mcot/core/oserrors.py)
        fail(*os_failure(exc, kwargs))
    else:
        if code:
            raise typer.Exit(int(code))
