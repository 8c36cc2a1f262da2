"""The line a report prints under its intervals and tests: which cluster key each benchmark used, and how many
clusters its items form ("clusters: the figure (meta.level + meta.image_id), 40 clusters of 240 items")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mcot.core.clusters import describe_key
from mcot.core.rundir import Score


def cluster_counts(scores: Iterable[Score]) -> dict[str, tuple[int, int]]:
    """Return {benchmark: (clusters, items)} over the distinct items of `scores`, benchmarks sorted."""
    units: dict[str, dict[str, str]] = {}
    for score in scores:
        units.setdefault(score.benchmark, {})[score.id] = score.unit
    return {name: (len(set(found.values())), len(found)) for name, found in sorted(units.items())}


def _counted(benchmark: str, clusters: int, items: int) -> str:
    key = describe_key(benchmark)
    if key == "the item":
        return f"the item ({items} items, each its own cluster)"
    return f"{key}, {clusters} clusters of {items} items"


def cluster_line(counts: Mapping[str, tuple[int, int]]) -> str | None:
    """Return the note naming each benchmark's cluster key with its (clusters, items) counts (None without any)."""
    if not counts:
        return None
    if len(counts) == 1:
        ((benchmark, (clusters, items)),) = counts.items()
        return f"clusters: {_counted(benchmark, clusters, items)}"
    parts = [f"{name} — {_counted(name, clusters, items)}" for name, (clusters, items) in counts.items()]
    return "clusters: " + "; ".join(parts)
