"""Where an export's records go: the whole export in its format's layout, or one part per split (`--split`), and
what each part holds (records, tokens, images), counted as the rows are written.

A split export is a folder: a folder format (jsonl, or a plugin's) writes each split in its own layout in
OUT/SPLIT/, a file format (parquet) writes OUT/SPLIT.parquet, and hf writes one DatasetDict with a split per name
(OUT/SPLIT/ shards, OUT/dataset_dict.json naming them all, a dataset card mapping each). OUT/splits.json says what
was asked (fractions, seed, filters), what each split holds and which split each cluster went to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.core.clusters import benchmark_cluster
from mcot.core.item import Item
from mcot.export.formats import HF_SPLIT, write_hf_dict, write_hf_split
from mcot.export.images import ImageCatalog
from mcot.export.output import SPLITS_FILE, staged
from mcot.export.records import Keep
from mcot.export.splits import Split
from mcot.export.tokens import TokenCounter

if TYPE_CHECKING:
    from mcot.core.declare import ExportFormat, ExportView
    from mcot.core.rundir import Run

HF = "hf"
"""The format whose splits are one DatasetDict rather than a part each."""

RowsOf = Callable[[Keep | None, ImageCatalog], Iterable[dict[str, Any]]]
"""The export's rows of the pairs a keep function keeps (None: all), naming their images in a catalog."""


@dataclass
class Tally:
    """What one part of an export holds: records, tokens (see mcot.export.tokens), images shown in the records
    (an image counted once per record showing it), distinct image files, and clusters."""

    records: int = 0
    tokens: int = 0
    images: int = 0
    image_files: int = 0
    clusters: int = 0


@dataclass
class Written:
    """What the parts of an export hold (one part, "all", without --split) and the images not found."""

    count: int
    parts: dict[str, Tally]
    missing: list[Path]


def _tallied(
    rows: Iterable[dict[str, Any]], view: ExportView, counter: TokenCounter, tally: Tally, split: str | None
) -> Iterator[dict[str, Any]]:
    """Yield the rows, counting each into `tally`; a split's name goes into a verl row's `extra_info.split`."""
    for row in rows:
        extra = row.get("extra_info")
        if split is not None and isinstance(extra, dict) and "split" in extra:
            extra["split"] = split
        tally.records += 1
        tally.images += sum(len(row.get(column) or []) for column in view.image_columns)
        tally.tokens += counter.count(view.name, row)
        yield row


def write_whole(
    rows_of: RowsOf, fmt: ExportFormat, view: ExportView, out: Path, runs: Sequence[Run], counter: TokenCounter
) -> Written:
    """Write every row to `out` in the format's own layout; return what it holds (the part "all")."""
    catalog, tally = ImageCatalog(), Tally()
    rows = _tallied(rows_of(None, catalog), view, counter, tally, None)
    with staged(out, fmt.folder) as target:
        if fmt.name == HF:
            count = write_hf_split(rows, catalog, view, target, HF_SPLIT)
            write_hf_dict(target, runs, view.name, {HF_SPLIT: count})
        else:
            count = fmt.write(rows, catalog, view, target, runs[0])
    tally.image_files = len(catalog.sources)
    return Written(count, {"all": tally}, list(catalog.missing))


def _member(assignment: Mapping[str, str], name: str) -> Keep:
    def keep(item: Item, arm: str) -> bool:
        return assignment.get(benchmark_cluster(item)) == name

    return keep


def write_splits(
    rows_of: RowsOf,
    fmt: ExportFormat,
    view: ExportView,
    out: Path,
    runs: Sequence[Run],
    counter: TokenCounter,
    splits: Sequence[Split],
    assignment: Mapping[str, str],
    asked: dict[str, Any],
) -> Written:
    """Write each split's rows (the pairs whose cluster `assignment` gives it) as a part of the folder `out` (see
    the module docstring), and OUT/splits.json with `asked` (what the command asked); return what each holds."""
    parts: dict[str, Tally] = {}
    missing: list[Path] = []
    count = 0
    with staged(out, True) as target:
        for split in splits:
            catalog = ImageCatalog()
            tally = parts[split.name] = Tally(clusters=sum(1 for name in assignment.values() if name == split.name))
            rows = _tallied(rows_of(_member(assignment, split.name), catalog), view, counter, tally, split.name)
            if fmt.name == HF:
                count += write_hf_split(rows, catalog, view, target, split.name)
            elif fmt.folder:
                (target / split.name).mkdir()
                count += fmt.write(rows, catalog, view, target / split.name, runs[0])
            else:
                count += fmt.write(rows, catalog, view, target / f"{split.name}.{fmt.name}", runs[0])
            tally.image_files = len(catalog.sources)
            missing.extend(catalog.missing)
        if fmt.name == HF:
            write_hf_dict(target, runs, view.name, {name: tally.records for name, tally in parts.items()})
        record = {
            **asked,
            "tokens": counter.method,
            "splits": [
                {"name": split.name, "fraction": split.fraction, **asdict(parts[split.name])} for split in splits
            ],
            "clusters": dict(sorted(assignment.items())),
        }
        (target / SPLITS_FILE).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return Written(count, parts, list(dict.fromkeys(missing)))
