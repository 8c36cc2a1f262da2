"""An mcot items directory read as a source: every line checked, every image checked and contained."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from mcot.benchmarks.loaders._images import DEFAULT_MAX_PIXELS, check_image
from mcot.benchmarks.loaders._paths import read_inside
from mcot.benchmarks.loaders._peek import peek
from mcot.benchmarks.loaders._text import NOT_UTF8, numbered_lines
from mcot.benchmarks.loaders._types import LoadedItem, LoaderError, Skip, SkipItem, Tally
from pydantic import ValidationError

from mcot.core.item import ITEMS_FILE, Item

_ITEM_KEYS = {"id", "benchmark", "answer_type"}


def detect(path: Path) -> bool:
    """Return whether `path` is an items directory (it holds items.jsonl) or its items.jsonl."""
    if path.is_dir():
        return (path / ITEMS_FILE).is_file()
    if path.name != ITEMS_FILE:
        return False
    try:
        record = json.loads(peek(path).split("\n", 1)[0])
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and _ITEM_KEYS <= set(record)


def load(src: Path, tally: Tally, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> Iterator[LoadedItem | Skip]:
    """Yield the items of an items directory with their image bytes (unchanged); bad lines become skips."""
    root = src.parent if src.is_file() else src
    path = root / ITEMS_FILE
    if not path.is_file():
        raise LoaderError(f"{src}: no {ITEMS_FILE} found (an items directory holds items.jsonl and images/)")
    for number, line in numbered_lines(path):
        if line is not None and not line.strip():
            continue
        tally.records += 1
        locator = f"{ITEMS_FILE}:{number}"
        try:
            if line is None:
                raise SkipItem(NOT_UTF8.kind, NOT_UTF8.reason)
            try:
                item = Item.model_validate_json(line)
            except ValidationError as exc:
                first = str(exc).splitlines()
                raise SkipItem("malformed record", f"not a valid item ({' '.join(first[:3])})") from exc
            locator = item.id
            images = {}
            for rel in item.images:
                data = read_inside(root, rel)
                check_image(data, max_pixels=max_pixels)
                images[rel] = data
            yield LoadedItem(item, images)
        except SkipItem as skip:
            yield Skip(locator, skip.kind, skip.reason)
