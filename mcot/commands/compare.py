"""`mcot compare RUN [RUN_B] [--out FILE] [--force]`: text vs canvas on the same items."""

from __future__ import annotations

from pathlib import Path

import typer

from eval.errors import EvalError
from mcot.errors import UsageError


def run_compare(run_dir: Path, run_b: Path | None = None, out: Path | None = None, force: bool = False) -> int:
    """Print the paired comparison (and write it as markdown to `out`); return the exit code (0)."""
    from eval.compare import compare_runs
    from eval.rundir import write_text_atomic

    try:
        comparison = compare_runs(Path(run_dir), Path(run_b) if run_b else None, force=force)
    except EvalError as exc:
        raise UsageError(str(exc)) from exc
    text = comparison.markdown()
    typer.echo(text)
    if out is not None:
        write_text_atomic(Path(out), "# mcot compare\n\n" + text)
        typer.echo(f"wrote {out}")
    return 0
