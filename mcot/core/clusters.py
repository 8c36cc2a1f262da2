"""The cluster key of an item: which items share what makes their errors correlated (GePBench's figure, one
generated game scene), so that intervals, tests and export splits treat them as one unit.

A benchmark declares its key as item field paths (`declare_benchmark(..., cluster=("meta.level", "meta.image_id"))`);
the default `("id",)` makes every item its own cluster. A path is `id`, `category`, `images.N` or `meta.KEY`
(`meta.KEY.SUB` for nested objects). An item that lacks a field of its key stands alone (its cluster is its id):
a missing field never merges unrelated items.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcot.core.registry import BENCHMARKS

if TYPE_CHECKING:
    from mcot.core.item import Item

ITEM_KEY: tuple[str, ...] = ("id",)
"""The default cluster key: every item is its own cluster."""

_MISSING = object()


class ClusterKeyError(ValueError):
    """A cluster key names no item field; the message says which path."""


def check_cluster_key(key: Sequence[str]) -> tuple[str, ...]:
    """Return `key` as a tuple when every path names an item field; raise ClusterKeyError otherwise."""
    paths = tuple(key)
    if not paths:
        raise ClusterKeyError("a cluster key needs at least one field path (the default is ('id',))")
    for path in paths:
        head, _, rest = path.partition(".")
        ok = (head in ("id", "category") and not rest) or (head in ("images", "meta") and bool(rest))
        if head == "images" and ok:
            ok = rest.isdigit()
        if not ok:
            raise ClusterKeyError(f"cluster key path {path!r}: use id, category, images.N or meta.KEY")
    return paths


def _field(item: Item, path: str) -> Any:
    head, _, rest = path.partition(".")
    if head == "id":
        return item.id
    if head == "category":
        return item.category
    if head == "images":
        index = int(rest)
        return item.images[index] if index < len(item.images) else _MISSING
    value: Any = item.meta
    for part in rest.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def cluster_of(item: Item, key: Sequence[str] = ITEM_KEY) -> str:
    """Return the item's cluster under `key`: the item id for the default key or when a field is missing, else
    the benchmark's name and the fields' values as one JSON string (so that two benchmarks never share one)."""
    if tuple(key) == ITEM_KEY:
        return item.id
    values = [_field(item, path) for path in key]
    if any(value is _MISSING for value in values):
        return item.id
    return json.dumps([item.benchmark, *values], sort_keys=True, ensure_ascii=False, default=str)


def cluster_key(benchmark: str) -> tuple[str, ...]:
    """Return the cluster key `benchmark` declares (the default key for a benchmark mcot does not know)."""
    declared = BENCHMARKS.find(benchmark)
    return tuple(getattr(declared, "cluster", ITEM_KEY) or ITEM_KEY)


def benchmark_cluster(item: Item) -> str:
    """Return the item's cluster under the key its benchmark declares."""
    return cluster_of(item, cluster_key(item.benchmark))


def key_label(key: Sequence[str]) -> str:
    """Return the key as reports name it: "item" for the default key, else its paths joined by " + "."""
    return "item" if tuple(key) == ITEM_KEY else " + ".join(key)


def describe_key(benchmark: str) -> str:
    """Return a benchmark's key in words for a report: "the item", or its declared name with the paths ("the
    figure (meta.level + meta.image_id)"; the paths alone when it declares no name)."""
    key = cluster_key(benchmark)
    if key == ITEM_KEY:
        return "the item"
    name = str(getattr(BENCHMARKS.find(benchmark), "cluster_name", "") or "")
    return f"{name} ({key_label(key)})" if name else key_label(key)
