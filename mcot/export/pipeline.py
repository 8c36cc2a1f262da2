"""`export_run`: check the request, open the source (a run's frozen items, or an items directory), build a view's
rows one at a time, write a format.

Rows are built and written one at a time (a format writes Arrow record batches or lines as they come), so that
an export's memory does not grow with its record count (perf/export_memory.py measures it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.core.item import ItemError, iter_items
from mcot.core.ref import Ref
from mcot.core.registry import EXPORT_FORMATS, EXPORT_VIEWS, RegistryError
from mcot.export.images import ImageCatalog
from mcot.export.output import ExportError, check_out, staged
from mcot.export.records import (
    Pair,
    RunSource,
    is_generation_run,
    is_items_dir,
    items_source,
    iter_prompts,
    open_source,
)
from mcot.tools.errors import ToolError
from mcot.tools.toolsets import toolset as toolset_tools

if TYPE_CHECKING:
    from mcot.core.declare import ExportFormat, ExportView


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
    left_out: list[str] = field(default_factory=list)
    """One line per kind of thing the export left out (images, turns, records): how many and why. A command exits
    3 when there is any, unless it is told a partial export is fine (`--allow-partial`)."""


@dataclass
class _Omissions:
    """What an export left out while building its rows, counted as they are built."""

    outside: dict[str, None] = field(default_factory=dict)
    no_turn: list[str] = field(default_factory=list)

    def see(self, pair: Pair, conversation_run: bool) -> None:
        for rel in pair.outside_images():
            self.outside.setdefault(f"{pair.item.id}: {rel}", None)
        if conversation_run and pair.result is not None and pair.status == "ok" and not pair.trace:
            self.no_turn.append(f"{pair.item.id} ({pair.arm})")

    def lines(self, catalog: ImageCatalog) -> list[str]:
        """Return one line per kind of omission (the first few named), none when nothing was left out."""
        lines = []
        if self.outside:
            lines.append(
                f"left out {len(self.outside)} image(s) whose path leaves the items folder: {_few(list(self.outside))}"
            )
        if catalog.missing:
            lines.append(
                f"left out {len(catalog.missing)} image(s) not found: {_few([str(p) for p in catalog.missing])}"
            )
        if self.no_turn:
            lines.append(
                f"left out the model's turns of {len(self.no_turn)} pair(s) whose trace is gone (the result says ok, "
                f"the record has no assistant turn): {_few(self.no_turn)}"
            )
        return lines


def _few(names: list[str]) -> str:
    return ", ".join(names[:3]) + (", …" if len(names) > 3 else "")


def check_request(fmt: str, view: str) -> tuple[ExportFormat, ExportView]:
    """Return the declared format and view (the library the format needs installed); raise ExportError."""
    try:
        chosen_format, chosen_view = EXPORT_FORMATS.get(fmt), EXPORT_VIEWS.get(view)
    except RegistryError as exc:
        raise ExportError(str(exc)) from None
    if chosen_format.requires is not None:
        try:
            Ref(chosen_format.requires).resolve()
        except ImportError:
            raise ExportError(
                f"--format {fmt} needs the {chosen_format.requires} library: pip install {chosen_format.requires}"
            ) from None
    if chosen_format.name != "jsonl" and chosen_view.schema is None:
        raise ExportError(f"the {view} view has no Arrow schema: export it with --format jsonl")
    return chosen_format, chosen_view


def export_run(
    run_root: Path,
    fmt: str,
    out: Path,
    *,
    view: str = "records",
    only_correct: bool = False,
    overwrite: bool = False,
    score: bool = False,
    toolset: str | None = None,
) -> ExportSummary:
    """Export a run in `fmt` (jsonl, parquet, hf) under the view `view` to `out`; return what was written.

    One record per (item of RUN/items.jsonl, arm), failed, budget-stopped and missing pairs included with
    their `status` and `error`. `only_correct` keeps the pairs scored correct; `score` scores an unscored
    run first (official protocol, no judge). `run_root` may also be an items directory (no run): a view that
    takes prompts (`verl`, `trl`) then writes one prompt row per item for the arm `toolset` (canvas by default).
    Raises ExportError (or EvalError for an unreadable run) before anything is written; an error while writing
    leaves nothing at `out`.
    """
    chosen_format, chosen_view = check_request(fmt, view)
    if is_items_dir(Path(run_root)):
        if only_correct or score:
            raise ExportError(
                f"{run_root} is an items directory, not a run: it has no scores (drop --only-correct/--score)"
            )
        return export_items(Path(run_root), chosen_format, chosen_view, Path(out), overwrite, toolset or "canvas")
    if toolset is not None:
        raise ExportError("--toolset names the arm of an items directory's prompts; a run exports its own arms")
    source = open_source(Path(run_root))  # raises when RUN/items.jsonl no longer matches the manifest
    out = Path(out)
    check_out(out, chosen_format, overwrite)
    if chosen_view.conversation and is_generation_run(source.run):
        raise ExportError(
            f"{source.run.root} was made by an image generator (`mcot imagine`): its answers are images, not a "
            f"conversation; export it with --as records"
        )
    summary = ExportSummary(out, fmt, view)
    source = _scored(source, score, only_correct, summary)
    ids = set(source.item_ids())
    strays = sorted({item_id for item_id, _ in source.results.offsets if item_id not in ids})
    if strays:
        summary.left_out.append(
            f"left out {len(strays)} record(s) whose result names an item not in RUN/items.jsonl: {_few(strays)}"
        )
    arms = source.arms()
    if only_correct:
        correct = source.scores.correct if source.scores is not None else set()
        empty = not any((item_id, arm) in correct for item_id in ids for arm in arms)
    else:
        empty = not ids or not arms
    if empty:
        why = "no pair is scored correct" if only_correct else "the run has no item"
        raise ExportError(f"nothing to export from {source.run.root}: {why}; nothing was written")
    catalog, omissions = ImageCatalog(), _Omissions()
    rows = _rows(source, chosen_view, only_correct, catalog, summary, omissions)
    with staged(out, chosen_format.folder) as target:
        summary.count = chosen_format.write(rows, catalog, chosen_view, target, source.run)
    summary.left_out.extend(omissions.lines(catalog))
    return summary


def export_items(
    directory: Path, chosen_format: ExportFormat, chosen_view: ExportView, out: Path, overwrite: bool, toolset: str
) -> ExportSummary:
    """Export an items directory's items as prompt rows of `chosen_view` for the arm `toolset`; return the summary."""

    if not chosen_view.prompts:
        takes = ", ".join(name for name, view in EXPORT_VIEWS.items() if view.prompts)
        raise ExportError(
            f"{directory} is an items directory (no run): the {chosen_view.name} view needs a run's answers; "
            f"export an items directory --as {takes}"
        )
    try:
        tools = toolset_tools(toolset)
    except ToolError as exc:
        raise ExportError(f"--toolset: {exc}") from None
    check_out(out, chosen_format, overwrite)
    try:
        if next(iter_items(directory), None) is None:
            raise ExportError(f"nothing to export from {directory}: it holds no item; nothing was written")
    except ItemError as exc:
        raise ExportError(str(exc)) from None
    source = items_source(directory, toolset, tools)
    summary = ExportSummary(out, chosen_format.name, chosen_view.name)
    catalog, omissions = ImageCatalog(), _Omissions()
    rows = _built(iter_prompts(source), chosen_view, catalog, summary, omissions)
    with staged(out, chosen_format.folder) as target:
        summary.count = chosen_format.write(rows, catalog, chosen_view, target, source)
    summary.left_out.extend(omissions.lines(catalog))
    return summary


def _built(
    pairs: Iterator[Pair], view: ExportView, catalog: ImageCatalog, summary: ExportSummary, omissions: _Omissions
) -> Iterator[dict[str, Any]]:
    """Yield the view's row of each pair, one at a time; add the views' notes to the summary's warnings at the end."""
    notes: list[str] = []
    for pair in pairs:
        omissions.see(pair, conversation_run=False)
        yield view.build(pair, catalog, notes)
    summary.warnings.extend(dict.fromkeys(notes))


def _scored(source: RunSource, score: bool, only_correct: bool, summary: ExportSummary) -> RunSource:
    """Return the source, scored first when asked and unscored; warn when it stays unscored."""
    if source.scores is None and score:
        from mcot.eval.scoring import score_run

        score_run(source.run.root)
        source, summary.scored_now = open_source(source.run.root), True
    if source.scores is None:
        if only_correct:
            raise ExportError(f"--only-correct needs scores: run `mcot score {source.run.root}` first, or add --score")
        summary.warnings.append(
            f"{source.run.root} is not scored: `correct` and `score` are null in every record "
            f"(run `mcot score {source.run.root}` first, or add --score)"
        )
    return source


def _rows(
    source: RunSource,
    view: ExportView,
    only_correct: bool,
    catalog: ImageCatalog,
    summary: ExportSummary,
    omissions: _Omissions,
) -> Iterator[dict[str, Any]]:
    build = view.build
    notes: list[str] = []
    unscored = 0
    conversation_run = not is_generation_run(source.run)
    for pair in source.pairs(only_correct):
        omissions.see(pair, conversation_run)
        if source.scores is not None and pair.score is None:
            unscored += 1
        if pair.status != "ok":
            summary.flagged += 1
        yield build(pair, catalog, notes)
    if unscored:
        summary.warnings.append(
            f"{unscored} record(s) have no line in scores.jsonl (results added since scoring?): `correct` is null; "
            f"re-run `mcot score {source.run.root}`"
        )
    summary.warnings.extend(dict.fromkeys(notes))
