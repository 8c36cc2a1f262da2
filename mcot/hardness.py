"""The hardest items of scored runs: OmniPhys's Test-Mini hardness H, and the items directory of the hardest share.

H = 0.75 · failure rate + 0.25 · percentile of the reference solution's length (OmniPhys), where

- failure rate: the share of an item's decided pairs, over every given run and arm (so every model and arm), that
  its scores call wrong (`correct` false; a pair the run failed on counts as wrong, as the scores say; pairs with
  no verdict, such as unjudged ones, are left out);
- percentile: the item's rank by the length (characters) of its reference solution among the items of its
  benchmark, over their count (average rank for equal lengths: the longest is 1); an item without a solution
  has length 0.

Where an item's reference solution lives is its benchmark's business: its protocol module's optional fixed name
`reference_solution(item) -> str | None` (OmniPhys: mcot.eval.protocols.omniphys). A benchmark without it is
ranked by failure rate alone (H = failure rate), and selection.json says so. The hardest ⌈share · n⌉ items (by
H, ties by id) are written through ItemsWriter with their images, and DIR/selection.json holds the formula, the
runs and every candidate's H.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mcot.core.item import Item, ItemsWriter, contained_path
from mcot.core.registry import BENCHMARKS
from mcot.core.rundir import Run, open_run, read_scores
from mcot.eval.errors import EvalError

SELECTION_FILE = "selection.json"
FAILURE_WEIGHT = 0.75
LENGTH_WEIGHT = 0.25
FORMULA = "H = 0.75 · failure rate + 0.25 · percentile of the reference solution's length"
FAILURE_ONLY = "H = failure rate (the benchmark names no reference solution)"
REFERENCE_NAME = "reference_solution"
"""The optional fixed name of a protocol module that returns an item's reference solution (text or None)."""

ReferenceFn = Callable[[Item], "str | None"]


class SelectionError(EvalError):
    """The runs cannot be ranked: not scored, on items that differ, nothing decided, or a share outside (0, 1]."""


@dataclass(frozen=True)
class Hardness:
    """One item's hardness: its failures over its decided pairs, its solution's length and percentile, and H."""

    id: str
    benchmark: str
    pairs: int
    failures: int
    failure_rate: float
    solution_chars: int | None
    """None: the benchmark names no reference solution (H is the failure rate)."""
    length_percentile: float | None
    h: float
    selected: bool = False


def reference_lookup(benchmark: str) -> ReferenceFn | None:
    """Return the `reference_solution` of a declared benchmark's protocol module, None when it has none."""

    declared = BENCHMARKS.find(benchmark)
    if declared is None or declared.protocols is None:
        return None
    found = getattr(declared.protocol_module(), REFERENCE_NAME, None)
    return found if callable(found) else None


def length_percentiles(lengths: dict[str, int]) -> dict[str, float]:
    """Return each key's percentile rank of its length: (shorter ones + the mean rank among equal ones) / count."""
    n = len(lengths)
    ordered = sorted(lengths.values())
    found: dict[str, float] = {}
    for key, length in lengths.items():
        below = sum(1 for value in ordered if value < length)
        equal = sum(1 for value in ordered if value == length)
        found[key] = (below + (equal + 1) / 2) / n
    return found


def _run_items(runs: Sequence[Run]) -> dict[str, tuple[Item, Run]]:
    """Return every item of the runs with the run it is read from; refuse an id whose item differs between runs."""
    items: dict[str, tuple[Item, Run]] = {}
    for run in runs:
        for item_id, item in run.items.items():
            seen = items.get(item_id)
            if seen is None:
                items[item_id] = (item, run)
            elif seen[0] != item:
                raise SelectionError(
                    f"item {item_id!r} differs between {seen[1].root} and {run.root}: rank runs of the same items"
                )
    return items


def _not_a_number(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def nan_pairs(runs: Sequence[Run]) -> int:
    """Return how many scored pairs of the runs have a NaN score (left out of the ranking)."""
    return sum(1 for run in runs for score in read_scores(run.root) if _not_a_number(score.score))


def check_runs(runs: Sequence[Run]) -> None:
    """Raise SelectionError when a run is given twice or the runs are over different items; returns nothing."""
    seen: dict[Path, Path] = {}
    for run in runs:
        key = run.root.resolve()
        if key in seen:
            raise SelectionError(f"{run.root} is given twice (as {seen[key]}): each run counts once")
        seen[key] = run.root
    first = runs[0] if runs else None
    for run in runs[1:]:
        if first is not None and set(run.items) != set(first.items):
            only = sorted(set(run.items) ^ set(first.items))
            raise SelectionError(
                f"{run.root} and {first.root} are over different items ({len(only)} differ, e.g. {only[0]!r}): "
                "rank runs of the same items"
            )


def hardness(runs: Sequence[Run]) -> list[Hardness]:
    """Return the hardness of every item of the runs with a decided pair, hardest first (ties by id)."""
    items = _run_items(runs)
    tally: dict[str, list[int]] = {}
    for run in runs:
        for score in read_scores(run.root):
            if score.id in items and score.correct is not None and not _not_a_number(score.score):
                counts = tally.setdefault(score.id, [0, 0])
                counts[0] += 1
                counts[1] += int(not score.correct)
    if not tally:
        raise SelectionError("no pair of these runs has a verdict (right or wrong): score them first, with --judge")
    by_benchmark: dict[str, list[str]] = {}
    for item_id in tally:
        by_benchmark.setdefault(items[item_id][0].benchmark, []).append(item_id)
    found: list[Hardness] = []
    for benchmark, ids in by_benchmark.items():
        reference = reference_lookup(benchmark)
        lengths = {i: len((reference(items[i][0]) or "").strip()) for i in ids} if reference else {}
        percentiles = length_percentiles(lengths) if reference else {}
        for item_id in ids:
            pairs, failures = tally[item_id]
            rate = failures / pairs
            percentile = percentiles.get(item_id)
            h = rate if percentile is None else FAILURE_WEIGHT * rate + LENGTH_WEIGHT * percentile
            found.append(
                Hardness(item_id, benchmark, pairs, failures, rate, lengths.get(item_id), percentile, round(h, 6))
            )
    found.sort(key=lambda entry: (-entry.h, entry.id))
    return found


def selected_count(share: float, candidates: int) -> int:
    """Return how many of `candidates` items the share selects: ⌈share · candidates⌉ (at least 1)."""
    if not 0 < share <= 1:
        raise SelectionError(f"--share is a fraction in (0, 1] (0.10 for the hardest 10 %), not {share}")
    return max(1, math.ceil(share * candidates - 1e-9))


@dataclass(frozen=True)
class Selection:
    """What `select_hardest` wrote: the directory, the items chosen, every candidate's hardness."""

    out: Path
    chosen: list[Hardness]
    ranked: list[Hardness]
    failure_only: list[str]
    """Benchmarks ranked by failure rate alone (no reference solution)."""
    dropped_nan: int = 0
    """Scored pairs left out because their score is NaN."""


def select_hardest(run_roots: Sequence[Path], share: float, out: Path) -> Selection:
    """Write the hardest `share` of the runs' items to `out` (items.jsonl, images, selection.json); return it."""
    runs = [open_run(Path(root)) for root in run_roots]
    check_runs(runs)
    ranked = hardness(runs)
    count = selected_count(share, len(ranked))
    chosen_ids = {entry.id for entry in ranked[:count]}
    ranked = [Hardness(**{**asdict(entry), "selected": entry.id in chosen_ids}) for entry in ranked]
    chosen = [entry for entry in ranked if entry.selected]
    items = _run_items(runs)
    failure_only = sorted({entry.benchmark for entry in ranked if entry.length_percentile is None})
    record = selection_record(runs, share, ranked, failure_only)
    with ItemsWriter(Path(out), command="mcot select hardest") as writer:
        for entry in chosen:
            item, run = items[entry.id]
            writer.add(_copy_files(writer, item, run.items_root))
        writer.add_file(SELECTION_FILE, (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return Selection(Path(out), chosen, ranked, failure_only, nan_pairs(runs))


def _copy_files(writer: ItemsWriter, item: Item, root: Path) -> Item:
    """Copy an item's images (and a reference output image, a diagram edit's answer) into `writer`; return the item
    naming them where the writer put them."""
    owner = f"item {item.id!r}"
    images = [writer.add_image(image, contained_path(root, image, owner).read_bytes()) for image in item.images]
    references = [item.meta.get("reference_image")]
    if item.answer_type == "image" and item.answer:
        references.append(item.answer)
    for reference in {ref for ref in references if isinstance(ref, str) and ref}:
        path = contained_path(root, reference, owner)
        if path.is_file():
            writer.add_file(reference, path.read_bytes())
    return item.model_copy(update={"images": images}) if images != list(item.images) else item


def selection_record(
    runs: Sequence[Run], share: float, ranked: Sequence[Hardness], failure_only: Sequence[str]
) -> dict[str, Any]:
    """Return the content of selection.json: the formula(s), the runs, the share and each candidate's hardness."""
    return {
        "formula": FORMULA,
        "failure_only": {"benchmarks": list(failure_only), "formula": FAILURE_ONLY} if failure_only else None,
        "failure_rate": "wrong pairs / pairs with a verdict, over every run and arm given (run errors count as wrong)",
        "length_percentile": "rank of the reference solution's length in characters among the benchmark's items "
        "/ their count (equal lengths: their mean rank; no solution: length 0)",
        "ties": "by id",
        "share": share,
        "selected": sum(1 for entry in ranked if entry.selected),
        "candidates": len(ranked),
        "runs": [
            {
                "path": str(run.root),
                "model": run.manifest.model_spec,
                "arms": run.arms,
                "dataset_sha256": run.manifest.dataset.sha256,
            }
            for run in runs
        ],
        "items": [asdict(entry) for entry in ranked],
    }
