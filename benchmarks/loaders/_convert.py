"""`convert`: stream a native source into an mcot items directory, with skipped.jsonl beside the items."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mcot.benchmarks.loaders._load import iter_load
from mcot.benchmarks.loaders._types import ConvertSummary, LoadedItem, LoaderError, Skip, Tally

from mcot.core.item import ItemError, ItemsWriter

SKIPPED_FILE = "skipped.jsonl"


def convert(format: str, src: Path, out: Path, *, overwrite: bool = False, **options: Any) -> ConvertSummary:
    """Write `src` (read as `format`) to the items directory `out`; return what was read, written and skipped.

    Writing is atomic. Raises LoaderError when the source cannot be read or not one item could be loaded
    (then nothing is written), or when `out` exists and is not empty.
    """
    tally = Tally()
    events = iter_load(format, src, tally, **options)
    try:
        writer = ItemsWriter(Path(out), overwrite=overwrite, command="mcot convert")
    except ItemError as exc:
        raise LoaderError(str(exc)) from exc
    skips: list[Skip] = []
    stored: set[str] = set()
    try:
        for event in events:
            if isinstance(event, Skip):
                skips.append(event)
                continue
            _add(writer, event, stored)
    except BaseException:
        writer.abort()
        raise
    reasons = dict(Counter(skip.kind for skip in skips).most_common())
    if writer.count == 0:
        writer.abort()
        detail = "; ".join(f"{kind}: {count}" for kind, count in reasons.items()) or "the source holds no records"
        first = f" (first: {skips[0].locator}: {skips[0].reason})" if skips else ""
        raise LoaderError(f"nothing could be read from {src} as {format}: {tally.records} records, {detail}{first}")
    writer.add_file(SKIPPED_FILE, "".join(skip.to_json_line() + "\n" for skip in skips).encode("utf-8"))
    target = writer.commit()
    return ConvertSummary(
        format=format, out=target, records=tally.records, written=writer.count, skipped=len(skips), reasons=reasons
    )


def _add(writer: ItemsWriter, loaded: LoadedItem, stored: set[str]) -> None:
    for rel, data in loaded.images.items():
        if rel not in stored:
            writer.add_image(rel, data)
            stored.add(rel)
    writer.add(loaded.item)
