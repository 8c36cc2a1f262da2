"""`mcot view`: write the static trace viewer of a run."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import typer

from mcot.command_options import ViewOptions
from mcot.errors import UsageError
from mcot.eval.errors import EvalError
from mcot.options import validated
from mcot.rundir import RunDirError, run_lock
from mcot.viewer import shard_dir, write_viewer


@validated(ViewOptions)
def run_view(run_dir: Path, out: Path | None = None, rate: bool = False) -> int:
    """Write the viewer (the page and its folder of trace shards) and print where it is; return 0.

    With `rate` the page rates traces and saves the ratings as a JSON file for `mcot score RUN --human FILE`.
    """
    inside = out is None or Path(out).absolute().is_relative_to(Path(run_dir).absolute())
    try:
        with run_lock(run_dir, "mcot view") if inside else nullcontext():  # a page in RUN is a write into RUN
            page = write_viewer(run_dir, out, rate=rate)
    except (EvalError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    typer.echo(
        f"viewer: {page} (open it in a browser; it works from file://; traces load from {shard_dir(page).name}/)"
    )
    if rate:
        typer.echo(
            f'rating: number keys rate, j/k move, "save ratings" downloads the file; then `mcot score {run_dir} '
            "--human FILE`"
        )
    return 0
