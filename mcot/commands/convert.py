"""`mcot convert FORMAT SRC --out DIR`: a benchmark's native files to an mcot items directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from mcot.benchmarks.inputs import NotRegularFile, check_source
from mcot.benchmarks.item import ItemError
from mcot.benchmarks.loaders import LoaderError, convert, convertible_formats, options_of
from mcot.command_options import ConvertOptions
from mcot.errors import UsageError
from mcot.options import validated


@validated(ConvertOptions)
def run_convert(
    format: str,
    src: Path,
    out: Path,
    generation: bool = False,
    scores: Path | None = None,
    mapping: str | None = None,
) -> int:
    """Convert `src` read as `format` into the items directory `out`, print the counts; return 0.

    Raises UsageError (exit 2) for an unknown format, an option that does not apply, or a source from
    which not one item could be read.
    """
    name = format.strip().lower()
    formats = convertible_formats()
    if name not in formats:
        raise UsageError(f"unknown format {format!r}; choose one of {', '.join(formats)}")
    given: dict[str, Any] = {"generation": generation or None, "scores": scores, "mapping": mapping}
    options = {key: value for key, value in given.items() if value is not None}
    allowed = options_of(name)
    wrong = [f"--{key}" for key in options if key not in allowed]
    if wrong:
        raise UsageError(f"{', '.join(wrong)} does not apply to {name}")
    try:
        check_source(src, what="source")
    except NotRegularFile as exc:
        raise UsageError(str(exc)) from None
    except FileNotFoundError:
        pass  # the loader says what it expected there
    try:
        summary = convert(name, Path(src), Path(out), **options)
    except (LoaderError, ItemError) as exc:
        raise UsageError(str(exc)) from exc
    for line in summary.lines():
        typer.echo(line)
    return 0
