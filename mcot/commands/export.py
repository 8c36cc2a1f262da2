"""`mcot export RUN... |ITEMS --format jsonl|parquet|hf --out PATH [--as VIEW] [--mode ARMS] [--benchmark NAMES]
[--only-correct] [--split train=0.9,val=0.1 --seed S] [--tokenizer PATH_OR_NAME] [--score] [--overwrite]
[--toolset NAME]`: runs' traces as a dataset, or an items directory's prompts as RL rows (docs/export.md)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import typer

from mcot.command_options import ExportOptions
from mcot.core.errors import UsageError
from mcot.core.options import validated
from mcot.core.rundir import RunDirError, run_lock
from mcot.eval.errors import EvalError
from mcot.export import ExportError, ExportSummary, export_run


@validated(ExportOptions)
def run_export(
    run_dir: Path,
    format: str,
    out: Path,
    more: list[Path] | None = None,
    view: str = "records",
    only_correct: bool = False,
    mode: list[str] | None = None,
    benchmark: list[str] | None = None,
    split: str | None = None,
    seed: int = 0,
    tokenizer: str | None = None,
    score: bool = False,
    overwrite: bool = False,
    toolset: str | None = None,
    allow_partial: bool = False,
) -> int:
    """Export RUN (and MORE_RUNS), print warnings on stderr, a summary line and what each split holds; return the
    exit code: 0, 1 on a write error, 3 when images, turns or records were left out (each said in one line) unless
    `allow_partial`."""
    runs = [Path(run_dir), *(more or [])]
    try:
        with ExitStack() as locks:
            for run in runs:  # --score writes scores; an --out inside a run writes into it
                if score or Path(out).absolute().is_relative_to(run.absolute()):
                    locks.enter_context(run_lock(run, "mcot export"))
            summary = export_run(
                Path(run_dir),
                format,
                Path(out),
                view=view,
                only_correct=only_correct,
                overwrite=overwrite,
                score=score,
                toolset=toolset,
                more=runs[1:],
                modes=mode,
                benchmarks=benchmark,
                split=split,
                seed=seed,
                tokenizer=tokenizer,
            )
    except (ExportError, EvalError, RunDirError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        typer.echo(f"mcot: cannot write the export to {out}: {exc}; nothing was left there", err=True)
        return 1
    for warning in summary.warnings:
        typer.echo(f"warning: {warning}", err=True)
    scored = f"; scored {run_dir} first (official protocol)" if summary.scored_now else ""
    flagged = f", {summary.flagged} flagged (status not ok)" if summary.flagged else ""
    for line in summary.left_out:
        typer.echo(f"mcot: {line}", err=True)
    typer.echo(f"exported {summary.count} records ({format}, {view}{flagged}) to {out}{scored}")
    for line in held_lines(summary):
        typer.echo(line)
    if summary.left_out and not allow_partial:
        typer.echo("mcot: the export is partial (exit 3): add --allow-partial to accept it", err=True)
        return 3
    return 0


def held_lines(summary: ExportSummary) -> list[str]:
    """Return the lines saying what the export holds: per split (or for the whole export) its records, share,
    clusters, tokens and images, then how the tokens were counted and which cluster keys the splits kept whole."""
    total = sum(part.records for part in summary.parts.values()) or 1
    lines = []
    for name, part in summary.parts.items():
        label = "all" if summary.split_seed is None else f"split {name}"
        share = "" if summary.split_seed is None else f" ({part.records / total:.1%})"
        clusters = f"{part.clusters} cluster{'' if part.clusters == 1 else 's'}"
        lines.append(
            f"{label}: {part.records} records{share} from {clusters}, {part.tokens} tokens, {part.images} images "
            f"({part.image_files} files)"
        )
    lines.append(f"tokens: {summary.tokens}; images: counted once per record that shows them")
    if summary.split_seed is not None:
        keys = ", ".join(f"{name}: {key}" for name, key in summary.cluster_keys.items())
        lines.append(f"splits: seed {summary.split_seed}, whole clusters to each ({keys})")
    return lines
