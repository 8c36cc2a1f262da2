"""`export_run`: check the request, open the source (a run's frozen items, or an items directory), build a view's
rows one at a time, write a format.

Rows are built and written one at a time (a format writes Arrow record batches or lines as they come), so that
an export's memory does not grow with its record count (perf/export_memory.py measures it).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.core.clusters import cluster_key, key_label
from mcot.core.item import Item, ItemError, iter_items
from mcot.core.ref import Ref
from mcot.core.registry import EXPORT_FORMATS, EXPORT_VIEWS, RegistryError
from mcot.export.images import ImageCatalog
from mcot.export.layout import RowsOf, Tally, write_splits, write_whole
from mcot.export.output import ExportError, check_out, check_split_out
from mcot.export.records import (
    Keep,
    Pair,
    RunSource,
    is_generation_run,
    is_items_dir,
    items_source,
    iter_prompts,
    open_source,
)
from mcot.export.selection import Filters, Plan, names, plan_items, plan_runs
from mcot.export.splits import Split, assign_clusters, parse_splits
from mcot.export.tokens import TokenCounter
from mcot.tools.errors import ToolError
from mcot.tools.toolsets import toolset as toolset_tools

if TYPE_CHECKING:
    from mcot.core.declare import ExportFormat, ExportView
    from mcot.core.rundir import Run

PREDICTION_FORMATS = ("vlmevalkit", "gepbench")
"""The formats that write prediction files for an official evaluator (mcot/export/predictions.py): no splits."""


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
    parts: dict[str, Tally] = field(default_factory=dict)
    """What each split holds (records, tokens, images), in the order asked; one part, "all", without --split."""
    tokens: str = ""
    """How the tokens were counted (a tokenizer's chat template, or an estimate), in words."""
    split_seed: int | None = None
    """The seed the splits were drawn with; None without --split."""
    cluster_keys: dict[str, str] = field(default_factory=dict)
    """The cluster key of each benchmark exported (what splits keep whole), as reports name it."""
    missing: list[Path] = field(default_factory=list)
    """The image files the records named that were not found (left out; said in `left_out`)."""


@dataclass
class _Omissions:
    """What an export left out while building its rows, counted as they are built."""

    outside: dict[str, None] = field(default_factory=dict)
    no_turn: list[str] = field(default_factory=list)
    unscored: Counter[str] = field(default_factory=Counter)
    """Per scored run, the pairs exported that have no line in its scores.jsonl."""
    notes: list[str] = field(default_factory=list)
    """What the views said while building rows (a tool gone since the run, …)."""

    def see(self, pair: Pair, conversation_run: bool) -> None:
        for rel in pair.outside_images():
            self.outside.setdefault(f"{pair.item.id}: {rel}", None)
        if conversation_run and pair.result is not None and pair.status == "ok" and not pair.trace:
            self.no_turn.append(f"{pair.item.id} ({pair.arm})")

    def warnings(self) -> list[str]:
        """Return the warnings for stderr: pairs with no score line (per run), then the views' notes, each once."""
        lines = [
            f"{count} record(s) have no line in scores.jsonl (results added since scoring?): `correct` is null; "
            f"re-run `mcot score {root}`"
            for root, count in self.unscored.items()
        ]
        return lines + list(dict.fromkeys(self.notes))

    def lines(self, missing: list[Path]) -> list[str]:
        """Return one line per kind of omission (the first few named), none when nothing was left out (`missing`:
        the image files not found)."""
        lines = []
        if self.outside:
            lines.append(
                f"left out {len(self.outside)} image(s) whose path leaves the items folder: {_few(list(self.outside))}"
            )
        if missing:
            lines.append(f"left out {len(missing)} image(s) not found: {_few([str(p) for p in missing])}")
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
    more: Sequence[Path] = (),
    modes: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    split: str | None = None,
    seed: int = 0,
    tokenizer: str | None = None,
) -> ExportSummary:
    """Export a run (and the runs `more`) in `fmt` (jsonl, parquet, hf) under the view `view` to `out`; return
    what was written.

    One record per (item of RUN/items.jsonl, arm), failed, budget-stopped and missing pairs included with
    their `status` and `error`. `modes` and `benchmarks` keep those arms and benchmarks (names, comma-separated
    or not); `only_correct` keeps the pairs scored correct; `score` scores an unscored run first (official
    protocol, no judge). `split` (`train=0.9,val=0.1`) writes a part per split, whole clusters to each
    (mcot.export.splits, with `seed`); `tokenizer` names the Hugging Face tokenizer the records' tokens are
    counted with (else estimated). `run_root` may also be an items directory (no run): a view that takes prompts
    (`verl`, `trl`) then writes one prompt row per item for the arm `toolset` (canvas by default).
    Raises ExportError (or EvalError for an unreadable run) before anything is written; an error while writing
    leaves nothing at `out`.
    """
    chosen_format, chosen_view = check_request(fmt, view)
    splits = _check_splits(split, chosen_format)
    filters = Filters(names(modes), names(benchmarks), only_correct)
    roots = [Path(run_root), *(Path(root) for root in more)]
    if any(is_items_dir(root) for root in roots):
        if len(roots) > 1:
            raise ExportError("an items directory is exported on its own: give it alone, without runs")
        if only_correct or score:
            raise ExportError(
                f"{run_root} is an items directory, not a run: it has no scores (drop --only-correct/--score)"
            )
        if filters.modes is not None:
            raise ExportError("--mode names a run's arms; an items directory's prompts take one arm, --toolset")
        request = _Request(chosen_format, chosen_view, Path(out), overwrite, filters, splits, seed, tokenizer)
        return export_items(roots[0], request, toolset or "canvas")
    if toolset is not None:
        raise ExportError("--toolset names the arm of an items directory's prompts; a run exports its own arms")
    sources = [open_source(root) for root in roots]  # raises when RUN/items.jsonl no longer matches the manifest
    out = Path(out)
    (check_split_out if splits else check_out)(out, chosen_format, overwrite)
    for source in sources:
        if chosen_view.conversation and is_generation_run(source.run):
            raise ExportError(
                f"{source.run.root} was made by an image generator (`mcot imagine`): its answers are images, not a "
                f"conversation; export it with --as records"
            )
    counter = TokenCounter(tokenizer)
    summary = ExportSummary(out, fmt, view, tokens=counter.method)
    sources = [_scored(source, score, only_correct, summary) for source in sources]
    for source in sources:
        ids = set(source.item_ids())
        strays = sorted({item_id for item_id, _ in source.results.offsets if item_id not in ids})
        if strays:
            summary.left_out.append(
                f"left out {len(strays)} record(s) whose result names an item not in {_items_of(source, sources)}: "
                f"{_few(strays)}"
            )
    plan = plan_runs(sources, filters)
    omissions = _Omissions()

    def rows_of(extra: Keep | None, catalog: ImageCatalog) -> Iterator[dict[str, Any]]:
        def keep(item: Item, arm: str) -> bool:
            return filters.keeps(item, arm) and (extra is None or extra(item, arm))

        pairs = _run_pairs(sources, only_correct, keep, omissions)
        return _built(pairs, chosen_view, catalog, summary, omissions)

    request = _Request(chosen_format, chosen_view, out, overwrite, filters, splits, seed, tokenizer)
    _write(request, rows_of, [source.run for source in sources], plan, counter, summary)
    summary.warnings.extend(omissions.warnings())
    summary.left_out.extend(omissions.lines(summary.missing))
    return summary


@dataclass(frozen=True)
class _Request:
    """What an export was asked, checked: its format, view, destination, filters and splits."""

    fmt: ExportFormat
    view: ExportView
    out: Path
    overwrite: bool
    filters: Filters
    splits: list[Split] | None
    seed: int
    tokenizer: str | None


def _check_splits(split: str | None, chosen_format: ExportFormat) -> list[Split] | None:
    """Return the splits `--split` asks for (None without it); raise ExportError for a format that has no splits."""
    if split is None:
        return None
    if chosen_format.name in PREDICTION_FORMATS:
        raise ExportError(
            f"--format {chosen_format.name} writes prediction files for an evaluator, not training data: --split "
            f"takes --format jsonl, parquet or hf"
        )
    return parse_splits(split)


def _items_of(source: RunSource, sources: list[RunSource]) -> str:
    return "RUN/items.jsonl" if len(sources) == 1 else f"{source.run.root}/items.jsonl"


def _write(
    request: _Request, rows_of: RowsOf, runs: list[Run], plan: Plan, counter: TokenCounter, summary: ExportSummary
) -> None:
    """Write the export (whole, or a part per split) and put what each part holds in the summary."""
    if request.splits is None:
        written = write_whole(rows_of, request.fmt, request.view, request.out, runs, counter)
        written.parts["all"].clusters = len(plan.sizes)
    else:
        assignment = assign_clusters(plan.sizes, request.splits, request.seed)
        asked = {
            "runs": [str(run.root) for run in runs],
            "format": request.fmt.name,
            "view": request.view.name,
            "filters": request.filters.words(),
            "seed": request.seed,
            "cluster_keys": {name: key_label(cluster_key(name)) for name in sorted(plan.benchmarks)},
        }
        written = write_splits(
            rows_of, request.fmt, request.view, request.out, runs, counter, request.splits, assignment, asked
        )
        summary.split_seed = request.seed
        empty = [split.name for split in request.splits if split.name not in assignment.values()]
        if empty:
            summary.warnings.append(
                f"split(s) {', '.join(empty)} got no cluster ({len(plan.sizes)} cluster(s) for "
                f"{len(request.splits)} splits): written empty"
            )
    summary.count, summary.parts = written.count, written.parts
    summary.cluster_keys = {name: key_label(cluster_key(name)) for name in sorted(plan.benchmarks)}
    summary.missing = written.missing


def export_items(directory: Path, request: _Request, toolset: str) -> ExportSummary:
    """Export an items directory's items as prompt rows of the request's view for the arm `toolset`; return the
    summary."""

    chosen_view = request.view
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
    (check_split_out if request.splits else check_out)(request.out, request.fmt, request.overwrite)
    try:
        if next(iter_items(directory), None) is None:
            raise ExportError(f"nothing to export from {directory}: it holds no item; nothing was written")
        plan = plan_items(str(directory), iter_items(directory), toolset, request.filters)
    except ItemError as exc:
        raise ExportError(str(exc)) from None
    counter = TokenCounter(request.tokenizer)
    source = items_source(directory, toolset, tools)
    summary = ExportSummary(request.out, request.fmt.name, chosen_view.name, tokens=counter.method)
    omissions = _Omissions()

    def rows_of(extra: Keep | None, catalog: ImageCatalog) -> Iterator[dict[str, Any]]:
        def keep(item: Item, arm: str) -> bool:
            return request.filters.keeps(item, arm) and (extra is None or extra(item, arm))

        return _built(iter_prompts(source, keep), chosen_view, catalog, summary, omissions)

    _write(request, rows_of, [source], plan, counter, summary)
    summary.warnings.extend(omissions.warnings())
    summary.left_out.extend(omissions.lines(summary.missing))
    return summary


def _built(
    pairs: Iterator[Pair], view: ExportView, catalog: ImageCatalog, summary: ExportSummary, omissions: _Omissions
) -> Iterator[dict[str, Any]]:
    """Yield the view's row of each pair, one at a time (its notes kept in `omissions`), counting flagged pairs."""
    for pair in pairs:
        omissions.see(pair, conversation_run=not pair.is_prompt and not is_generation_run(pair.run))
        if not pair.is_prompt and pair.status != "ok":
            summary.flagged += 1
        yield view.build(pair, catalog, omissions.notes)


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


def _run_pairs(sources: list[RunSource], only_correct: bool, keep: Keep, omissions: _Omissions) -> Iterator[Pair]:
    """Yield the pairs of every run that `keep` keeps (and, with `only_correct`, scored correct), numbered in
    export order; count those a scored run has no score line for."""
    index = 0
    for source in sources:
        for pair in source.pairs(only_correct, keep):
            if source.scores is not None and pair.score is None:
                omissions.unscored[str(source.run.root)] += 1
            yield dataclasses.replace(pair, index=index)
            index += 1
