"""The order a run starts its (item, arm) pairs in: seeded and shuffled, the arms of one item side by side.

A provider drifts over hours (load, silent model updates). Were the arms run one after the other, that drift
would read as an arm effect; shuffling the items and keeping an item's arms adjacent spreads it evenly over
the arms. The order is a pure function of the items, the arms and the seed, and is written to
RUN/schedule.jsonl so that anyone can see what ran when.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from mcot.core.rundir.jsonl import iter_jsonl, write_jsonl
from mcot.core.rundir.layout import SCHEDULE

DEFAULT_SEED = 0
ORDER = "items shuffled by the seed, the arms of an item adjacent"


def shuffled_pairs(item_ids: Sequence[str], arms: Sequence[str], seed: int) -> list[tuple[str, str]]:
    """Return every (item id, arm) in the run's order: items shuffled by `seed`, each item's arms adjacent
    and in an order of their own (also drawn from `seed`)."""
    rng = random.Random(f"mcot-schedule:{seed}")
    order = list(item_ids)
    rng.shuffle(order)
    pairs: list[tuple[str, str]] = []
    for item_id in order:
        item_arms = list(arms)
        rng.shuffle(item_arms)
        pairs.extend((item_id, arm) for arm in item_arms)
    return pairs


def write_schedule(path: Path, pairs: Sequence[tuple[str, str]]) -> Path:
    """Write the order atomically, one `{"id", "mode"}` line a pair; return the path."""
    return write_jsonl(path, ({"id": item_id, "mode": arm} for item_id, arm in pairs))


def read_schedule(path: Path) -> list[tuple[str, str]]:
    """Return the order a schedule file holds, as (item id, arm) pairs."""
    return [(str(row["id"]), str(row["mode"])) for row in iter_jsonl(path)]


def schedule_file(root: Path) -> Path:
    """Return RUN/schedule.jsonl."""
    return Path(root) / SCHEDULE
