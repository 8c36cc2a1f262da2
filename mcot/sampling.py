"""`--sample N --seed S`: a sample of a dataset's items stratified by benchmark and category.

Each (benchmark, category) stratum gets its share of N in proportion to its size (largest remainders, ties to
the stratum seen first, so the shares always sum to N), drawn without replacement with `random.Random(seed)`;
the sample keeps the source order. The same items and seed always give the same sample.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import TypeVar

from mcot.benchmarks.item import Item

T = TypeVar("T", bound=Item)


def stratum(item: Item) -> tuple[str, str]:
    """Return an item's stratum: (benchmark, category)."""
    return item.benchmark, item.category or ""


def stratum_shares(sizes: Sequence[int], n: int) -> list[int]:
    """Return how many items each stratum of `sizes` gives to a sample of `n` (all of them when n ≥ the total)."""
    total = sum(sizes)
    if n >= total:
        return list(sizes)
    exact = [n * size / total for size in sizes]
    shares = [int(share) for share in exact]
    by_remainder = sorted(range(len(sizes)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in by_remainder[: n - sum(shares)]:
        shares[i] += 1
    return shares


def sample_positions(strata: Iterable[tuple[str, str]], n: int, seed: int) -> set[int]:
    """Return the positions, in a sequence of items given by their strata, of a stratified sample of `n`."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, key in enumerate(strata):
        groups.setdefault(key, []).append(index)
    members = list(groups.values())
    rng = random.Random(seed)
    chosen: set[int] = set()
    for group, share in zip(members, stratum_shares([len(g) for g in members], n), strict=True):
        chosen.update(rng.sample(group, share))
    return chosen


def stratified_sample(items: Sequence[T], n: int, seed: int) -> list[T]:
    """Return `n` of `items` (all when there are fewer), stratified by benchmark and category, in source order."""
    chosen = sample_positions((stratum(item) for item in items), n, seed)
    return [item for index, item in enumerate(items) if index in chosen]


def coverage(items: Iterable[Item]) -> str:
    """Return which benchmarks and categories `items` hold and how many of each, in order of first appearance:
    `12 items: games 6 (bounce 3, maze 3); gepbench 6 (counting 4, size 2)` (what a limited or sampled run covers)."""
    counts: dict[str, dict[str, int]] = {}
    total = 0
    for item in items:
        benchmark, category = stratum(item)
        per = counts.setdefault(benchmark, {})
        per[category or "—"] = per.get(category or "—", 0) + 1
        total += 1
    parts = [
        f"{benchmark} {sum(per.values())} ({', '.join(f'{name} {n}' for name, n in per.items())})"
        for benchmark, per in counts.items()
    ]
    return f"{total} items: " + "; ".join(parts) if parts else "0 items"
