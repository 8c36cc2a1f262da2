"""`export_run`: check the request, open the run (its frozen items), build a view's rows, write a format."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.export.formats import (
    FOLDER_FORMATS,
    FORMATS,
    HF_SPLIT,
    require_datasets,
    write_hf,
    write_jsonl,
    write_parquet,
)
from mcot.export.images import ImageCatalog
from mcot.export.output import ExportError, check_out, staged
from mcot.export.records import is_generation_run, iter_pairs, model_spec, pair_keys, read_run_scores
from mcot.export.views import VIEW_BUILDERS, VIEWS
from mcot.rundir import Run, open_run


@dataclass
class ExportSummary:
    """What an export wrote: the record count, how many are flagged (not ok), and warnings for stderr."""

    out: Path
    fmt: str
    view: str
    count: int = 0
    flagged: int = 0
    scored_now: bool = False
    warnings: list[str] = field(default_factory=list)


def check_request(fmt: str, view: str) -> None:
    """Return when `fmt` and `view` are known (and the library `fmt` needs is installed); raise ExportError."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if view not in VIEWS:
        raise ExportError(f"unknown view --as {view!r}; choose one of {', '.join(VIEWS)}")
    if fmt == "hf":
        try:
            require_datasets()
        except ImportError as exc:
            raise ExportError(str(exc)) from None


def _card(run: Run, view: str, count: int) -> str:
    model = model_spec(run)
    return (
        "---\nconfigs:\n- config_name: default\n  data_files:\n"
        f"  - split: {HF_SPLIT}\n    path: {HF_SPLIT}/data-*.arrow\n---\n\n"
        f"# mcot traces of {run.root.name}\n\n"
        f"Model `{model}`, arms {', '.join(run.arms)}, {count} records (one per item and arm, `{view}` view), "
        "written by `mcot export --format hf`. Read it with `datasets.load_from_disk(PATH)` or "
        "`datasets.load_dataset(PATH)` (both give a DatasetDict with one `train` split). Records whose "
        "`status` is not `ok` are failed, budget-stopped or missing traces; `correct` is null where unscored.\n"
    )


def export_run(
    run_root: Path,
    fmt: str,
    out: Path,
    *,
    view: str = "records",
    only_correct: bool = False,
    overwrite: bool = False,
    score: bool = False,
) -> ExportSummary:
    """Export a run in `fmt` (jsonl, parquet, hf) under the view `view` to `out`; return what was written.

    One record per (item of RUN/items.jsonl, arm), failed, budget-stopped and missing pairs included with
    their `status` and `error`. `only_correct` keeps the pairs scored correct; `score` scores an unscored
    run first (official protocol, no judge). Raises ExportError (or EvalError for an unreadable run) before
    anything is written; an error while writing leaves nothing at `out`.
    """
    check_request(fmt, view)
    run = open_run(Path(run_root))  # raises when RUN/items.jsonl no longer matches the manifest
    out = Path(out)
    check_out(out, fmt, overwrite)
    if view != "records" and is_generation_run(run):
        raise ExportError(
            f"{run.root} was made by an image generator (`mcot imagine`): its answers are images, not a "
            f"conversation; export it with --as records"
        )
    summary = ExportSummary(out, fmt, view)
    run, scores = _scored(run, score, only_correct, summary)
    strays = sorted({item_id for item_id, _ in run.results if item_id not in run.items})
    if strays:
        summary.warnings.append(
            f"{len(strays)} result(s) name items not in RUN/items.jsonl, left out: {', '.join(strays[:3])}"
        )
    keys = pair_keys(run)
    if only_correct:
        keys = [key for key in keys if (scores or {}).get(key, {}).get("correct") is True]
    if not keys:
        why = "no pair is scored correct" if only_correct else "the run has no item"
        raise ExportError(f"nothing to export from {run.root}: {why}; nothing was written")
    catalog = ImageCatalog()
    rows = _rows(run, scores, view, only_correct, catalog, summary)
    with staged(out, fmt in FOLDER_FORMATS) as target:
        if fmt == "jsonl":
            summary.count = write_jsonl(rows, catalog, target)
        elif fmt == "parquet":
            summary.count = write_parquet(rows, catalog, view, target)
        else:
            work = out.absolute().parent / f".{target.name}.work"
            work.mkdir()
            try:
                summary.count = write_hf(rows, catalog, view, target, work)
                (target / "README.md").write_text(_card(run, view, summary.count), encoding="utf-8")
            finally:
                _rmtree(work)
    if catalog.missing:
        shown = ", ".join(str(path) for path in catalog.missing[:3])
        summary.warnings.append(f"{len(catalog.missing)} image(s) not found, left out of the export: {shown}")
    return summary


def _scored(
    run: Run, score: bool, only_correct: bool, summary: ExportSummary
) -> tuple[Run, dict[tuple[str, str], dict[str, Any]] | None]:
    """Return the run and its scores, scoring it first when asked and unscored; warn when it stays unscored."""
    scores = read_run_scores(run)
    if scores is None and score:
        from mcot.declarations import declare_builtin
        from mcot.eval.scoring import score_run

        declare_builtin()
        score_run(run.root)
        run = open_run(run.root)
        scores, summary.scored_now = read_run_scores(run), True
    if scores is None:
        if only_correct:
            raise ExportError(f"--only-correct needs scores: run `mcot score {run.root}` first, or add --score")
        summary.warnings.append(
            f"{run.root} is not scored: `correct` and `score` are null in every record "
            f"(run `mcot score {run.root}` first, or add --score)"
        )
    return run, scores


def _rows(
    run: Run,
    scores: dict[tuple[str, str], dict[str, Any]] | None,
    view: str,
    only_correct: bool,
    catalog: ImageCatalog,
    summary: ExportSummary,
) -> Iterator[dict[str, Any]]:
    build = VIEW_BUILDERS[view]
    notes: list[str] = []
    unscored = 0
    for pair in iter_pairs(run, scores):
        if only_correct and pair.correct is not True:
            continue
        if scores is not None and pair.score is None:
            unscored += 1
        if pair.status != "ok":
            summary.flagged += 1
        yield build(pair, catalog, notes)
    if unscored:
        summary.warnings.append(
            f"{unscored} record(s) have no line in scores.jsonl (results added since scoring?): `correct` is null; "
            f"re-run `mcot score {run.root}`"
        )
    summary.warnings.extend(dict.fromkeys(notes))


def _rmtree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
