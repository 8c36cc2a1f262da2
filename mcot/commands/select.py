"""`mcot select hardest --runs RUN [RUN…] --share 0.10 --out DIR`: the hardest items of scored runs (mcot.hardness)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from mcot.benchmarks.item import ItemError
from mcot.command_options import SelectHardestOptions
from mcot.errors import UsageError
from mcot.eval.errors import EvalError
from mcot.hardness import FAILURE_ONLY, FORMULA, SELECTION_FILE, select_hardest
from mcot.options import validated


@validated(SelectHardestOptions)
def run_select_hardest(runs: Sequence[Path], out: Path, share: float = 0.10, more: Sequence[Path] | None = None) -> int:
    """Write the hardest `share` of the runs' items (`runs`, then `more`) to `out` and print what was chosen;
    return 0."""
    runs = [*runs, *(more or ())]
    if not runs:
        raise UsageError("name the scored runs to rank: --runs RUN [--runs RUN …]")
    try:
        selection = select_hardest(list(runs), share, Path(out))
    except (EvalError, ItemError) as exc:
        raise UsageError(str(exc)) from exc
    if any(entry.length_percentile is not None for entry in selection.ranked):
        typer.echo(FORMULA)
    if selection.failure_only:
        typer.echo(f"{', '.join(selection.failure_only)}: {FAILURE_ONLY}")
    lowest = selection.chosen[-1].h
    typer.echo(
        f"chose {len(selection.chosen)} of {len(selection.ranked)} items (H ≥ {lowest:.3f}, ties by id) from "
        f"{len(runs)} run(s)"
    )
    if selection.dropped_nan:
        typer.echo(f"left out {selection.dropped_nan} pair(s) whose score is NaN (not a verdict)")
    typer.echo(f"wrote {selection.out}/items.jsonl, its images and {SELECTION_FILE}")
    return 0
