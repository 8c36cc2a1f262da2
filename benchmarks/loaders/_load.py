"""Reading a declared data format (`mcot.core.registry.LOADERS`), with its options checked before anything is read."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mcot.benchmarks.loaders._types import LoadedItem, LoaderError, LoadResult, Skip, Tally
from pydantic import ValidationError

from mcot.core.registry import LOADERS, RegistryError

LoadFunction = Callable[..., Iterator[LoadedItem | Skip]]


def convertible_formats() -> tuple[str, ...]:
    """Return the formats `mcot convert` and `--format` take: every declared one but the items directory."""
    return tuple(entry.name for entry in LOADERS.entries() if LOADERS.resolve(entry).convertible)


def options_of(format: str) -> tuple[str, ...]:
    """Return the keyword options the loader of `format` accepts."""
    params = list(inspect.signature(_load_function(format)).parameters.values())[2:]
    return tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _load_function(format: str) -> LoadFunction:
    try:
        loader = LOADERS.get(format)
    except RegistryError as exc:
        raise LoaderError(str(exc)) from None
    return loader.load_function()


def iter_load(format: str, src: Path, tally: Tally | None = None, **options: Any) -> Iterator[LoadedItem | Skip]:
    """Yield the items and skips of `src` read as `format`, streaming; duplicate ids become skips.

    Raises LoaderError for an unknown format or option, a missing source, or a source unreadable as a whole.
    """
    loader = _load_function(format)
    allowed = options_of(format)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        hint = f"; {format} takes {', '.join(allowed)}" if allowed else ""
        raise LoaderError(f"option(s) {', '.join(unknown)} do not apply to {format}{hint}")
    src = Path(src)
    if not src.exists():
        raise LoaderError(f"{src} does not exist")
    seen: set[str] = set()
    for event in loader(src, tally if tally is not None else Tally(), **options):
        if isinstance(event, LoadedItem):
            if event.item.id in seen:
                yield Skip(event.item.id, "duplicate id", f"id {event.item.id!r} was already used by an earlier item")
                continue
            seen.add(event.item.id)
        yield event


def load(format: str, src: Path, **options: Any) -> LoadResult:
    """Return every item (with its image bytes) and every skip of `src` read as `format`."""
    tally = Tally()
    items: list[LoadedItem] = []
    skipped: list[Skip] = []
    try:
        for event in iter_load(format, src, tally, **options):
            (items if isinstance(event, LoadedItem) else skipped).append(event)  # type: ignore[arg-type]
    except ValidationError as exc:  # a loader bug, not bad input: say so plainly
        raise LoaderError(f"{format} loader built an invalid item: {exc}") from exc
    return LoadResult(format=format, items=items, skipped=skipped, records=tally.records)
