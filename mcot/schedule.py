"""The order a run starts its (item, arm) pairs in: seeded and shuffled, the arms of one item side by side.

A provider drifts over hours (load, silent model updates). Were the arms run one after the other, that drift
would read as an arm effect; shuffling the items and keeping an item's arms adjacent spreads it evenly over
the arms. The order is a pure function of the items, the arms and the seed, and is written to
RUN/schedule.jsonl so that anyone can see what ran when.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from mcot.eval.rundir import write_text_atomic

SCHEDULE_FILE = "schedule.jsonl"
DEFAULT_SEED = 0


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


def write_schedule(path: Path, pairs: Sequence[tuple[str, str]]) -> None:
    """Write the order, one `{"id", "mode"}` line a pair."""
    write_text_atomic(path, "".join(json.dumps({"id": i, "mode": a}, ensure_ascii=False) + "\n" for i, a in pairs))


def manifest_entry(seed: int, n_pairs: int) -> dict[str, object]:
    """Return the manifest's `schedule` object."""
    return {
        "seed": seed,
        "order": "items shuffled by the seed, the arms of an item adjacent",
        "file": SCHEDULE_FILE,
        "pairs": n_pairs,
    }
