"""Dataset splits of an export (`--split train=0.9,val=0.1 --seed S`): whole clusters to each split.

A cluster is what the item's benchmark declares as its cluster key (mcot.core.clusters: GePBench's figure, a game's
scene, otherwise the item), so that no figure, scene or item has records in two splits. Clusters are shuffled with
the seed, then taken largest first (ties in the shuffled order), each going to the split furthest below its share of
the records (the first such split on a tie): the record shares approach the fractions as closely as whole clusters
allow, and the same records and seed always give the same splits.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcot.export.output import ExportError

SPLIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
"""A split's name: it names a folder or a file of the export."""
TOLERANCE = 1e-6
"""How far from 1 the fractions' sum may be (decimal fractions such as 0.7 + 0.2 + 0.1 are not exactly 1)."""


@dataclass(frozen=True)
class Split:
    """One split asked for: its name and the share of the records it should hold."""

    name: str
    fraction: float


def parse_splits(text: str) -> list[Split]:
    """Return the splits of `--split NAME=FRACTION,...` in the order given; raise ExportError (one line) for a bad
    name, a fraction that is not a number in (0, 1], a name given twice or fractions that do not sum to 1."""
    splits: list[Split] = []
    for entry in (part.strip() for part in text.split(",")):
        name, sep, value = entry.partition("=")
        name = name.strip()
        if not sep or not SPLIT_NAME.match(name):
            raise ExportError(f"--split {text!r}: {entry!r} is not NAME=FRACTION (e.g. train=0.9,val=0.1)")
        try:
            fraction = float(value)
        except ValueError:
            fraction = math.nan
        if not (math.isfinite(fraction) and 0 < fraction <= 1):
            raise ExportError(f"--split {text!r}: the fraction of {name!r} must be a number above 0 and at most 1")
        if any(split.name == name for split in splits):
            raise ExportError(f"--split {text!r}: {name!r} is named twice")
        splits.append(Split(name, fraction))
    total = sum(split.fraction for split in splits)
    if abs(total - 1) > TOLERANCE:
        raise ExportError(f"--split {text!r}: the fractions sum to {total:g}, not 1")
    return splits


def assign_clusters(sizes: Mapping[str, int], splits: Sequence[Split], seed: int) -> dict[str, str]:
    """Return the split of every cluster, from each cluster's record count (see the module docstring)."""
    order = sorted(sizes)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda cluster: -sizes[cluster])  # stable: equal sizes keep the seeded order
    total = sum(sizes.values())
    held = {split.name: 0 for split in splits}
    chosen: dict[str, str] = {}
    for cluster in order:
        target = max(splits, key=lambda split: split.fraction * total - held[split.name])
        chosen[cluster] = target.name
        held[target.name] += sizes[cluster]
    return chosen
