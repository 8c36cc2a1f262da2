"""`mcot compare RUN [RUN_B] [--a ARM] [--b ARM] [--out FILE] [--force]`: two arms on the same items."""

from __future__ import annotations

from pathlib import Path

import typer

from mcot.errors import UsageError
from mcot.eval.errors import EvalError
from mcot.rundir import RunDirError


def comparison_markdown(
    run_dir: Path, run_b: Path | None = None, *, a: str | None = None, b: str | None = None, force: bool = False
) -> str:
    """Return the paired comparison(s) as markdown; raise UsageError when the runs or arms cannot be compared.

    `a` and `b` name the arms (of RUN, or of RUN and RUN_B); without them one run compares its two arms, or
    text against each other arm when it has more (mcot.eval.compare.choose_pairs).
    """
    from mcot.eval.compare import compare_runs

    try:
        comparisons = compare_runs(Path(run_dir), Path(run_b) if run_b else None, a=a, b=b, force=force)
    except (EvalError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    return "\n".join(comparison.markdown() for comparison in comparisons)


def run_compare(
    run_dir: Path,
    run_b: Path | None = None,
    out: Path | None = None,
    force: bool = False,
    a: str | None = None,
    b: str | None = None,
) -> int:
    """Print the paired comparison(s) of arms `a` and `b` (and write them as markdown to `out`); return 0."""
    from mcot.rundir import write_text_atomic

    text = comparison_markdown(run_dir, run_b, a=a, b=b, force=force)
    typer.echo(text)
    if out is not None:
        write_text_atomic(Path(out), "# mcot compare\n\n" + text)
        typer.echo(f"wrote {out}")
    return 0
