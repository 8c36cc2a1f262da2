"""`mcot compare RUN [RUN...] [--a ARM] [--b ARM] [--arms ARMS] [--out FILE] [--force]`: arms on the same items."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from mcot.command_options import CompareOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.core.rundir import RunDirError, read_manifest, read_scores, write_text_atomic
from mcot.eval.caveats import run_caveats
from mcot.eval.errors import EvalError


def comparison_markdown(
    run_dir: Path,
    run_b: Path | None = None,
    *,
    a: str | None = None,
    b: str | None = None,
    force: bool = False,
    more: Sequence[Path] = (),
    arms: str | None = None,
) -> str:
    """Return the paired comparison(s) as markdown; raise UsageError when the runs or arms cannot be compared.

    One run: its two arms, text against each other arm, or `a` against `b` (mcot.eval.compare.choose_pairs).
    Two runs with `a`/`b` (or a run with one arm): arm `a` of RUN against arm `b` of RUN_B. Otherwise — two runs
    with several arms each, three or more runs, or `arms` given with several runs — each run's arms against its
    text arm, Holm's correction over every total (mcot.eval.compare.compare_many). The offline caveat leads when
    a run's model is the offline policy.
    """
    from mcot.eval.compare import compare_many, compare_runs

    runs = [Path(run_dir), *([Path(run_b)] if run_b else []), *map(Path, more or ())]
    chosen = [arm.strip() for arm in arms.split(",") if arm.strip()] if arms else None
    try:
        if len(runs) == 1:
            if chosen:
                comparisons = compare_many(runs, arms=chosen)
            else:
                comparisons = compare_runs(runs[0], a=a, b=b)
        elif (
            len(runs) == 2
            and not chosen
            and (a is not None or b is not None or any(len({s.mode for s in read_scores(r)}) < 2 for r in runs))
        ):
            comparisons = compare_runs(runs[0], runs[1], a=a, b=b, force=force)
        else:
            if a is not None or b is not None:
                raise UsageError("--a/--b pair two runs' arms; with more runs name the arms with --arms")
            comparisons = compare_many(runs, arms=chosen, force=force)
    except (EvalError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    text = "\n".join(comparison.markdown() for comparison in comparisons)
    text += "".join(_samples_markdown(run) for run in runs)
    manifests = [read_manifest(run) for run in runs]
    caveat = run_caveats([m.model_spec for m in manifests], manifests)
    return f"> **{caveat}**\n\n{text}" if caveat else text


def _samples_markdown(run: Path) -> str:
    """Return, for a run with --samples K ≥ 2, its repeated-samples table (the arms' paired differences on per-item
    means in its notes), else ""."""
    from mcot.eval.samples import read_sample_scores, samples_table

    table = samples_table(read_sample_scores(run))
    return "" if table is None else f"\n{table.markdown().replace('### ', f'### {run}: ', 1)}"


@validated(CompareOptions)
def run_compare(
    run_dir: Path,
    run_b: Path | None = None,
    out: Path | None = None,
    force: bool = False,
    a: str | None = None,
    b: str | None = None,
    more: Sequence[Path] = (),
    arms: str | None = None,
) -> int:
    """Print the paired comparison(s) (and write them as markdown to `out`); return 0."""

    text = comparison_markdown(run_dir, run_b, a=a, b=b, force=force, more=more, arms=arms)
    typer.echo(text)
    if out is not None:
        write_text_atomic(Path(out), "# mcot compare\n\n" + text)
        typer.echo(f"wrote {out}")
    return 0
